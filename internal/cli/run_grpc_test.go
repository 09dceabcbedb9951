package cli

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/rpcbench/rpcbench/serve/items"
	"github.com/rpcbench/rpcbench/serve/items/rpzpb"
	"github.com/rpcbench/rpcbench/summary"
)

// itemsProto is the item service's .proto file, from this package's directory.
var itemsProto = filepath.Join("..", "..", "proto", "rpz", "items.proto")

// startItems starts the item service on 127.0.0.1 and returns it; it stops with the test.
func startItems(t *testing.T, cfg items.Config) *items.Server {
	t.Helper()
	s, err := items.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// runJSON runs rpcbench with args and --format json, and returns the report; a run that does not
// exit 0 fails the test.
func runJSON(t *testing.T, args ...string) *summary.Summary {
	t.Helper()
	return reportOf(t, append(args, "--format", "json", "--quiet")...)
}

// reportOf runs rpcbench with args, which ask for the JSON report, and returns the report; a run
// that does not exit 0 fails the test, except one in which no request succeeded (exit 1), whose
// report the test judges.
func reportOf(t *testing.T, args ...string) *summary.Summary {
	t.Helper()
	code, stdout, stderr := mainOut(args...)
	if code != ExitOK && !(code == ExitSLO && strings.Contains(stderr, "no request succeeded")) {
		t.Fatalf("%v: exit %d; stderr %s", args, code, stderr)
	}
	var s summary.Summary
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		t.Fatalf("%v: the report is not JSON: %v\n%s", args, err, stdout)
	}
	return &s
}

// TestRunGRPCStatusCodes creates items over gRPC (methods found by reflection) and reads twice as
// many ids as there are: half the reads are OK and half NotFound, counted by name, per method.
func TestRunGRPCStatusCodes(t *testing.T) {
	t.Parallel()
	s := startItems(t, items.Config{})
	base := "grpc://" + s.GRPCAddr()
	created := runJSON(t, "run", "--requests", "10", "--connections", "3", "--call", "rpz.ItemService.CreateItem",
		"--body", `{"id":"item-{{seq}}","name":"n{{seq}}"}`, base)
	if got := created.Status; len(got) != 1 || got["OK"] != 10 {
		t.Errorf("create: status %v; want OK 10", got)
	}
	if s.Len() != 10 {
		t.Errorf("the server holds %d items; want the 10 created", s.Len())
	}
	if created.Endpoints[0].Name != "rpz.ItemService/CreateItem" {
		t.Errorf("endpoint named %q; want the method's full name", created.Endpoints[0].Name)
	}
	read := runJSON(t, "run", "--requests", "20", "--connections", "3", "--body", `{"id":"item-{{seq}}"}`,
		base+"/rpz.ItemService/GetItem")
	want := map[string]uint64{"OK": 10, "NotFound": 10}
	if got := read.Status; len(got) != 2 || got["OK"] != 10 || got["NotFound"] != 10 {
		t.Errorf("get: status %v; want %v", got, want)
	}
	if r := read.Requests; r.OK != 10 || r.Errors != 10 || r.Completed != 20 {
		t.Errorf("get: requests %+v; want 10 ok, 10 failed, 20 completed", r)
	}
	// the server's message, its numbers blanked: one cause for the 10 ids
	if got := failures(read.Stats); got[`status: grpc NotFound: items: no item with id "item-N"`] != 10 || len(got) != 1 {
		t.Errorf(`get: failures %v; want status: grpc NotFound: items: no item with id "item-N" 10`, got)
	}

	// two methods in one run: the text report breaks the codes down by method
	code, stdout, stderr := mainOut("run", "--requests", "20", "--connections", "1", "--quiet",
		"--endpoint", "put="+base+"/rpz.ItemService/CreateItem", "--endpoint", base+"/rpz.ItemService/GetItem",
		"--body", `{"id":"x{{seq}}"}`)
	if code != ExitOK {
		t.Fatalf("two methods: exit %d; stderr %s", code, stderr)
	}
	for _, w := range []string{"gRPC status codes\n", "  OK        10 (50.0%)\n", "  NotFound  10 (50.0%)  (counted as failed)\n",
		"gRPC status codes by method\n", "  put                      OK 10\n", "  rpz.ItemService/GetItem  NotFound 10\n"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("two methods: the report lacks %q:\n%s", w, stdout)
		}
	}
	if strings.Contains(stdout, "non-2xx") {
		t.Errorf("two methods: the report speaks of HTTP status classes:\n%s", stdout)
	}
}

// --grpc-client grpc-go makes the unary calls on grpc-go, the default (auto) on the own HTTP/2
// client: the same calls and counts, the server told the client's name (user-agent), and the
// report's plan says which client.
func TestRunGRPCClient(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	agents := map[string]int{}
	srv := grpc.NewServer(grpc.UnknownServiceHandler(func(_ any, stream grpc.ServerStream) error {
		md, _ := metadata.FromIncomingContext(stream.Context())
		agent, _, _ := strings.Cut(strings.Join(md.Get("user-agent"), ","), "/")
		mu.Lock()
		agents[agent]++
		mu.Unlock()
		var in rpzpb.GetItemRequest
		if err := stream.RecvMsg(&in); err != nil {
			return err
		}
		return stream.SendMsg(&rpzpb.Item{Id: in.GetId()})
	}))
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(srv.Stop)
	for _, tc := range []struct{ client, agent string }{{"", "rpcbench"}, {"auto", "rpcbench"}, {"grpc-go", "grpc-go"}} {
		args := []string{"run", "--requests", "8", "--connections", "2", "--proto", itemsProto, "--import-path", filepath.Dir(itemsProto),
			"--call", "rpz.ItemService/GetItem", "--body", `{"id":"c{{seq}}"}`, "grpc://" + ln.Addr().String()}
		if tc.client != "" {
			args = append(args[:1], append([]string{"--grpc-client", tc.client}, args[1:]...)...)
		}
		mu.Lock()
		clear(agents)
		mu.Unlock()
		got := runJSON(t, args...)
		if st := got.Status; len(st) != 1 || st["OK"] != 8 {
			t.Errorf("client %q: status %v; want OK 8", tc.client, st)
		}
		if got.Config.GRPC.Client != tc.client {
			t.Errorf("client %q: the report's plan says client %q", tc.client, got.Config.GRPC.Client)
		}
		mu.Lock()
		if len(agents) != 1 || agents[tc.agent] != 8 {
			t.Errorf("client %q: the server was called by %v; want 8 calls by %s", tc.client, agents, tc.agent)
		}
		mu.Unlock()
	}
}

// Without reflection, the message types come from the .proto file or a protoset; without either,
// the error says what to give.
func TestRunGRPCProtoAndProtoset(t *testing.T) {
	t.Parallel()
	s := startItems(t, items.Config{NoReflection: true})
	url := "grpc://" + s.GRPCAddr() + "/rpz.ItemService/CreateItem"
	body := `{"id":"p{{seq}}","name":"from a proto file"}`
	code, _, stderr := mainOut("run", "--requests", "5", "--body", body, url)
	if code != ExitUsage || !strings.Contains(stderr, "no reflection service; give the .proto files or a protoset") {
		t.Errorf("no reflection, no --proto: exit %d, stderr %q; want %d and a hint", code, stderr, ExitUsage)
	}
	got := runJSON(t, "run", "--requests", "5", "--proto", itemsProto, "--import-path", filepath.Dir(itemsProto), "--body", body, url)
	if got.Status["OK"] != 5 {
		t.Errorf("--proto: status %v; want OK 5", got.Status)
	}
	if g := got.Config.GRPC; len(g.ProtoFiles) != 1 || len(g.ImportPaths) != 1 {
		t.Errorf("the report's plan has gRPC settings %+v; want the .proto file and its import path", g)
	}

	// named as protoc and ghz name it: relative to an import path
	got = runJSON(t, "run", "--requests", "5", "--proto", "rpz/items.proto", "--import-path", filepath.Join("..", "..", "proto"),
		"--body", `{"id":"r{{seq}}"}`, url)
	if got.Status["OK"] != 5 {
		t.Errorf("--proto relative to --import-path: status %v; want OK 5", got.Status)
	}

	set := &descriptorpb.FileDescriptorSet{File: []*descriptorpb.FileDescriptorProto{
		protodesc.ToFileDescriptorProto(timestamppb.File_google_protobuf_timestamp_proto),
		protodesc.ToFileDescriptorProto(rpzpb.File_rpz_items_proto),
	}}
	b, err := proto.Marshal(set)
	if err != nil {
		t.Fatal(err)
	}
	protoset := filepath.Join(t.TempDir(), "items.protoset")
	if err := os.WriteFile(protoset, b, 0o600); err != nil {
		t.Fatal(err)
	}
	got = runJSON(t, "run", "--requests", "5", "--protoset", protoset, "--body", `{"id":"s{{seq}}"}`, url)
	if got.Status["OK"] != 5 {
		t.Errorf("--protoset: status %v; want OK 5", got.Status)
	}
	if s.Len() != 15 {
		t.Errorf("the server holds %d items; want the 15 created", s.Len())
	}
}

// Bad gRPC input is a usage error before anything is sent: it names what is wrong and, for an
// unknown method, lists the methods the server has.
func TestRunGRPCUsageErrors(t *testing.T) {
	t.Parallel()
	s := startItems(t, items.Config{})
	base := "grpc://" + s.GRPCAddr()
	bad := filepath.Join(t.TempDir(), "bad.proto")
	if err := os.WriteFile(bad, []byte("syntax = \"proto3\";\nmessage M {\n  string id = ;\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"unknown method", []string{"--call", "rpz.ItemService/Nope", base}, ExitUsage,
			`unknown method "/rpz.ItemService/Nope"; the source has: rpz.ItemService/CreateItem, rpz.ItemService/CreateItems, rpz.ItemService/GetItem, rpz.ItemService/GetItems, rpz.ItemService/ListItems`},
		{"unknown service", []string{base + "/rpz.Nope/GetItem"}, ExitUsage, "the source has: rpz.ItemService/CreateItem, rpz.ItemService/CreateItems, rpz.ItemService/GetItem, rpz.ItemService/GetItems, rpz.ItemService/ListItems"},
		{"body of another message", []string{"--call", "rpz.ItemService/GetItem", "--body", `{"idx":"1"}`, base}, ExitUsage,
			`the body is not a rpz.GetItemRequest in JSON`},
		{"no method", []string{base}, ExitUsage, "names no method: want grpc://HOST:PORT/package.Service/Method (or give --call)"},
		{"call and path", []string{"--call", "rpz.ItemService/GetItem", base + "/rpz.ItemService/GetItem"}, ExitUsage, "names a method already"},
		{"call not a method", []string{"--call", "GetItem", base}, ExitUsage, `--call: method "GetItem": want package.Service/Method`},
		{"call on http", []string{"--call", "rpz.ItemService/GetItem", "http://127.0.0.1:1/"}, ExitUsage, "--call: URL \"http://127.0.0.1:1/\": a method goes with a grpc:// or grpcs:// URL"},
		{"proto on http", []string{"--proto", itemsProto, "http://127.0.0.1:1/"}, ExitUsage, "proto files, import paths, a protoset, gRPC connections or a stream rate go with gRPC"},
		{"jsonrpc on grpc", []string{"--jsonrpc", "eth_chainId", base + "/rpz.ItemService/GetItem"}, ExitUsage, "--jsonrpc and --calls go with"},
		{"proto and protoset", []string{"--proto", itemsProto, "--protoset", "x.protoset", base + "/rpz.ItemService/GetItem"}, ExitUsage, "both .proto files and a protoset"},
		{"bad proto", []string{"--proto", bad, base + "/rpz.ItemService/GetItem"}, ExitUsage, "bad.proto:3:15: syntax error"},
		{"missing protoset", []string{"--protoset", "missing.protoset", base + "/rpz.ItemService/GetItem"}, ExitUsage, "missing.protoset"},
		{"no server", []string{"grpc://127.0.0.1:1/rpz.ItemService/GetItem"}, ExitCannotStart, "grpc://127.0.0.1:1: cannot connect"},
		{"unknown client", []string{"--grpc-client", "grpcgo", base + "/rpz.ItemService/GetItem"}, ExitUsage,
			`--grpc-client "grpcgo": want auto (unary calls on rpcbench's own HTTP/2 client) or grpc-go (every call on grpc-go)`},
		{"client on http", []string{"--grpc-client", "grpc-go", "http://127.0.0.1:1/"}, ExitUsage, "--grpc-client goes with a grpc:// or grpcs:// URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, _, stderr := mainOut(append([]string{"run", "--requests", "5"}, tt.args...)...)
			if code != tt.code || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, tt.code, tt.want)
			}
		})
	}
	if s.Len() != 0 {
		t.Errorf("the server holds %d items; want none: nothing is sent on bad input", s.Len())
	}
}

// grpcs:// speaks TLS; the item service's certificate is self-signed, so --insecure.
func TestRunGRPCS(t *testing.T) {
	t.Parallel()
	s := startItems(t, items.Config{TLS: true})
	url := fmt.Sprintf("grpcs://%s/rpz.ItemService/CreateItem", s.GRPCAddr())
	code, _, stderr := mainOut("run", "--requests", "3", "--body", `{"id":"a"}`, url)
	if code != ExitCannotStart || !strings.Contains(stderr, "certificate") {
		t.Errorf("unverified certificate: exit %d, stderr %q; want %d and a word on the certificate", code, stderr, ExitCannotStart)
	}
	got := runJSON(t, "run", "--requests", "3", "--insecure", "--body", `{"id":"a"}`, url)
	if got.Status["OK"] != 3 || got.Connections.TLS == nil {
		t.Errorf("--insecure: status %v, TLS set-up %v; want OK 3 and a TLS set-up time", got.Status, got.Connections.TLS)
	}
}

// run's TLS flags: the CA, the server's name and the client's certificate.
func TestRunGRPCTLSFiles(t *testing.T) {
	t.Parallel()
	dir, addr, tenants := startMutualTLS(t)
	f := func(name string) string { return filepath.Join(dir, name) }
	url := "grpcs://" + addr + "/rpz.ItemService/GetItem"
	got := runJSON(t, "run", "--requests", "4", "--connections", "2", "--body", `{"id":"1"}`, "-H", "x-tenant: 9",
		"--cacert", f("ca.pem"), "--server-name", "items.test", "--cert", f("client.pem"), "--key", f("client-key.pem"), url)
	if got.Status["OK"] != 4 || len(tenants) != 4 || <-tenants != "9" {
		t.Errorf("status %v, %d calls seen; want OK 4, each with x-tenant 9", got.Status, len(tenants))
	}
	code, _, stderr := mainOut("run", "--requests", "4", "--cacert", f("ca.pem"), "--server-name", "items.test",
		"grpc://"+addr+"/rpz.ItemService/GetItem")
	if code != ExitUsage || !strings.Contains(stderr, "is plaintext: certificates, a server name and a TLS version go with https://, wss:// or grpcs://") {
		t.Errorf("TLS files on grpc://: exit %d, stderr %q; want %d and a word on plaintext", code, stderr, ExitUsage)
	}
}

// --timeout is each call's deadline: a server that never answers fails every call as a timeout,
// grpc DeadlineExceeded, which ghz's summary counts under that code.
func TestRunGRPCDeadline(t *testing.T) {
	t.Parallel()
	addr := startTestGRPC(t, tenantServer{stuck: true})
	got := runJSON(t, "run", "--requests", "3", "--connections", "3", "--timeout", "50ms", "--body", `{"id":"1"}`,
		"grpc://"+addr+"/rpz.ItemService/CreateItem")
	// the server's DeadlineExceeded, or on a busy machine the client's own deadline firing first
	deadlines := failures(got.Stats)["timeout: grpc DeadlineExceeded"] + failures(got.Stats)["timeout: context deadline exceeded"]
	if got.Errors["timeout"] != 3 || deadlines != 3 {
		t.Errorf("errors %v, failures %v; want 3 timeouts, each a deadline", got.Errors, failures(got.Stats))
	}
	code, stdout, stderr := mainOut("ghz", "--insecure", "-t", "50ms", "-n", "3", "-c", "3", "--call", "rpz.ItemService/CreateItem", "-d", `{"id":"1"}`, addr)
	if code != ExitSLO || !strings.Contains(stdout, "\nStatus code distribution:\n  [DeadlineExceeded]\t3 responses\n") { // no call succeeded: exit 1
		t.Errorf("ghz: exit %d, stderr %s\n%s", code, stderr, stdout)
	}
}
