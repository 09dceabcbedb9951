package httpx

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/internal/testnet"
	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/transport"
)

func newTransport(tb testing.TB, opts Options) *Transport {
	tb.Helper()
	tr, err := New(opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { tr.Close() })
	return tr
}

func get(host string) *transport.Request {
	return &transport.Request{Method: "GET", Scheme: "http", Host: host, Path: []byte("/")}
}

func do(tr *Transport, r *transport.Request) *transport.Outcome {
	var out transport.Outcome
	tr.Do(context.Background(), r, &out)
	return &out
}

// countConns counts the connections an httptest server accepts.
func countConns(srv *httptest.Server) *atomic.Int64 {
	var n atomic.Int64
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			n.Add(1)
		}
	}
	return &n
}

func TestKeepAliveReuse(t *testing.T) {
	t.Parallel()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "hello")
	}))
	conns := countConns(srv)
	srv.Start()
	defer srv.Close()
	tr := newTransport(t, Options{KeepBody: true})
	r := get(srv.Listener.Addr().String())
	for i := range 20 {
		out := do(tr, r)
		if out.Class != result.OK || out.Status != 200 || string(out.Body) != "hello" {
			t.Fatalf("request %d: got class %v, status %d, body %q, err %v; want ok, 200, \"hello\"", i, out.Class, out.Status, out.Body, out.Err)
		}
		if got, want := out.Opened, i == 0; got != want {
			t.Errorf("request %d: got Opened %v; want %v", i, got, want)
		}
		if out.Sent.IsZero() || out.FirstByte.Before(out.Sent) || !out.Answered {
			t.Errorf("request %d: got Sent %v, FirstByte %v, Answered %v; want FirstByte after Sent, answered", i, out.Sent, out.FirstByte, out.Answered)
		}
	}
	if got := conns.Load(); got != 1 {
		t.Errorf("got %d connections; want 1", got)
	}
}

func TestDisableKeepAlive(t *testing.T) {
	t.Parallel()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !r.Close {
			t.Errorf("got a request without Connection: close")
		}
	}))
	conns := countConns(srv)
	srv.Start()
	defer srv.Close()
	tr := newTransport(t, Options{DisableKeepAlive: true})
	for i := range 5 {
		out := do(tr, get(srv.Listener.Addr().String()))
		if out.Class != result.OK || !out.Opened || out.Conn.Connect <= 0 || out.Conn.DNS != 0 {
			t.Errorf("request %d: got class %v (%v), Opened %v, Conn %+v; want ok, a new connection with a connect time and no DNS", i, out.Class, out.Err, out.Opened, out.Conn)
		}
	}
	if got := conns.Load(); got != 5 {
		t.Errorf("got %d connections; want 5", got)
	}
}

// TestAnswers sends two requests to servers that answer with exact bytes and checks what the
// transport makes of them, and whether the second request reused the connection.
func TestAnswers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		method string
		answer string
		status int
		body   string
		conns  int64 // connections used by two requests
	}{
		{"content-length", "GET", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", 200, "hello", 1},
		{"chunked", "GET", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3;x=y\r\nabc\r\n2\r\nde\r\n0\r\nTrailer: 1\r\n\r\n", 200, "abcde", 1},
		{"close-delimited", "GET", "HTTP/1.1 200 OK\r\n\r\nto the end", 200, "to the end", 2},
		{"connection close", "GET", "HTTP/1.1 503 Busy\r\nConnection: close\r\nContent-Length: 4\r\n\r\nbusy", 503, "busy", 2},
		{"HTTP/1.0", "GET", "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok", 200, "ok", 2},
		{"HEAD", "HEAD", "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n", 200, "", 1},
		{"204", "DELETE", "HTTP/1.1 204 No Content\r\n\r\n", 204, "", 1},
		{"304", "GET", "HTTP/1.1 304 Not Modified\r\nContent-Length: 1000\r\n\r\n", 304, "", 1},
		{"100-continue", "POST", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok", 201, "ok", 1},
		{"404 is an answer", "GET", "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n", 404, "", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			handle := answerEach(tt.answer)
			if tt.conns == 2 {
				handle = answerOnce(tt.answer)
			}
			srv := startRaw(t, handle)
			tr := newTransport(t, Options{KeepBody: true})
			r := &transport.Request{Method: tt.method, Scheme: "http", Host: srv.Host(), Path: []byte("/x")}
			for i := range 2 {
				out := do(tr, r)
				if out.Class != result.OK || out.Status != tt.status || string(out.Body) != tt.body || !out.Answered {
					t.Errorf("request %d: got class %v (%v), status %d, body %q; want ok, %d, %q", i, out.Class, out.Err, out.Status, out.Body, tt.status, tt.body)
				}
				if got, want := out.BytesIn, int64(len(tt.answer)); got != want {
					t.Errorf("request %d: got BytesIn %d; want %d", i, got, want)
				}
			}
			if got := srv.accepted.Load(); got != tt.conns {
				t.Errorf("got %d connections; want %d", got, tt.conns)
			}
		})
	}
}

// TestRequestBytes checks the exact bytes written and BytesOut.
func TestRequestBytes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		r    transport.Request
		opts Options
		want string
	}{
		{"GET", transport.Request{Method: "GET", Host: "h", Path: []byte("/a?b=1"), Header: []transport.Header{{Name: "Accept", Value: "*/*"}, {Name: "X-Id", Value: "7"}}},
			Options{}, "GET /a?b=1 HTTP/1.1\r\nHost: h\r\nUser-Agent: rpcbench\r\nAccept: */*\r\nX-Id: 7\r\n\r\n"},
		{"POST body", transport.Request{Method: "POST", Host: "h:80", Path: []byte("/p"), Body: []byte(`{"a":1}`)},
			Options{UserAgent: "ua/1"}, "POST /p HTTP/1.1\r\nHost: h:80\r\nUser-Agent: ua/1\r\nContent-Length: 7\r\n\r\n{\"a\":1}"},
		{"PUT empty", transport.Request{Method: "PUT", Host: "h", Path: []byte("/")},
			Options{}, "PUT / HTTP/1.1\r\nHost: h\r\nUser-Agent: rpcbench\r\nContent-Length: 0\r\n\r\n"},
		{"defaults and overrides", transport.Request{Host: "h", Header: []transport.Header{{Name: "host", Value: "virtual"}, {Name: "USER-AGENT", Value: "me"}, {Name: "Content-Length", Value: "99"}, {Name: "Transfer-Encoding", Value: "chunked"}}},
			Options{DisableKeepAlive: true}, "GET / HTTP/1.1\r\nhost: virtual\r\nUSER-AGENT: me\r\nConnection: close\r\n\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := make(chan string, 1)
			srv := startRaw(t, func(c net.Conn) {
				head, err := readRequest(bufio.NewReader(c), nil)
				if err != nil {
					got <- err.Error()
					return
				}
				got <- string(head)
				io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
			})
			tr := newTransport(t, tt.opts)
			r := tt.r
			r.Scheme = "http"
			// Dial the test server, whatever Host the request names.
			tr.pools[poolKey{"http", r.Host}], _ = tr.newPool("http", srv.Host())
			out := do(tr, &r)
			if out.Class != result.OK {
				t.Fatalf("got class %v (%v); want ok", out.Class, out.Err)
			}
			head := <-got
			body := ""
			if len(r.Body) > 0 {
				body = string(r.Body)
			}
			if head+body != tt.want {
				t.Errorf("got request %q; want %q", head+body, tt.want)
			}
			if out.BytesOut != int64(len(tt.want)) {
				t.Errorf("got BytesOut %d; want %d", out.BytesOut, len(tt.want))
			}
		})
	}
}

func TestFailures(t *testing.T) {
	t.Parallel()
	refusedHost := testnet.RefusedAddr(t)

	tests := []struct {
		name   string
		handle func(net.Conn) // nil: the request goes to refusedHost
		opts   Options
		class  result.Class
		err    string
	}{
		{"refused", nil, Options{}, result.Refused, "connection refused"},
		{"closed before answering", func(c net.Conn) { readRequest(bufio.NewReader(c), nil) }, Options{}, result.Reset, "closed the connection without answering"},
		{"closed mid-body", answerOnce("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nabc"), Options{}, result.Reset, "after 43 bytes"},
		{"reset mid-body", func(c net.Conn) {
			if _, err := readRequest(bufio.NewReader(c), nil); err == nil {
				io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nabc")
				c.(*net.TCPConn).SetLinger(0) // close with RST
			}
		}, Options{}, result.Reset, ""},
		{"never answers", neverAnswer, Options{Timeout: 200 * time.Millisecond}, result.Timeout, "i/o timeout"},
		{"garbage", answerEach("SSH-2.0-OpenSSH\r\n"), Options{}, result.Protocol, "bad status line"},
		{"bad framing", answerEach("HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n"), Options{}, result.Protocol, "bad Content-Length"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			host := refusedHost
			var srv *rawServer
			if tt.handle != nil {
				srv = startRaw(t, tt.handle)
				host = srv.Host()
			}
			tr := newTransport(t, tt.opts)
			for i := range 2 { // the second request must not be spoilt by the first
				out := do(tr, get(host))
				if out.Class != tt.class || out.Err == nil || !strings.Contains(out.Err.Error(), tt.err) || out.Answered {
					t.Errorf("request %d: got class %v, err %v, answered %v; want %v with %q, unanswered", i, out.Class, out.Err, out.Answered, tt.class, tt.err)
				}
				if !out.Opened {
					t.Errorf("request %d: got Opened false; want a new connection after a failure", i)
				}
			}
			if tt.handle == nil {
				return
			}
			if got := srv.accepted.Load(); got != 2 {
				t.Errorf("got %d connections; want 2 (a failed connection is not reused)", got)
			}
		})
	}
}

func TestRefusedConnEvent(t *testing.T) {
	t.Parallel()
	host := testnet.RefusedAddr(t)
	tr := newTransport(t, Options{})
	out := do(tr, get(host))
	if !out.Opened || !out.Conn.Failed || out.Conn.Connect <= 0 || !out.Sent.IsZero() {
		t.Errorf("got Opened %v, Conn %+v, Sent %v; want a failed connection with its connect time, nothing sent", out.Opened, out.Conn, out.Sent)
	}
}

// closeAfterAnswer starts a server that answers one request per connection and closes it, without
// saying so; closed receives once per connection closed.
func closeAfterAnswer(t *testing.T) (*rawServer, <-chan struct{}) {
	answer := answerOnce("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
	closed := make(chan struct{}, 8)
	srv := startRaw(t, func(c net.Conn) {
		answer(c)
		c.Close()
		closed <- struct{}{}
	})
	return srv, closed
}

// TestStaleConnRetry: the server closes a kept-alive connection after each answer without saying so.
// Idempotent requests are retried once on a new connection; a POST is not.
func TestStaleConnRetry(t *testing.T) {
	t.Parallel()
	srv, closed := closeAfterAnswer(t)
	tr := newTransport(t, Options{})
	r := get(srv.Host())
	for i := range 3 {
		out := do(tr, r)
		if out.Class != result.OK || !out.Opened {
			t.Errorf("GET %d: got class %v (%v), Opened %v; want ok on a new connection", i, out.Class, out.Err, out.Opened)
		}
	}
	if got := srv.accepted.Load(); got != 3 {
		t.Errorf("got %d connections; want 3", got)
	}
	// The server closed each connection after its answer: the idle connection is seen to be
	// closed before it is used, so even a POST, which is never retried, goes on a new one. (Wait
	// for the closes: a POST sent between an answer and its close meets a reset, as with any client.)
	for range 3 {
		<-closed
	}
	r.Method = "POST"
	out := do(tr, r)
	if out.Class != result.OK || !out.Opened {
		t.Errorf("POST: got class %v (%v), Opened %v; want ok on a new connection", out.Class, out.Err, out.Opened)
	}
}

// TestTimeoutOnReusedConn: a request on a kept-alive connection taken at once (no clock read before
// the send) still has its Timeout: the server answers the first request and never the second, which
// must end as a timeout on the same connection, not hang until its context ends.
func TestTimeoutOnReusedConn(t *testing.T) {
	t.Parallel()
	srv := startRaw(t, answerFirst(1))
	tr := newTransport(t, Options{Timeout: 200 * time.Millisecond})
	r := get(srv.Host())
	if out := do(tr, r); out.Class != result.OK || !out.Opened {
		t.Fatalf("first request: class %v (%v), opened %v; want ok on a new connection", out.Class, out.Err, out.Opened)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var out transport.Outcome
	tr.Do(ctx, r, &out)
	if out.Class != result.Timeout || out.Opened || out.Err == nil || !strings.Contains(out.Err.Error(), "i/o timeout") {
		t.Errorf("second request: class %v (%v), opened %v; want a timeout (i/o timeout) on the kept-alive connection", out.Class, out.Err, out.Opened)
	}
}

// answerFirst answers the first n requests of each connection, and then reads the others and
// answers none.
func answerFirst(n int) func(net.Conn) {
	return func(c net.Conn) {
		br := bufio.NewReader(c)
		for range n {
			if _, err := readRequest(br, nil); err != nil {
				return
			}
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
		}
		io.Copy(io.Discard, br)
	}
}

// TestTimeoutTimerAcrossRequests: a connection's timeout timer stays set from request to request
// (conn.expire). A request that begins while the timer is still set for the deadline of the one
// before runs out of time at its own deadline, not at that earlier one; a timer that fired while
// the connection sat idle spoils nothing, and the next request's deadline is kept all the same.
func TestTimeoutTimerAcrossRequests(t *testing.T) {
	t.Parallel()
	const timeout = 400 * time.Millisecond
	// doTimed sends r under a context that ends 5 s after the timeout, and says how long it took.
	doTimed := func(tr *Transport, r *transport.Request) (*transport.Outcome, time.Duration) {
		ctx, cancel := context.WithTimeout(context.Background(), timeout+5*time.Second)
		defer cancel()
		var out transport.Outcome
		began := time.Now()
		tr.Do(ctx, r, &out)
		return &out, time.Since(began)
	}
	timedOut := func(out *transport.Outcome) bool {
		return out.Class == result.Timeout && !out.Opened && out.Err != nil && strings.Contains(out.Err.Error(), "i/o timeout")
	}
	// connected returns a Transport whose one connection to a server answering n requests has
	// carried the first.
	connected := func(t *testing.T, n int) (*Transport, *transport.Request) {
		tr := newTransport(t, Options{Timeout: timeout})
		r := get(startRaw(t, answerFirst(n)).Host())
		if out := do(tr, r); out.Class != result.OK {
			t.Fatalf("first request: class %v (%v); want ok", out.Class, out.Err)
		}
		return tr, r
	}

	t.Run("a later request keeps its own deadline", func(t *testing.T) {
		t.Parallel()
		tr, r := connected(t, 1)
		time.Sleep(timeout / 2) // the second request begins before the first one's deadline
		out, took := doTimed(tr, r)
		if !timedOut(out) || took < timeout {
			t.Errorf("second request: class %v (%v), opened %v, after %v; want a timeout on the kept-alive connection, no sooner than %v", out.Class, out.Err, out.Opened, took, timeout)
		}
	})

	t.Run("the timer firing between requests", func(t *testing.T) {
		t.Parallel()
		tr, r := connected(t, 2)
		time.Sleep(timeout + timeout/2) // the timer, set for the first deadline, fires meanwhile
		if out := do(tr, r); out.Class != result.OK || out.Opened {
			t.Fatalf("second request: class %v (%v), opened %v; want ok on the kept-alive connection", out.Class, out.Err, out.Opened)
		}
		out, took := doTimed(tr, r)
		if !timedOut(out) || took < timeout {
			t.Errorf("third request: class %v (%v), opened %v, after %v; want a timeout on the kept-alive connection, no sooner than %v", out.Class, out.Err, out.Opened, took, timeout)
		}
	})
}

// A server that answers, then sends a 408 on the idle connection and closes it (as some servers do
// at their idle timeout): the next request must not take that 408 as its answer.
func TestIdleConnUnsolicitedAnswerIsDropped(t *testing.T) {
	t.Parallel()
	idle, sent := make(chan struct{}), make(chan struct{})
	var first atomic.Bool
	srv := startRaw(t, func(c net.Conn) {
		if _, err := readRequest(bufio.NewReader(c), nil); err != nil {
			return
		}
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
		if !first.CompareAndSwap(false, true) {
			return // a later connection: just the answer
		}
		select {
		case <-idle: // the client has read its answer: the connection sits idle in its pool
		case <-time.After(10 * time.Second):
			return
		}
		io.WriteString(c, "HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")
		c.Close()
		close(sent)
	})
	tr := newTransport(t, Options{})
	r := get(srv.Host())
	if out := do(tr, r); out.Status != 200 {
		t.Fatalf("first request: status %d (%v); want 200", out.Status, out.Err)
	}
	close(idle)
	<-sent // the 408 and the close are in the client's socket before the next request
	out := do(tr, r)
	if out.Status != 200 || !out.Opened {
		t.Errorf("second request: status %d, opened %v (%v); want 200 on a new connection, not the idle one's 408", out.Status, out.Opened, out.Err)
	}
}

func TestTLS(t *testing.T) {
	t.Parallel()
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "secret")
	}))
	t.Cleanup(srv.Close) // the subtests run after this function returns
	plain := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(plain.Close)
	pool := srv.Client().Transport.(*http.Transport).TLSClientConfig

	tests := []struct {
		name  string
		host  string
		opts  Options
		class result.Class
	}{
		{"insecure", srv.Listener.Addr().String(), Options{InsecureSkipVerify: true}, result.OK},
		{"verified", srv.Listener.Addr().String(), Options{TLSConfig: pool}, result.OK},
		{"unknown authority", srv.Listener.Addr().String(), Options{}, result.TLS},
		{"not TLS", plain.Listener.Addr().String(), Options{InsecureSkipVerify: true}, result.TLS},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.opts.KeepBody = true
			tr := newTransport(t, tt.opts)
			r := &transport.Request{Method: "GET", Scheme: "https", Host: tt.host, Path: []byte("/")}
			for i := range 2 {
				out := do(tr, r)
				if out.Class != tt.class {
					t.Fatalf("request %d: got class %v (%v); want %v", i, out.Class, out.Err, tt.class)
				}
				if tt.class != result.OK {
					if !out.Conn.Failed || out.Conn.TLS <= 0 {
						t.Errorf("got Conn %+v; want a failed connection with a TLS time", out.Conn)
					}
					return
				}
				if string(out.Body) != "secret" || out.Opened != (i == 0) || i == 0 && out.Conn.TLS <= 0 {
					t.Errorf("request %d: got body %q, Opened %v, Conn %+v; want \"secret\", a TLS set-up time on the first", i, out.Body, out.Opened, out.Conn)
				}
			}
		})
	}
}

func TestDNS(t *testing.T) {
	t.Parallel()
	srv := startRaw(t, answerEach("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"))
	_, port, _ := net.SplitHostPort(srv.Host())
	if _, err := net.DefaultResolver.LookupNetIP(context.Background(), "ip4", "localhost"); err != nil {
		t.Skipf("localhost does not resolve here: %v", err)
	}
	tr := newTransport(t, Options{DisableKeepAlive: true})
	tests := []struct {
		host string
		dns  bool
	}{
		{"localhost:" + port, true},
		{"127.0.0.1:" + port, false},
	}
	for _, tt := range tests {
		out := do(tr, get(tt.host))
		if out.Class != result.OK || (out.Conn.DNS > 0) != tt.dns {
			t.Errorf("%s: got class %v (%v), DNS %v; want ok, DNS timed: %v", tt.host, out.Class, out.Err, out.Conn.DNS, tt.dns)
		}
	}
}

func TestBadRequests(t *testing.T) {
	t.Parallel()
	tr := newTransport(t, Options{})
	tests := []struct {
		scheme, host, err string
	}{
		{"ftp", "127.0.0.1:1", `unsupported scheme "ftp"`},
		{"http", "", "request has no host"},
		{"http", "127.0.0.1:99999", "port from 1 to 65535"},
		{"http", "::1:80", "IPv6 address in brackets"},
		{"http", "[::1", "missing ']'"},
		{"https", "[::1]x", "want [address]:port"},
	}
	for _, tt := range tests {
		out := do(tr, &transport.Request{Method: "GET", Scheme: tt.scheme, Host: tt.host})
		if out.Class != result.Other || out.Err == nil || !strings.Contains(out.Err.Error(), tt.err) || out.Opened {
			t.Errorf("%s://%s: got class %v, err %v; want other with %q", tt.scheme, tt.host, out.Class, out.Err, tt.err)
		}
	}
}

func TestMalformedRequests(t *testing.T) {
	t.Parallel()
	tr := newTransport(t, Options{})
	tests := []struct {
		name string
		r    transport.Request
		err  string
	}{
		{"method", transport.Request{Method: "GE T"}, "method"},
		{"path space", transport.Request{Path: []byte("/a b")}, "path"},
		{"path line break", transport.Request{Path: []byte("/a\r\nX: 1")}, "path"},
		{"host", transport.Request{Host: "h\n"}, "host"},
		{"header name", transport.Request{Header: []transport.Header{{Name: "X Y", Value: "1"}}}, "header"},
		{"header value", transport.Request{Header: []transport.Header{{Name: "X", Value: "1\r\nY: 2"}}}, "header"},
	}
	for _, tt := range tests {
		r := tt.r
		r.Scheme = "http"
		if r.Host == "" {
			r.Host = "127.0.0.1:1"
		}
		out := do(tr, &r)
		if out.Class != result.Other || out.Err == nil || !strings.Contains(out.Err.Error(), tt.err) || out.Opened {
			t.Errorf("%s: got class %v, err %v, Opened %v; want other naming the %s, nothing sent", tt.name, out.Class, out.Err, out.Opened, tt.err)
		}
	}
}

func TestNewValidates(t *testing.T) {
	t.Parallel()
	_, err := New(Options{Timeout: -1, ConnectTimeout: -1, MaxConns: -1, UserAgent: "a\r\nb"})
	for _, want := range []string{"Timeout -1ns", "ConnectTimeout -1ns", "MaxConns -1", "UserAgent"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("got %v; want an error naming %q", err, want)
		}
	}
}

func TestConcurrent(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, r.URL.Path)
	}))
	defer srv.Close()
	tr := newTransport(t, Options{KeepBody: true})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			path := "/g" + string(rune('0'+g))
			r := &transport.Request{Method: "GET", Scheme: "http", Host: srv.Listener.Addr().String(), Path: []byte(path)}
			var out transport.Outcome
			for i := range 50 {
				out.Reset()
				tr.Do(context.Background(), r, &out)
				if out.Class != result.OK || string(out.Body) != path {
					t.Errorf("goroutine %d, request %d: got class %v (%v), body %q; want ok, %q", g, i, out.Class, out.Err, out.Body, path)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestErrorsNormalise(t *testing.T) {
	t.Parallel()
	// Error messages of the same kind must normalise to one message, whatever the ports.
	srv1 := startRaw(t, answerOnce("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nabc"))
	srv2 := startRaw(t, answerOnce("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nabcdef"))
	tr := newTransport(t, Options{})
	a, b := do(tr, get(srv1.Host())), do(tr, get(srv2.Host()))
	if a.Err == nil || b.Err == nil || result.Normalize(a.Err.Error()) != result.Normalize(b.Err.Error()) {
		t.Errorf("got %v and %v; want errors that normalise alike", a.Err, b.Err)
	}
	if !errors.Is(a.Err, io.ErrUnexpectedEOF) {
		t.Errorf("got %v; want an error wrapping io.ErrUnexpectedEOF", a.Err)
	}
}
