package httpx

import (
	"bufio"
	"io"
	"net"
	"sync/atomic"
	"testing"
	"time"

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

// A request not a byte of which could be written takes nothing read from its connection as its
// answer. The server answered the first request, then (unasked) a second time, and reset the
// connection. The next request is taken without a look (it comes within checkIdleAfter), meets the
// reset when it writes, and must not count the answer sent before it: it is a GET, so it is sent
// again on a new connection, and counted as retried.
func TestRequestNotWrittenTakesNoAnswer(t *testing.T) {
	t.Parallel()
	idle, reset := make(chan struct{}), make(chan struct{})
	var first atomic.Bool
	srv := startRaw(t, func(c net.Conn) {
		if first.CompareAndSwap(false, true) {
			if _, err := readRequest(bufio.NewReader(c), nil); err != nil {
				return
			}
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
			select {
			case <-idle: // the client has read its answer: the connection sits idle in its pool
			case <-time.After(10 * time.Second):
				return
			}
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nzz")
			c.(*net.TCPConn).SetLinger(0)
			c.Close() // a reset, with the second answer already in the client's socket
			close(reset)
			return
		}
		answerEach("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")(c)
	})
	tr := newTransport(t, Options{KeepBody: true})
	tr.checkIdleAfter = time.Hour
	r := get(srv.Host())
	if out := do(tr, r); out.Class != result.OK || string(out.Body) != "ok" {
		t.Fatalf("first request: class %v (%v), body %q; want ok, \"ok\"", out.Class, out.Err, out.Body)
	}
	close(idle)
	<-reset
	out := do(tr, r)
	if out.Class != result.OK || string(out.Body) != "ok" || !out.Opened || out.Retried != 1 {
		t.Errorf("second request: class %v (%v), body %q, opened %v, retried %d; want ok, \"ok\" on a new connection after 1 retry, not the unasked \"zz\"", out.Class, out.Err, out.Body, out.Opened, out.Retried)
	}
	if got := srv.accepted.Load(); got != 2 {
		t.Errorf("%d connections; want 2", got)
	}
}
