package grpcx_test

import (
	"errors"
	"net"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/transport/grpcx"
)

// TestDropped: a server that goes away in the middle of a call gives a reset, not an answer.
func TestDropped(t *testing.T) {
	t.Parallel()
	clients(t, func(t *testing.T, client string) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		var srv *grpc.Server
		srv = grpc.NewServer(grpc.UnknownServiceHandler(func(_ any, stream grpc.ServerStream) error {
			go srv.Stop()
			<-stream.Context().Done()
			return status.Error(codes.Unavailable, "gone")
		}))
		go func() { _ = srv.Serve(ln) }()
		t.Cleanup(srv.Stop)
		tr := newTransport(t, grpcx.Options{Client: client, Resolver: echoResolver(t)})
		out := do(t, tr, request("grpc", ln.Addr().String(), "/echo.Echo/Echo", `{}`))
		t.Logf("class %v status %d answered %v sent %v err %q", out.Class, out.Status, out.Answered, !out.Sent.IsZero(), out.Err)
		if out.Class != result.Reset || out.Answered || out.Sent.IsZero() {
			t.Errorf("a call whose connection closed: got class %v answered %v (%v); want reset, sent, unanswered", out.Class, out.Answered, out.Err)
		}
	})
}

// A server refusing a request over its own receive limit says grpc-go's words for a message too
// large; with answers kept, that is the server's status, not an answer over our limit.
func TestServerRefusesALargeRequest(t *testing.T) {
	t.Parallel()
	clients(t, func(t *testing.T, client string) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		srv := grpc.NewServer(grpc.MaxRecvMsgSize(10), grpc.UnknownServiceHandler(func(_ any, stream grpc.ServerStream) error {
			var m []byte
			return stream.RecvMsg(&m) // over 10 bytes: grpc-go refuses it, ResourceExhausted
		}))
		go func() { _ = srv.Serve(ln) }()
		t.Cleanup(srv.Stop)
		tr := newTransport(t, grpcx.Options{Client: client, Resolver: echoResolver(t), KeepBody: true})
		body := `{"id":"` + strings.Repeat("x", 3000) + `"}`
		out := do(t, tr, request("grpc", ln.Addr().String(), "/echo.Echo/Echo", body))
		if out.Class == result.TooLarge || errors.Is(out.Err, grpcx.ErrAnswerTooLarge) || out.Status != int(codes.ResourceExhausted) {
			t.Errorf("a request over the server's limit: class %v, status %d (%v); want the server's ResourceExhausted, not too-large", out.Class, out.Status, out.Err)
		}
	})
}
