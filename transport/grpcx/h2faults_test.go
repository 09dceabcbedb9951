package grpcx_test

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/serve/items/rpzpb"
	"github.com/rpcbench/rpcbench/transport"
	"github.com/rpcbench/rpcbench/transport/grpcx"
	"golang.org/x/net/http2"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
)

// prefixed is msg behind gRPC's 5-byte prefix with the compressed flag flag.
func prefixed(flag byte, msg []byte) []byte {
	b := make([]byte, 5+len(msg))
	b[0] = flag
	binary.BigEndian.PutUint32(b[1:], uint32(len(msg)))
	copy(b[5:], msg)
	return b
}

// answerData answers with the headers head, the DATA frames data (each its own frame), then the
// trailers when given, else the last DATA frame ends the stream.
func answerData(head []string, trailers []string, data ...[]byte) grpcx.RawAnswer {
	return func(fr *http2.Framer, block func(...string) []byte, id uint32) error {
		if err := fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: block(head...), EndHeaders: true}); err != nil {
			return err
		}
		for i, d := range data {
			if err := fr.WriteData(id, trailers == nil && i == len(data)-1, d); err != nil {
				return err
			}
		}
		if trailers == nil {
			return nil
		}
		return fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: block(trailers...), EndHeaders: true, EndStream: true})
	}
}

// The answers of servers that break gRPC's framing or its status rules, and what grpc-go's calls
// make of them (its words, run against the same servers by the grpc-go client here): the own
// client tells them alike, whether it keeps the body (and decodes it) or not.
func TestAnswersToldAsGRPCGoTellsThem(t *testing.T) {
	head := []string{":status", "200", "content-type", "application/grpc"}
	ok := []string{"grpc-status", "0"}
	item := []byte{0x0a, 0x01, 'x'} // rpzpb.Item{Id: "x"}
	whole := prefixed(0, item)
	long := prefixed(0, item)
	binary.BigEndian.PutUint32(long[1:], 100) // a prefix promising 100 bytes, 3 sent
	cases := []struct {
		name   string
		answer grpcx.RawAnswer
		class  result.Class
		status int
		err    string // the start of the call's error
	}{
		{"one message over three DATA frames", answerData(head, ok, whole[:2], whole[2:6], whole[6:]), result.OK, 0, ""},
		{"compressed flag, no grpc-encoding", answerData(head, ok, prefixed(1, item)), result.Status, 13,
			"grpc Internal: grpc: compressed flag set with identity or empty encoding"},
		{"two messages to a unary call", answerData(head, ok, append(append([]byte{}, whole...), whole...)), result.Status, 13,
			"grpc Internal: cardinality violation: expected <EOF> for non server-streaming"},
		{"a second message cut in its prefix", answerData(head, ok, whole, whole[:3]), result.Status, 13, "grpc Internal: unexpected EOF"},
		{"a prefix longer than the message", answerData(head, ok, long), result.Status, 13, "grpc Internal: unexpected EOF"},
		{"a prefix cut short", answerData(head, ok, whole[:3]), result.Status, 13, "grpc Internal: unexpected EOF"},
		{"a cut message, then status NotFound", answerData(head, []string{"grpc-status", "5"}, long), result.Status, 13, "grpc Internal: unexpected EOF"},
		{"trailers without grpc-status", answerData(head, []string{"x-other", "1"}, whole), result.Status, 2, "grpc Unknown"},
		{"no trailers", answerData(head, nil, whole), result.Status, 13, "grpc Internal: server closed the stream without sending trailers"},
		{"HTTP 500 with a grpc-status", func(fr *http2.Framer, block func(...string) []byte, id uint32) error {
			return fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: block(":status", "500", "content-type", "application/grpc", "grpc-status", "5"), EndHeaders: true, EndStream: true})
		}, result.Status, 5, "grpc NotFound"},
		{"the connection closed mid-answer", func(fr *http2.Framer, block func(...string) []byte, id uint32) error {
			if err := fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: block(head...), EndHeaders: true}); err != nil {
				return err
			}
			if err := fr.WriteData(id, false, whole[:4]); err != nil {
				return err
			}
			return errors.New("close") // the raw server closes the connection
		}, result.Reset, 14, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			addr := grpcx.StartRawGRPC(t, tc.answer)
			for _, keep := range []bool{false, true} {
				for _, c := range []string{grpcx.ClientAuto, grpcx.ClientGRPCGo} {
					tr := newTransport(t, grpcx.Options{Client: c, Resolver: echoResolver(t), KeepBody: keep, Timeout: 5 * time.Second, MaxBody: 1 << 20})
					out := do(t, tr, request("grpc", addr, "/echo.Echo/Echo", `{"id":"x"}`))
					if out.Class != tc.class || out.Status != tc.status || tc.err != "" && (out.Err == nil || !strings.HasPrefix(out.Err.Error(), tc.err)) {
						t.Errorf("%s, keep %v: class %v, status %d, %v; want %v, %d, %q", c, keep, out.Class, out.Status, out.Err, tc.class, tc.status, tc.err)
					}
				}
			}
		})
	}
}

// A timeout under a millisecond reaches the server as such: grpc-timeout in the smallest unit
// that holds it in 8 digits, rounded up (gRPC's specification), not 0m, which ends every call at
// once, nor 1m for 1999µs.
func TestSubMillisecondTimeoutOnTheWire(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 64)
	h2s := &http2.Server{}
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Get("grpc-timeout")
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/grpc")
		w.Header().Set("Trailer", "Grpc-Status")
		_, _ = w.Write(prefixed(0, []byte{0x0a, 0x01, 'x'}))
		w.Header().Set("Grpc-Status", "0")
	})
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() { h2s.ServeConn(c, &http2.ServeConnOpts{Handler: handler}); c.Close() })
		}
	})
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{{900 * time.Microsecond, "900000n"}, {1999 * time.Microsecond, "1999000n"}, {150 * time.Millisecond, "150000u"}} {
		tr := newTransport(t, grpcx.Options{Resolver: echoResolver(t), Timeout: tc.d})
		r := request("grpc", ln.Addr().String(), "/echo.Echo/Echo", `{"id":"x"}`)
		var sent bool
		for range 20 { // the first calls may spend their time connecting
			if out := do(t, tr, r); !out.Sent.IsZero() {
				sent = true
				break
			}
		}
		if !sent {
			t.Fatalf("%v: no call was sent in 20", tc.d)
		}
		if v := <-got; v != tc.want {
			t.Errorf("timeout %v: grpc-timeout %q; want %q", tc.d, v, tc.want)
		}
		tr.Close() // its connection ends: the server's handler for it is done
	}
}

// A connection the client gave up on (its ConnectTimeout passed before the server's HTTP/2
// settings came) is the client's timeout, told as such: not "the server closed the connection",
// and no probe for TLS, which would connect to the server once more.
func TestConnectTimeoutIsTheClients(t *testing.T) {
	var accepts atomic.Int64
	addr, stop := grpcx.ServeLoopback(t, func(nc net.Conn) {
		accepts.Add(1)
		_, _ = io.Copy(io.Discard, nc) // and say nothing
	})
	tr := newTransport(t, grpcx.Options{Resolver: echoResolver(t), Timeout: 200 * time.Millisecond, ConnectTimeout: 5 * time.Second})
	out := do(t, tr, request("grpc", addr, "/echo.Echo/Echo", `{"id":"x"}`))
	if out.Class != result.Timeout || out.Err == nil || strings.Contains(out.Err.Error(), "closed") ||
		!errors.Is(out.Err, os.ErrDeadlineExceeded) && !errors.Is(out.Err, context.DeadlineExceeded) {
		t.Errorf("class %v, %v; want a timeout, the connection's deadline", out.Class, out.Err)
	}
	stop() // a probe for TLS would have connected by now, and been served
	if n := accepts.Load(); n != 1 {
		t.Errorf("%d connections to the server; want 1, the call's", n)
	}
}

// Metadata goes as grpc-go sends it: a user-agent replaced by the client's own,
// grpc-status-details-bin sent (grpc-go 1.85 does not reserve it), and a value outside printable
// ASCII or a name outside [0-9a-z-_.] refused before sending, status Internal, in grpc-go's words.
func TestMetadataAsGRPCGoSendsIt(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan metadata.MD, 8)
	srv := grpc.NewServer(grpc.UnknownServiceHandler(func(_ any, st grpc.ServerStream) error {
		if err := st.RecvMsg(new(rpzpb.GetItemRequest)); err != nil {
			return err
		}
		if md, _ := metadata.FromIncomingContext(st.Context()); len(md.Get("x-id")) > 0 {
			got <- md // the first call's, not those that must be refused
		}
		return st.SendMsg(&rpzpb.Item{Id: "x"})
	}))
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(srv.Stop)
	for _, c := range []string{grpcx.ClientAuto, grpcx.ClientGRPCGo} {
		tr := newTransport(t, grpcx.Options{Client: c, Resolver: echoResolver(t), Timeout: 5 * time.Second})
		r := request("grpc", ln.Addr().String(), "/echo.Echo/Echo", `{"id":"x"}`)
		r.Header = []transport.Header{{Name: "User-Agent", Value: "mine"}, {Name: "grpc-status-details-bin", Value: "abc"}, {Name: "X-Id", Value: "7"}}
		if out := do(t, tr, r); out.Class != result.OK {
			t.Fatalf("%s: class %v, %v; want ok", c, out.Class, out.Err)
		}
		md := <-got
		if ua := md.Get("user-agent"); len(ua) != 1 || ua[0] == "mine" {
			t.Errorf("%s: user-agent %q; want the client's own, once", c, ua)
		}
		if v := md.Get("grpc-status-details-bin"); len(v) != 1 || v[0] != "abc" {
			t.Errorf("%s: grpc-status-details-bin %q; want [abc]", c, v)
		}
		if v := md.Get("x-id"); len(v) != 1 || v[0] != "7" {
			t.Errorf("%s: x-id %q; want [7]", c, v)
		}
		for _, tc := range []struct {
			h   transport.Header
			err string
		}{
			{transport.Header{Name: "X-Name", Value: "caf\xc3\xa9"}, `grpc Internal: header key "x-name" contains value with non-printable ASCII characters`},
			{transport.Header{Name: "x-name", Value: "a\x01b"}, `grpc Internal: header key "x-name" contains value with non-printable ASCII characters`},
			{transport.Header{Name: "X!y", Value: "1"}, `grpc Internal: header key "x!y" contains illegal characters not in [N-z-_.]`}, // numbers blanked (statusError)
		} {
			r.Header = []transport.Header{tc.h}
			out := do(t, tr, r)
			if out.Class != result.Status || out.Status != 13 || out.Err == nil || out.Err.Error() != tc.err {
				t.Errorf("%s: %q: class %v, status %d, %v; want status, 13, %q", c, tc.h, out.Class, out.Status, out.Err, tc.err)
			}
		}
	}
}
