package httpx

import (
	"context"
	"crypto/tls"
	"net"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/transport"
)

// steadyCase is one kind of request in steady state, against a server that allocates nothing per
// request (so that allocation counts, which are process-wide, are the client's).
type steadyCase struct {
	name   string
	tls    bool
	opts   Options
	method string
	body   string
	answer string
}

const okAnswer = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 13\r\n\r\nHello, world!"

func steadyCases() []steadyCase {
	return []steadyCase{
		{name: "get", method: "GET", answer: okAnswer},
		{name: "get-https", tls: true, opts: Options{InsecureSkipVerify: true}, method: "GET", answer: okAnswer},
		{name: "post-keepbody", opts: Options{KeepBody: true}, method: "POST", body: `{"id":42,"name":"item"}`, answer: okAnswer},
		{name: "chunked-keepbody", opts: Options{KeepBody: true}, method: "GET",
			answer: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nHello\r\n8\r\n, world!\r\n0\r\n\r\n"},
		{name: "get-16KiB", method: "GET", answer: "HTTP/1.1 200 OK\r\nContent-Length: 16384\r\n\r\n" + strings.Repeat("x", 16384)},
	}
}

// serverTLS returns a server TLS configuration with httptest's certificate.
func serverTLS() *tls.Config {
	s := httptest.NewUnstartedServer(nil)
	s.StartTLS()
	cfg := s.TLS.Clone()
	s.Close()
	return cfg
}

// start starts the case's server and returns a Transport and a request for it, after one request
// that opens the connection.
func (sc steadyCase) start(tb testing.TB) (*Transport, *transport.Request, *transport.Outcome) {
	handle := answerEach(sc.answer)
	scheme := "http"
	if sc.tls {
		cfg := serverTLS()
		plain := handle
		handle = func(c net.Conn) { plain(tls.Server(c, cfg)) }
		scheme = "https"
	}
	srv := startRaw(tb, handle)
	tr := newTransport(tb, sc.opts)
	r := &transport.Request{
		Method: sc.method, Scheme: scheme, Host: srv.Host(), Path: []byte("/v0/entity?id=42"),
		Header: []transport.Header{{Name: "Accept", Value: "*/*"}},
	}
	if sc.body != "" {
		r.Body = []byte(sc.body)
	}
	out := &transport.Outcome{}
	tr.Do(context.Background(), r, out)
	if out.Class != result.OK || out.Status != 200 {
		tb.Fatalf("%s: got class %v (%v), status %d; want ok, 200", sc.name, out.Class, out.Err, out.Status)
	}
	return tr, r, out
}

// TestDoAllocs: in steady state (a kept-alive connection, the same run context) a request allocates
// nothing. Over TLS, crypto/tls itself allocates one 24-byte reader per record read, on each side
// (client and server share the process): 2 per request.
func TestDoAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, sc := range steadyCases() {
		tr, r, out := sc.start(t)
		allocs := testing.AllocsPerRun(200, func() {
			out.Reset()
			tr.Do(ctx, r, out)
		})
		if out.Class != result.OK {
			t.Errorf("%s: got class %v (%v); want ok", sc.name, out.Class, out.Err)
		}
		want := 0.0
		if sc.tls {
			want = 2
		}
		if allocs > want {
			t.Errorf("%s: got %v allocations per request; want %v", sc.name, allocs, want)
		}
	}
}

// BenchmarkDo measures one goroutine sending requests one after another on one kept-alive connection.
//
//	go test -run '^$' -bench BenchmarkDo -benchmem ./transport/httpx/
func BenchmarkDo(b *testing.B) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, sc := range steadyCases() {
		b.Run(sc.name, func(b *testing.B) {
			tr, r, out := sc.start(b)
			b.ReportAllocs()
			for b.Loop() {
				out.Reset()
				tr.Do(ctx, r, out)
				if out.Class != result.OK {
					b.Fatalf("got class %v (%v); want ok", out.Class, out.Err)
				}
			}
		})
	}
}
