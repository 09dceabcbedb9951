package grpcx_test

import (
	"context"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/keepalive"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/transport"
	"github.com/rpcbench/rpcbench/transport/grpcx"
)

// A server that sends GOAWAY every 50 ms or so (its maximum connection age) while calls are in
// flight: every call is answered, on the next connection once its own went away.
func TestGoAwayMidRun(t *testing.T) {
	t.Parallel()
	clients(t, func(t *testing.T, client string) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		var accepts atomic.Int64
		es := &echoServer{addr: ln.Addr().String()}
		srv := grpc.NewServer(grpc.KeepaliveParams(keepalive.ServerParameters{MaxConnectionAge: 50 * time.Millisecond, MaxConnectionAgeGrace: 10 * time.Second}),
			grpc.UnknownServiceHandler(echoHandler(es)))
		go func() { _ = srv.Serve(countingListener{ln, &accepts}) }()
		t.Cleanup(srv.Stop)
		tr := newTransport(t, grpcx.Options{Client: client, Resolver: echoResolver(t)})
		r := request("grpc", es.addr, "/echo.Echo/Echo", `{"id":"g"}`)
		// 8 callers, until the server has had 4 connections: at most 20,000 calls or 20 s
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		var calls, failed atomic.Int64
		var first sync.Once
		var firstErr string
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				var out transport.Outcome
				for ctx.Err() == nil && accepts.Load() < 4 && calls.Add(1) <= 20000 {
					out.Reset()
					tr.Do(ctx, r, &out)
					if out.Class != result.OK && ctx.Err() == nil {
						failed.Add(1)
						first.Do(func() { firstErr = out.Class.String() + ": " + errString(out.Err) })
					}
				}
			})
		}
		wg.Wait()
		if got := accepts.Load(); got < 4 {
			t.Fatalf("%d calls: the server had %d connections; want 4 (a GOAWAY about every 50 ms)", calls.Load(), got)
		}
		if n := failed.Load(); n > 0 {
			t.Errorf("%d of %d calls failed across the GOAWAYs (first: %s); want none", n, calls.Load(), firstErr)
		}
	})
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// An HTTP/2 server that is not gRPC's: its answers are statuses by their HTTP status, as gRPC
// maps them (404: Unimplemented, 503: Unavailable), and one of 200 without gRPC's content type is
// Unknown — never a success.
func TestNotAGRPCAnswer(t *testing.T) {
	t.Parallel()
	clients(t, func(t *testing.T, client string) {
		for _, tc := range []struct {
			status int
			code   int
		}{{404, 12}, {503, 14}, {200, 2}} {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			var p http.Protocols
			p.SetUnencryptedHTTP2(true)
			srv := &http.Server{Protocols: &p, Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "text/plain")
				w.WriteHeader(tc.status)
				_, _ = w.Write([]byte("not grpc"))
			})}
			go func() { _ = srv.Serve(ln) }()
			t.Cleanup(func() { _ = srv.Close() })
			tr := newTransport(t, grpcx.Options{Client: client, Resolver: echoResolver(t)})
			out := do(t, tr, request("grpc", ln.Addr().String(), "/echo.Echo/Echo", `{"id":"x"}`))
			if out.Class != result.Status || out.Status != tc.code || !out.Answered {
				t.Errorf("HTTP %d text/plain: got class %v status %d answered %v (%v); want status %d, answered", tc.status, out.Class, out.Status, out.Answered, out.Err, tc.code)
			}
		}
	})
}

// A server that resets the call's stream: a status, as grpc-go tells it, by the reset's code
// (CANCEL: Canceled, INTERNAL_ERROR: Internal, ENHANCE_YOUR_CALM: ResourceExhausted), answered.
func TestStreamReset(t *testing.T) {
	t.Parallel()
	clients(t, func(t *testing.T, client string) {
		for _, tc := range []struct {
			code http2.ErrCode
			want codes.Code
		}{{http2.ErrCodeCancel, codes.Canceled}, {http2.ErrCodeInternal, codes.Internal}, {http2.ErrCodeEnhanceYourCalm, codes.ResourceExhausted}} {
			addr := grpcx.StartRawGRPC(t, func(fr *http2.Framer, _ func(...string) []byte, id uint32) error {
				return fr.WriteRSTStream(id, tc.code)
			})
			tr := newTransport(t, grpcx.Options{Client: client, Resolver: echoResolver(t)})
			out := do(t, tr, request("grpc", addr, "/echo.Echo/Echo", `{"id":"x"}`))
			if out.Class != result.Status || out.Status != int(tc.want) || !out.Answered || out.Sent.IsZero() {
				t.Errorf("RST_STREAM %v: got class %v status %d answered %v sent %v (%v); want status %d (%v), answered", tc.code, out.Class, out.Status, out.Answered, !out.Sent.IsZero(), out.Err, tc.want, tc.want)
			}
		}
	})
}
