package plan

import (
	"strings"
	"testing"
)

func TestSplitGRPCMethod(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, svc, m string
		ok         bool
	}{
		{"rpz.ItemService/CreateItem", "rpz.ItemService", "CreateItem", true},  // gRPC's own form
		{"/rpz.ItemService/CreateItem", "rpz.ItemService", "CreateItem", true}, // as a :path
		{"rpz.ItemService.CreateItem", "rpz.ItemService", "CreateItem", true},  // as ghz writes it
		{"a.b.c.Svc.M", "a.b.c.Svc", "M", true},                                // a dotted package
		{"Svc/M", "Svc", "M", true},                                            // no package
		{"CreateItem", "", "", false},                                          // no service
		{"rpz.ItemService/", "", "", false},                                    // no method
		{"rpz.ItemService.", "", "", false},                                    // no method, ghz's form
		{"/rpz.ItemService/Create/Item", "", "", false},                        // a path of three parts
		{"rpz.ItemService/Create Item", "", "", false},                         // a space
		{".rpz.ItemService/CreateItem", "", "", false},                         // a leading dot
		{"rpz.ItemService/CreateItem?x=1", "", "", false},                      // a query
	}
	for _, tt := range tests {
		svc, m, err := SplitGRPCMethod(tt.in)
		if (err == nil) != tt.ok || svc != tt.svc || m != tt.m {
			t.Errorf("SplitGRPCMethod(%q) = %q, %q, %v; want %q, %q, ok %v", tt.in, svc, m, err, tt.svc, tt.m, tt.ok)
		}
	}
}

func TestGRPCURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		base, method, want, err string
	}{
		{"grpc://127.0.0.1:9090", "rpz.ItemService.CreateItem", "grpc://127.0.0.1:9090/rpz.ItemService/CreateItem", ""},
		{"grpcs://localhost:9090/", "rpz.ItemService/GetItem", "grpcs://localhost:9090/rpz.ItemService/GetItem", ""},
		{"grpc://127.0.0.1:9090/rpz.ItemService/GetItem", "rpz.ItemService/GetItem", "", "names a method already"},
		{"http://127.0.0.1:9090", "rpz.ItemService/GetItem", "", "goes with a grpc:// or grpcs:// URL"},
		{"grpc://127.0.0.1:9090", "GetItem", "", "want package.Service/Method"},
	}
	for _, tt := range tests {
		got, err := GRPCURL(tt.base, tt.method)
		if got != tt.want || (err == nil) != (tt.err == "") || err != nil && !strings.Contains(err.Error(), tt.err) {
			t.Errorf("GRPCURL(%q, %q) = %q, %v; want %q, %q", tt.base, tt.method, got, err, tt.want, tt.err)
		}
	}
}

// A gRPC endpoint is normalized to gRPC's method path, POST and the method's name; its protocol
// is grpc.
func TestNormalizedGRPC(t *testing.T) {
	t.Parallel()
	p := Plan{Endpoints: []Endpoint{{URL: "GRPC://127.0.0.1:9090/rpz.ItemService.CreateItem"}}}.Normalized()
	e := p.Endpoints[0]
	if e.URL != "grpc://127.0.0.1:9090/rpz.ItemService/CreateItem" || e.Method != "POST" || e.Name != "rpz.ItemService/CreateItem" || p.Protocol != "grpc" {
		t.Errorf("got URL %q, method %q, name %q, protocol %q; want grpc://127.0.0.1:9090/rpz.ItemService/CreateItem, POST, rpz.ItemService/CreateItem, grpc",
			e.URL, e.Method, e.Name, p.Protocol)
	}
}

func TestValidateGRPC(t *testing.T) {
	t.Parallel()
	ep := func(u string) []Endpoint { return []Endpoint{{URL: u}} }
	const m = "grpc://127.0.0.1:9090/rpz.ItemService/GetItem"
	tests := []struct {
		name string
		p    Plan
		want string // "" for a valid plan
	}{
		{"reflection", Plan{Endpoints: ep(m)}, ""},
		{"proto files", Plan{Endpoints: ep(m), GRPC: GRPC{ProtoFiles: []string{"a.proto"}, ImportPaths: []string{"."}}}, ""},
		{"no method", Plan{Endpoints: ep("grpc://127.0.0.1:9090")}, "names no method"},
		{"bad method", Plan{Endpoints: ep("grpc://127.0.0.1:9090/GetItem")}, `method "/GetItem": want package.Service/Method`},
		{"query", Plan{Endpoints: ep(m + "?x=1")}, "a gRPC URL holds no query"},
		{"proto on http", Plan{Endpoints: ep("http://127.0.0.1/"), GRPC: GRPC{Protoset: "x.protoset"}}, "go with gRPC, not with protocol http1"},
		{"both sources", Plan{Endpoints: ep(m), GRPC: GRPC{ProtoFiles: []string{"a.proto"}, Protoset: "x"}}, "both .proto files and a protoset"},
		{"import paths alone", Plan{Endpoints: ep(m), GRPC: GRPC{ImportPaths: []string{"."}}}, "import paths without a .proto file"},
		{"mixed schemes", Plan{Endpoints: append(ep(m), Endpoint{URL: "http://127.0.0.1/"})}, "protocol grpc does not carry http:// URLs"},
	}
	for _, tt := range tests {
		err := tt.p.Normalized().Validate()
		if (err == nil) != (tt.want == "") || err != nil && !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Validate() = %v; want %q", tt.name, err, tt.want)
		}
	}
}
