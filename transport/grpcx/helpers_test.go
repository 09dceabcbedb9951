package grpcx_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/rpcbench/rpcbench/serve/items"
	"github.com/rpcbench/rpcbench/serve/items/rpzpb"
	"github.com/rpcbench/rpcbench/transport"
	"github.com/rpcbench/rpcbench/transport/grpcx"
)

// echoProto describes the test server's service. In and Out have the field numbers of
// rpz.GetItemRequest and rpz.Item, whose generated types the server uses to read and write them.
const echoProto = `syntax = "proto3";

package echo;

service Echo {
  // Echo answers with the id and, as name, the request's "x-name" metadata, or "x-name-bin" (its
  // user-agent when the id is "user-agent").
  rpc Echo(In) returns (Out);
  // Block never answers.
  rpc Block(In) returns (Out);
  // Fail answers with the status code given as id ("5").
  rpc Fail(In) returns (Out);
}

message In {
  string id = 1;
}

message Out {
  string id = 1;
  string name = 2;
}
`

// writeFile writes text to name in dir and returns its path.
func writeFile(t testing.TB, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// echoResolver compiles echoProto from a file of the test.
func echoResolver(t testing.TB) *grpcx.Resolver {
	t.Helper()
	p := writeFile(t, t.TempDir(), "echo.proto", echoProto)
	r, err := grpcx.FromProto(context.Background(), nil, p)
	if err != nil {
		t.Fatalf("FromProto: %v", err)
	}
	return r
}

// itemsResolver is nil for "reflection" (the server is asked), else the item service's .proto
// file compiled.
func itemsResolver(t testing.TB, src string) *grpcx.Resolver {
	t.Helper()
	if src == "reflection" {
		return nil
	}
	dir := filepath.Join("..", "..", "proto")
	r, err := grpcx.FromProto(context.Background(), []string{dir}, "rpz/items.proto")
	if err != nil {
		t.Fatalf("FromProto: %v", err)
	}
	return r
}

// echoServer is a gRPC server without reflection serving echo.Echo on loopback.
type echoServer struct {
	addr    string
	accepts atomic.Int64
	// blocked gets a value each time a Block call has reached the server (dropped when full).
	blocked chan struct{}
	srv     *grpc.Server
}

type countingListener struct {
	net.Listener
	n *atomic.Int64
}

func (l countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.n.Add(1)
	}
	return c, err
}

func newEchoServer(t testing.TB) *echoServer {
	t.Helper()
	return newEchoServerOn(t, "127.0.0.1:0")
}

// newEchoServerOn serves echo.Echo on addr, a loopback host:port.
func newEchoServerOn(t testing.TB, addr string) *echoServer {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	es := &echoServer{addr: ln.Addr().String(), blocked: make(chan struct{}, 16)}
	srv := grpc.NewServer(grpc.UnknownServiceHandler(echoHandler(es)))
	es.srv = srv
	go func() { _ = srv.Serve(countingListener{ln, &es.accepts}) }()
	t.Cleanup(srv.Stop)
	return es
}

// echoHandler serves echo.Echo (see echoProto) as es's server does.
func echoHandler(es *echoServer) grpc.StreamHandler {
	return func(_ any, stream grpc.ServerStream) error {
		m, _ := grpc.MethodFromServerStream(stream)
		in := new(rpzpb.GetItemRequest)
		if err := stream.RecvMsg(in); err != nil {
			return err
		}
		switch m {
		case "/echo.Echo/Echo":
			md, _ := metadata.FromIncomingContext(stream.Context())
			out := &rpzpb.Item{Id: in.GetId()}
			if v := md.Get("x-name"); len(v) > 0 {
				out.Name = v[0]
			}
			if v := md.Get("x-name-bin"); len(v) > 0 { // binary metadata, base64 on the wire
				out.Name = v[0]
			}
			if v := md.Get("user-agent"); in.GetId() == "user-agent" && len(v) > 0 {
				out.Name = v[0]
			}
			return stream.SendMsg(out)
		case "/echo.Echo/Block":
			select {
			case es.blocked <- struct{}{}:
			default:
			}
			<-stream.Context().Done()
			return stream.Context().Err()
		case "/echo.Echo/Fail":
			// "5": status 5, "failing as asked"; "5 long": four lines of message; "5 empty": none
			id, how, _ := strings.Cut(in.GetId(), " ")
			var c int
			for _, d := range id {
				c = c*10 + int(d-'0')
			}
			switch how {
			case "long":
				var b strings.Builder
				for i := 1; i <= 4; i++ {
					fmt.Fprintf(&b, "line %d of 4, with its number 1234567\n", i)
				}
				return status.Error(codes.Code(c), b.String())
			case "empty":
				return status.Error(codes.Code(c), "")
			}
			return status.Error(codes.Code(c), "failing as asked")
		}
		return status.Errorf(codes.Unimplemented, "no method %s", m)
	}
}

func newItems(t testing.TB, cfg items.Config) *items.Server {
	t.Helper()
	s, err := items.New(cfg)
	if err != nil {
		t.Fatalf("items.New: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func newTransport(t testing.TB, o grpcx.Options) *grpcx.Transport {
	t.Helper()
	tr := grpcx.New(o)
	t.Cleanup(func() { _ = tr.Close() })
	return tr
}

func request(scheme, host, path, body string) *transport.Request {
	return &transport.Request{Scheme: scheme, Host: host, Path: []byte(path), Body: []byte(body), Protocol: transport.GRPC}
}

// do makes one call, bounded by 10 s.
func do(t testing.TB, tr transport.Transport, r *transport.Request) transport.Outcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var out transport.Outcome
	tr.Do(ctx, r, &out)
	return out
}

// clients runs test once per client of unary calls, in parallel subtests named after them: the
// own HTTP/2 client (auto) and grpc-go.
func clients(t *testing.T, test func(t *testing.T, client string)) {
	for _, c := range []string{grpcx.ClientAuto, grpcx.ClientGRPCGo} {
		t.Run(c, func(t *testing.T) {
			t.Parallel()
			test(t, c)
		})
	}
}
