package h2_test

import (
	"context"
	"testing"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/transport"
	"github.com/rpcbench/rpcbench/transport/h2"
)

// steadyCase is one kind of request in steady state, against a raw server that allocates nothing
// per request (so that allocation counts, which are process-wide, are the client's).
type steadyCase struct {
	name   string
	tls    bool
	opts   h2.Options
	method string
	body   string
	answer []byte
}

func steadyCases() []steadyCase {
	return []steadyCase{
		{name: "get", opts: h2.Options{Cleartext: true}, method: "GET", answer: helloBody},
		{name: "post-keepbody", opts: h2.Options{Cleartext: true, KeepBody: true}, method: "POST", body: `{"id":42,"name":"item"}`, answer: helloBody},
		{name: "get-40KiB-keepbody", opts: h2.Options{Cleartext: true, KeepBody: true}, method: "GET", answer: bigBody},
		{name: "get-h2-tls", tls: true, opts: h2.Options{InsecureSkipVerify: true}, method: "GET", answer: helloBody},
	}
}

// start starts the case's server and returns a Transport and a request for it, after one request
// that opens the connection and fills both sides' HPACK tables.
func (sc steadyCase) start(tb testing.TB) (*h2.Transport, *transport.Request, *transport.Outcome) {
	scheme := "http"
	var addr string
	if sc.tls {
		scheme = "https"
		addr = startRaw(tb, tlsH2(), nil, answerEach(sc.answer))
	} else {
		addr = startRaw(tb, nil, nil, answerEach(sc.answer))
	}
	tr := newTransport(tb, sc.opts)
	r := &transport.Request{
		Method: sc.method, Scheme: scheme, Host: addr, Path: []byte("/v0/entity?id=42"),
		Header: []transport.Header{{Name: "Accept", Value: "*/*"}},
	}
	if sc.body != "" {
		r.Body = []byte(sc.body)
	}
	out := &transport.Outcome{}
	tr.Do(context.Background(), r, out)
	if out.Class != result.OK || out.Status != 200 || out.Conn.Proto != map[bool]string{false: "h2c", true: "h2"}[sc.tls] {
		tb.Fatalf("%s: got class %v (%v), status %d, protocol %q; want ok, 200 over HTTP/2", sc.name, out.Class, out.Err, out.Status, out.Conn.Proto)
	}
	return tr, r, out
}

// TestDoAllocs: in steady state (an open connection, the same run context) a request over HTTP/2
// allocates nothing. Over TLS, crypto/tls itself allocates one 24-byte reader per record read, on
// each side (client and server share the process): 2 per request.
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
		if out.Class != result.OK || len(out.Body) != len(sc.answer) && sc.opts.KeepBody {
			t.Errorf("%s: got class %v (%v), %d body bytes; want ok, %d", sc.name, out.Class, out.Err, len(out.Body), len(sc.answer))
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

// BenchmarkDoRaw measures one goroutine sending requests one after another on one connection to
// a raw server that allocates nothing: the client's own cost.
//
//	go test -run '^$' -bench DoRaw -benchmem ./transport/h2/
func BenchmarkDoRaw(b *testing.B) {
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
