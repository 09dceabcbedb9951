package plan

import (
	"fmt"
	"math"
	"net/url"
	"strings"
	"time"

	"github.com/rpcbench/rpcbench/result"
)

// GRPC says where a gRPC run finds its methods' message types: .proto files compiled at run time
// (ProtoFiles, looked up in ImportPaths), a protoset (a FileDescriptorSet, as protoc
// --include_imports --descriptor_set_out writes it), or, when both are empty (the zero value), the
// server's reflection service. A gRPC endpoint's URL names the server and the method:
// grpc://127.0.0.1:9090/rpz.ItemService/CreateItem (plaintext) or grpcs://… (TLS); its Body is the
// request message as JSON and its Header the call's metadata.
type GRPC struct {
	ProtoFiles  []string `json:"proto_files,omitempty"`
	ImportPaths []string `json:"import_paths,omitempty"`
	Protoset    string   `json:"protoset,omitempty"`
	// Connections is the number of HTTP/2 connections the calls are spread over, as ghz's
	// --connections; 0: one per connection of the load (Load.Connections).
	Connections int `json:"connections,omitempty"`
	// StreamRate, above 0, sends the messages of each client- or bidi-streaming call on a
	// schedule, this many per second (see grpcx.Options.StreamRate).
	StreamRate float64 `json:"stream_rate,omitempty"`
	// StreamCount, above 0, is the number of messages each client- or bidi-streaming call sends
	// (the body's in turn) and of answers a server-streaming call takes before it ends the stream;
	// StreamDuration, above 0, how long the first send and the second receive. They are ghz's
	// --stream-call-count and --stream-call-duration (see grpcx.Options).
	StreamCount    int           `json:"stream_count,omitempty"`
	StreamDuration time.Duration `json:"stream_duration,omitempty"`
	// Client is what makes the unary calls: GRPCClientAuto ("" too) rpcbench's own HTTP/2 client,
	// GRPCClientGRPCGo grpc-go (as streaming calls always are), to compare the two.
	Client string `json:"client,omitempty"`
}

// The gRPC clients a plan may name (GRPC.Client).
const (
	GRPCClientAuto   = "auto"
	GRPCClientGRPCGo = "grpc-go"
)

// IsZero reports whether g is the zero value: the server's reflection is asked, and the
// defaults hold.
func (g GRPC) IsZero() bool {
	return len(g.ProtoFiles) == 0 && len(g.ImportPaths) == 0 && g.Protoset == "" && g.Connections == 0 && g.StreamRate == 0 &&
		g.StreamCount == 0 && g.StreamDuration == 0 && g.Client == ""
}

// IsGRPCURL reports whether u is a grpc:// or grpcs:// URL, whose calls always carry a body.
func IsGRPCURL(u string) bool { return isGRPCScheme(strings.ToLower(schemeOf(u))) }

// isGRPCScheme reports whether a URL of scheme s is a gRPC one.
func isGRPCScheme(s string) bool { return s == "grpc" || s == "grpcs" }

// SplitGRPCMethod splits a gRPC method's full name, "package.Service/Method" (with or without a
// leading slash, as in gRPC's :path) or "package.Service.Method" (as ghz writes it), into the
// service's full name and the method's name.
func SplitGRPCMethod(name string) (service, method string, err error) {
	n := strings.TrimPrefix(name, "/")
	i := strings.LastIndexByte(n, '/')
	if i < 0 {
		i = strings.LastIndexByte(n, '.')
	}
	if i <= 0 || i == len(n)-1 || strings.ContainsAny(n[:i], "/ ?#") || strings.ContainsAny(n[i+1:], "/. ?#") ||
		strings.HasPrefix(n, ".") || strings.HasSuffix(n[:i], ".") {
		return "", "", fmt.Errorf("method %q: want package.Service/Method or package.Service.Method", name)
	}
	return n[:i], n[i+1:], nil
}

// GRPCURL returns the URL of method (see SplitGRPCMethod) on the server of base, a grpc:// or
// grpcs:// URL with no path: grpc://127.0.0.1:9090 and rpz.ItemService.CreateItem give
// grpc://127.0.0.1:9090/rpz.ItemService/CreateItem.
func GRPCURL(base, method string) (string, error) {
	svc, m, err := SplitGRPCMethod(method)
	if err != nil {
		return "", err
	}
	scheme, rest, ok := strings.Cut(base, "://")
	if !ok || !isGRPCScheme(strings.ToLower(scheme)) {
		return "", fmt.Errorf("URL %q: a method goes with a grpc:// or grpcs:// URL", RedactURL(base))
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		if p := rest[i:]; p != "/" {
			return "", fmt.Errorf("URL %q names a method already (%s); drop one of them", RedactURL(base), p)
		}
		rest = rest[:i]
	}
	return scheme + "://" + rest + "/" + svc + "/" + m, nil
}

// normalizeGRPC makes a gRPC endpoint's URL name its method as gRPC does ("/package.Service/Method",
// also when written as ghz writes it), its HTTP method POST (what gRPC sends) and its default name
// the method's full name.
func normalizeGRPC(e *Endpoint) {
	scheme, rest, ok := strings.Cut(e.URL, "://")
	if !ok || !isGRPCScheme(scheme) {
		return
	}
	if i := strings.IndexByte(rest, '/'); i >= 0 && !strings.ContainsAny(rest[i:], "?#") {
		if svc, m, err := SplitGRPCMethod(rest[i:]); err == nil {
			e.URL = scheme + "://" + rest[:i] + "/" + svc + "/" + m
		}
	}
	e.Method = "POST"
}

// grpcName is the default name of a gRPC endpoint: its method's full name.
func grpcName(raw string) (string, bool) {
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok || !isGRPCScheme(scheme) {
		return "", false
	}
	i := strings.IndexByte(rest, '/')
	if i < 0 {
		return "", false
	}
	return rest[i+1:], true
}

// validateGRPC returns the problems of the gRPC settings and of gRPC endpoints: a URL that names no
// method, descriptor sources that exclude each other, or gRPC settings in a plan of another
// protocol.
func (p Plan) validateGRPC() []error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf("plan: "+format, a...)) }
	proto := p.Protocol
	if proto == "" {
		proto = p.defaultProtocol()
	}
	g := p.GRPC
	settings := g // but the client, said of apart
	settings.Client = ""
	if !settings.IsZero() && proto != "" && proto != result.GRPC {
		bad("proto files, import paths, a protoset, gRPC connections or a stream rate go with gRPC, not with protocol %s", proto)
	}
	switch g.Client {
	case "":
	case GRPCClientAuto, GRPCClientGRPCGo:
		if proto != "" && proto != result.GRPC {
			bad("gRPC client %q goes with gRPC, not with protocol %s", g.Client, proto)
		}
	default:
		bad("gRPC client %q: want %s (unary calls on rpcbench's own HTTP/2 client) or %s", g.Client, GRPCClientAuto, GRPCClientGRPCGo)
	}
	if g.StreamCount < 0 {
		bad("stream count %d: want 1 or more messages a stream, or 0 for the body's", g.StreamCount)
	}
	if g.StreamDuration < 0 {
		bad("stream duration %v: want a duration above 0, or 0 for none", g.StreamDuration)
	}
	if g.StreamRate < 0 || g.StreamRate > maxRate || math.IsNaN(g.StreamRate) {
		bad("stream rate %v: want a rate above 0, up to %g messages per second", g.StreamRate, float64(maxRate))
	}
	if g.Connections < 0 || g.Connections > MaxConnections {
		bad("gRPC connections %d: want 1 to %d", g.Connections, MaxConnections)
	}
	if !p.TLS.IsZero() {
		for i, e := range p.Endpoints {
			switch strings.ToLower(schemeOf(e.URL)) {
			case "http", "ws", "grpc":
				bad("endpoint %d: URL %q is plaintext: certificates, a server name and a TLS version go with https://, wss:// or grpcs://", i+1, RedactURL(e.URL))
			default:
				continue
			}
			break
		}
		if (p.TLS.Cert == "") != (p.TLS.Key == "") {
			bad("a client certificate and its key go together: give both files or neither")
		}
		if _, ok := result.TLSVersions[p.TLS.MinVersion]; p.TLS.MinVersion != "" && !ok {
			bad("TLS version %q: want 1.2 or 1.3", p.TLS.MinVersion)
		}
	}
	if len(g.ProtoFiles) > 0 && g.Protoset != "" {
		bad("both .proto files and a protoset: give one of them")
	}
	if len(g.ImportPaths) > 0 && len(g.ProtoFiles) == 0 {
		bad("import paths without a .proto file: they say where the .proto files and their imports are")
	}
	for i, e := range p.Endpoints {
		if !isGRPCScheme(strings.ToLower(schemeOf(e.URL))) || HasTemplate(e.URL) {
			continue
		}
		u, err := url.Parse(e.URL)
		if err != nil {
			continue // CheckURL says so
		}
		switch {
		case u.RawQuery != "" || u.Fragment != "":
			bad("endpoint %d: URL %q: a gRPC URL holds no query: want grpc://HOST:PORT/package.Service/Method", i+1, RedactURL(e.URL))
		case u.Path == "" || u.Path == "/":
			bad("endpoint %d: URL %q names no method: want grpc://HOST:PORT/package.Service/Method (or give --call)", i+1, RedactURL(e.URL))
		default:
			if _, _, err := SplitGRPCMethod(u.Path); err != nil {
				bad("endpoint %d: URL %q: %v", i+1, RedactURL(e.URL), err)
			}
		}
	}
	return errs
}
