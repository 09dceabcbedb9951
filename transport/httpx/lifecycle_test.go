package httpx

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/transport"
)

// stallServer answers requests whose path is "/fast" at once and holds the others until the test ends,
// telling started about each held request.
func stallServer(t *testing.T) (srv *rawServer, started chan struct{}) {
	started = make(chan struct{}, 16)
	srv = startRaw(t, func(c net.Conn) {
		br := bufio.NewReader(c)
		for {
			head, err := readRequest(br, nil)
			if err != nil {
				return
			}
			if string(head[:10]) == "GET /fast " {
				io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
				continue
			}
			started <- struct{}{}
			io.Copy(io.Discard, br) // until the client goes away
			return
		}
	})
	return srv, started
}

// waitDone fails the test when done is not closed within a generous bound.
func waitDone(t *testing.T, done <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s did not return within 10s", what)
	}
}

func TestCancelMidRequest(t *testing.T) {
	t.Parallel()
	srv, started := stallServer(t)
	tr := newTransport(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	fast := &transport.Request{Method: "GET", Scheme: "http", Host: srv.Host(), Path: []byte("/fast")}

	// The connection watches ctx from its first request on; the second request is cut short.
	var out transport.Outcome
	tr.Do(ctx, fast, &out)
	if out.Class != result.OK {
		t.Fatalf("first request: got class %v (%v); want ok", out.Class, out.Err)
	}
	done := make(chan struct{})
	out.Reset()
	go func() {
		defer close(done)
		tr.Do(ctx, get(srv.Host()), &out)
	}()
	<-started
	cancel()
	waitDone(t, done, "Do after cancel")
	if out.Class != result.Canceled || !errors.Is(out.Err, context.Canceled) || out.Answered {
		t.Errorf("got class %v, err %v, answered %v; want canceled", out.Class, out.Err, out.Answered)
	}

	// A done context fails at once; a new context works on a new connection.
	out.Reset()
	tr.Do(ctx, fast, &out)
	if out.Class != result.Canceled {
		t.Errorf("with a done context: got class %v; want canceled", out.Class)
	}
	out.Reset()
	tr.Do(context.Background(), fast, &out)
	if out.Class != result.OK {
		t.Errorf("with a new context: got class %v (%v); want ok", out.Class, out.Err)
	}
}

// TestCancelIdleWatch: a context that ends while a connection is idle must not spoil the connection for
// requests under another context.
func TestCancelIdleWatch(t *testing.T) {
	t.Parallel()
	srv := startRaw(t, answerEach("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"))
	tr := newTransport(t, Options{})
	r := get(srv.Host())
	ctx, cancel := context.WithCancel(context.Background())
	var out transport.Outcome
	tr.Do(ctx, r, &out)
	cancel()
	for i := range 3 {
		out.Reset()
		tr.Do(context.Background(), r, &out)
		if out.Class != result.OK || i == 0 && out.Opened {
			t.Errorf("request %d: got class %v (%v), Opened %v; want ok on the idle connection", i, out.Class, out.Err, out.Opened)
		}
	}
}

func TestCloseInFlight(t *testing.T) {
	t.Parallel()
	srv, started := stallServer(t)
	tr := newTransport(t, Options{})
	var out transport.Outcome
	done := make(chan struct{})
	go func() {
		defer close(done)
		tr.Do(context.Background(), get(srv.Host()), &out)
	}()
	<-started
	tr.Close()
	waitDone(t, done, "Do after Close")
	if out.Class != result.Canceled || !errors.Is(out.Err, ErrClosed) {
		t.Errorf("in flight: got class %v, err %v; want canceled, ErrClosed", out.Class, out.Err)
	}
	out.Reset()
	tr.Do(context.Background(), get(srv.Host()), &out)
	if out.Class != result.Canceled || !errors.Is(out.Err, ErrClosed) || out.Opened {
		t.Errorf("after Close: got class %v, err %v; want canceled, ErrClosed, no connection", out.Class, out.Err)
	}
	if err := tr.Close(); err != nil {
		t.Errorf("second Close: got %v; want nil", err)
	}
}

// TestMaxConns runs 8 goroutines through a Transport capped at 2 connections.
func TestMaxConns(t *testing.T) {
	t.Parallel()
	for _, keepAlive := range []bool{true, false} {
		var inFlight, peak atomic.Int64
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			n := inFlight.Add(1)
			for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
			}
			inFlight.Add(-1)
		}))
		conns := countConns(srv)
		srv.Start()
		tr := newTransport(t, Options{MaxConns: 2, DisableKeepAlive: !keepAlive})
		var wg sync.WaitGroup
		for g := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var out transport.Outcome
				for i := range 25 {
					out.Reset()
					tr.Do(context.Background(), get(srv.Listener.Addr().String()), &out)
					if out.Class != result.OK {
						t.Errorf("keep-alive %v, goroutine %d, request %d: got class %v (%v); want ok", keepAlive, g, i, out.Class, out.Err)
						return
					}
				}
			}()
		}
		wg.Wait()
		srv.Close()
		if got := peak.Load(); got > 2 {
			t.Errorf("keep-alive %v: got %d requests in flight at once; want at most 2", keepAlive, got)
		}
		if got := conns.Load(); keepAlive && got > 2 || !keepAlive && got != 200 {
			t.Errorf("keep-alive %v: got %d connections; want %s", keepAlive, got, map[bool]string{true: "at most 2", false: "200"}[keepAlive])
		}
	}
}

// TestMaxConnsWait: when the one slot is taken, a request waits for it and ends with its timeout, its
// context, or the slot.
func TestMaxConnsWait(t *testing.T) {
	t.Parallel()
	srv := startRaw(t, answerEach("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"))
	tr := newTransport(t, Options{MaxConns: 1, Timeout: 200 * time.Millisecond})
	waiting := make(chan struct{}, 1)
	tr.waitHook = func() { waiting <- struct{}{} }
	tr.mu.Lock()
	tr.open = 1 // the slot is taken
	tr.mu.Unlock()

	out := do(tr, get(srv.Host()))
	<-waiting
	if out.Class != result.Timeout || out.Opened {
		t.Errorf("waiting: got class %v (%v), Opened %v; want timeout without a connection", out.Class, out.Err, out.Opened)
	}

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		tr.Do(ctx, get(srv.Host()), out)
	}()
	<-waiting
	cancel()
	waitDone(t, done, "Do after cancel")
	if out.Class != result.Canceled {
		t.Errorf("canceled while waiting: got class %v (%v); want canceled", out.Class, out.Err)
	}

	tr.timeout = 10 * time.Second
	done = make(chan struct{})
	out.Reset()
	go func() {
		defer close(done)
		tr.Do(context.Background(), get(srv.Host()), out)
	}()
	<-waiting
	tr.mu.Lock()
	tr.freeSlotLocked() // the slot moves to the waiting request
	tr.mu.Unlock()
	waitDone(t, done, "Do after the slot was freed")
	if out.Class != result.OK || !out.Opened {
		t.Errorf("given the slot: got class %v (%v), Opened %v; want ok on a new connection", out.Class, out.Err, out.Opened)
	}
}

// TestMaxConnsEvict: with the cap reached by an idle connection to one host, a request to another
// host closes it and takes its slot.
func TestMaxConnsEvict(t *testing.T) {
	t.Parallel()
	a := startRaw(t, answerEach("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"))
	b := startRaw(t, answerEach("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"))
	tr := newTransport(t, Options{MaxConns: 1, Timeout: 5 * time.Second})
	for i, host := range []string{a.Host(), b.Host(), a.Host(), a.Host()} {
		out := do(tr, get(host))
		if out.Class != result.OK || out.Opened != (i < 3) {
			t.Errorf("request %d: got class %v (%v), Opened %v; want ok, Opened %v", i, out.Class, out.Err, out.Opened, i < 3)
		}
	}
	if got := a.accepted.Load() + b.accepted.Load(); got != 3 {
		t.Errorf("got %d connections; want 3", got)
	}
}
