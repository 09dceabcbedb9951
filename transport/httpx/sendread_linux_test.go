package httpx

import (
	"testing"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/transport/rawconn"
)

// On a kept-alive plain connection a request goes out with the first read of its answer, which
// then waits for the answer instead of reading the socket while it is still empty: a write and a
// read per request, not a write and two reads (rawconn's SendWithRead). The server answers each
// request with one write, so every read brings bytes.
func TestRequestGoesOutWithTheAnswersRead(t *testing.T) {
	t.Parallel()
	srv := startRaw(t, answerEach("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"))
	tr := newTransport(t, Options{})
	r := get(srv.Host())
	const requests = 50
	for i := range requests {
		if out := do(tr, r); out.Class != result.OK || out.Status != 200 {
			t.Fatalf("request %d: class %v, status %d (%v); want ok, 200", i, out.Class, out.Status, out.Err)
		}
	}
	if n := srv.accepted.Load(); n != 1 {
		t.Fatalf("%d connections; want 1", n)
	}
	tr.mu.Lock()
	var rc *rawconn.Conn
	for c := range tr.conns {
		rc, _ = c.nc.(*rawconn.Conn)
	}
	tr.mu.Unlock()
	if rc == nil {
		t.Fatal("the connection does not read and write with raw system calls")
	}
	if n := rc.EmptyReads(); n != 0 {
		t.Errorf("%d of %d requests read an empty socket before their answer came; want 0", n, requests)
	}
}
