package h2_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/transport"
	"github.com/rpcbench/rpcbench/transport/h2"
)

// protoServer answers every request with "PROTO METHOD PATH BODY" and counts requests by protocol.
type protoServer struct {
	mu     sync.Mutex
	protos map[string]int
}

func (s *protoServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	if s.protos == nil {
		s.protos = map[string]int{}
	}
	s.protos[r.Proto]++
	s.mu.Unlock()
	w.Header().Set("X-Agent", r.UserAgent())
	fmt.Fprintf(w, "%s %s %s %s", r.Proto, r.Method, r.URL.RequestURI(), b)
}

func (s *protoServer) count(proto string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.protos[proto]
}

// goAnswerBytes is what Go's HTTP server answers a handler that writes n bytes of plain text
// (and sets no header), counted as HTTP/1.1 would write it: the body, and each field as
// "Name: value\r\n": Content-Type as sniffed, Date (29 characters, RFC 1123 in GMT), and
// Content-Length when withLength (the handler wrote the body in one go, less than the server
// buffers, and returned).
func goAnswerBytes(n int, withLength bool) int64 {
	b := n + len("Content-Type: text/plain; charset=utf-8\r\n") + len("Date: Mon, 02 Jan 2006 15:04:05 GMT\r\n")
	if withLength {
		b += len("Content-Length: \r\n") + len(strconv.Itoa(n))
	}
	return int64(b)
}

// startTLS starts h on 127.0.0.1 over TLS, offering h2 by ALPN when h2 is true; it returns the
// server and a TLS configuration that trusts its certificate.
func startTLS(t *testing.T, h http.Handler, h2 bool) (*httptest.Server, *tls.Config) {
	t.Helper()
	s := httptest.NewUnstartedServer(h)
	s.EnableHTTP2 = h2
	s.StartTLS()
	t.Cleanup(s.Close)
	pool := x509.NewCertPool()
	pool.AddCert(s.Certificate())
	return s, &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
}

// startH2C starts h on 127.0.0.1 speaking h2c with prior knowledge only.
func startH2C(t *testing.T, h http.Handler) *httptest.Server {
	t.Helper()
	s := httptest.NewUnstartedServer(h)
	var p http.Protocols
	p.SetUnencryptedHTTP2(true)
	s.Config.Protocols = &p
	s.Start()
	t.Cleanup(s.Close)
	return s
}

func newTransport(t testing.TB, o h2.Options) *h2.Transport {
	t.Helper()
	tr, err := h2.New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Close() })
	return tr
}

// request makes the request of method to the URL u with body.
func request(t *testing.T, method, u, body string) *transport.Request {
	t.Helper()
	pu, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	r := &transport.Request{Method: method, Scheme: pu.Scheme, Host: pu.Host, Path: []byte(pu.RequestURI())}
	if body != "" {
		r.Body = []byte(body)
	}
	return r
}

func TestProtocols(t *testing.T) {
	t.Parallel()
	h2srv := &protoServer{}
	h1srv := &protoServer{}
	h2cSrv := &protoServer{}
	s2, cfg2 := startTLS(t, h2srv, true)
	s1, cfg1 := startTLS(t, h1srv, false)
	sc := startH2C(t, h2cSrv)
	for _, tc := range []struct {
		name      string
		url       string
		o         h2.Options
		srv       *protoServer
		wantProto string // the connection's, as reported
		wantSeen  string // as the server saw it
	}{
		// the server offers h2 by ALPN: HTTP/2 it is
		{"h2 by ALPN", s2.URL, h2.Options{TLS: cfg2, KeepBody: true}, h2srv, "h2", "HTTP/2.0"},
		// the server offers only http/1.1: the same connection speaks HTTP/1.1
		{"fallback to HTTP/1.1", s1.URL, h2.Options{TLS: cfg1, KeepBody: true}, h1srv, "http/1.1", "HTTP/1.1"},
		// cleartext with prior knowledge
		{"h2c", sc.URL, h2.Options{Cleartext: true, KeepBody: true}, h2cSrv, "h2c", "HTTP/2.0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTransport(t, tc.o)
			const n = 5
			opened := 0
			for i := range n {
				var out transport.Outcome
				tr.Do(context.Background(), request(t, "POST", tc.url+fmt.Sprintf("/items?i=%d", i), "abc"), &out)
				if out.Class != result.OK || out.Status != 200 {
					t.Fatalf("request %d: class %v, status %d, err %v; want ok 200", i, out.Class, out.Status, out.Err)
				}
				want := fmt.Sprintf("%s POST /items?i=%d abc", tc.wantSeen, i)
				if string(out.Body) != want {
					t.Errorf("request %d: body %q; want %q", i, out.Body, want)
				}
				if out.Sent.IsZero() || out.FirstByte.Before(out.Sent) {
					t.Errorf("request %d: sent %v, first byte %v; want sent, then the first byte", i, out.Sent, out.FirstByte)
				}
				// "abc" and "User-Agent: rpcbench\r\n"
				if want := int64(3 + len("User-Agent: rpcbench\r\n")); out.BytesOut != want {
					t.Errorf("request %d: bytes out %d; want %d", i, out.BytesOut, want)
				}
				// the body and Go's server's fields: X-Agent, Content-Type (sniffed), Content-Length, Date
				if want := goAnswerBytes(len(want), true) + int64(len("X-Agent: rpcbench\r\n")); out.BytesIn != want {
					t.Errorf("request %d: bytes in %d; want %d", i, out.BytesIn, want)
				}
				if out.Opened {
					opened++
					if out.Conn.Proto != tc.wantProto || out.Conn.Failed || out.Conn.Connect <= 0 {
						t.Errorf("request %d: connection %+v; want one opened, speaking %s", i, out.Conn, tc.wantProto)
					}
					if tls := out.Conn.TLS > 0; tls == tc.o.Cleartext {
						t.Errorf("request %d: TLS handshake %v; want one only over TLS", i, out.Conn.TLS)
					}
				}
			}
			if opened != 1 {
				t.Errorf("opened %d connections for %d requests one after the other; want 1", opened, n)
			}
			if got := tc.srv.count(tc.wantSeen); got != n {
				t.Errorf("the server saw %d %s requests; want %d", got, tc.wantSeen, n)
			}
		})
	}
}

// blocker holds each request until n requests are in, then answers them all.
type blocker struct {
	n       int
	mu      sync.Mutex
	in      int
	release chan struct{}
}

func newBlocker(n int) *blocker { return &blocker{n: n, release: make(chan struct{})} }

func (b *blocker) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	b.in++
	if b.in == b.n {
		close(b.release)
	}
	b.mu.Unlock()
	select {
	case <-b.release:
	case <-r.Context().Done():
	case <-time.After(10 * time.Second): // a bound, not a synchronisation
	}
	io.WriteString(w, "ok")
}

// doConcurrently sends n requests at once and returns their outcomes.
func doConcurrently(t *testing.T, tr transport.Transport, u string, n int) []transport.Outcome {
	t.Helper()
	outs := make([]transport.Outcome, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { tr.Do(context.Background(), request(t, "GET", u, ""), &outs[i]) })
	}
	wg.Wait()
	return outs
}

func TestMultiplexing(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		o        h2.Options
		requests int
		held     int // requests the server holds until they are all in
		want     int // connections opened
	}{
		// 6 requests at once, 2 per connection: 3 connections
		{"streams cap", h2.Options{Cleartext: true, Streams: 2}, 6, 6, 3},
		// 8 requests at once with the default of 100 per connection: one connection carries them all
		{"one connection", h2.Options{Cleartext: true}, 8, 8, 1},
		// 1 stream each, at most 2 connections: the third request waits for a slot
		{"connections cap", h2.Options{Cleartext: true, Streams: 1, MaxConns: 2}, 3, 2, 2},
		// a connection per request
		{"no reuse", h2.Options{Cleartext: true, DisableKeepAlive: true}, 4, 4, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := startH2C(t, newBlocker(tc.held))
			tr := newTransport(t, tc.o)
			opened := 0
			for i, out := range doConcurrently(t, tr, s.URL+"/", tc.requests) {
				if out.Class != result.OK || out.Status != 200 {
					t.Errorf("request %d: class %v, err %v; want ok", i, out.Class, out.Err)
				}
				if out.Opened {
					opened++
				}
			}
			if opened != tc.want {
				t.Errorf("opened %d connections; want %d", opened, tc.want)
			}
		})
	}
}

func TestFailures(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("/reset", func(http.ResponseWriter, *http.Request) { panic(http.ErrAbortHandler) })
	mux.HandleFunc("/stuck", func(_ http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, strings.Repeat("x", 100)) })
	sc := startH2C(t, mux)
	s2, _ := startTLS(t, mux, true)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + ln.Addr().String()
	ln.Close()
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name   string
		o      h2.Options
		ctx    context.Context
		url    string
		want   result.Class
		unsent bool // failed before sending
	}{
		// the server resets the stream (RST_STREAM)
		{"reset stream", h2.Options{Cleartext: true}, nil, sc.URL + "/reset", result.Reset, false},
		// the server never answers
		{"deadline", h2.Options{Cleartext: true, Timeout: 100 * time.Millisecond}, nil, sc.URL + "/stuck", result.Timeout, false},
		// nothing listens
		{"refused", h2.Options{Cleartext: true}, nil, refused, result.Refused, true},
		// the server's certificate is not trusted
		{"unknown authority", h2.Options{}, nil, s2.URL + "/", result.TLS, true},
		// a longer body than kept
		{"too large", h2.Options{Cleartext: true, KeepBody: true, MaxBody: 10}, nil, sc.URL + "/big", result.TooLarge, false},
		// the run is over
		{"canceled", h2.Options{Cleartext: true}, canceled, sc.URL + "/", result.Canceled, true},
		// an h2c transport asked for https
		{"wrong scheme", h2.Options{Cleartext: true}, nil, s2.URL + "/", result.Other, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tr := newTransport(t, tc.o)
			ctx := tc.ctx
			if ctx == nil {
				ctx = context.Background()
			}
			var out transport.Outcome
			tr.Do(ctx, request(t, "GET", tc.url, ""), &out)
			if out.Class != tc.want {
				t.Errorf("class %v (%v); want %v", out.Class, out.Err, tc.want)
			}
			if out.Sent.IsZero() != tc.unsent {
				t.Errorf("sent %v; want sent: %v", out.Sent, !tc.unsent)
			}
			if tc.want == result.TLS && !(out.Opened && out.Conn.Failed) {
				t.Errorf("connection %+v (opened %v); want a failed connection reported", out.Conn, out.Opened)
			}
		})
	}
}

func TestClose(t *testing.T) {
	t.Parallel()
	arrived := make(chan struct{}, 1)
	s := startH2C(t, http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second): // a bound, not a synchronisation
		}
	}))
	tr := newTransport(t, h2.Options{Cleartext: true})
	var out transport.Outcome
	done := make(chan struct{})
	go func() {
		defer close(done)
		tr.Do(context.Background(), request(t, "GET", s.URL+"/", ""), &out)
	}()
	<-arrived
	tr.Close()
	<-done
	if out.Class != result.Canceled || out.Err != h2.ErrClosed {
		t.Errorf("in flight: class %v, err %v; want canceled, %v", out.Class, out.Err, h2.ErrClosed)
	}
	var later transport.Outcome
	tr.Do(context.Background(), request(t, "GET", s.URL+"/", ""), &later)
	if later.Class != result.Canceled || later.Err != h2.ErrClosed {
		t.Errorf("after Close: class %v, err %v; want canceled, %v", later.Class, later.Err, h2.ErrClosed)
	}
}

// BenchmarkDo sends requests from parallel goroutines over h2c to Go's HTTP/2 server: the cost per
// request of the client connection and the pool, with the server's in the same process (the
// allocations are the server's; BenchmarkDoRaw measures the client alone).
func BenchmarkDo(b *testing.B) {
	s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok") }))
	var p http.Protocols
	p.SetUnencryptedHTTP2(true)
	s.Config.Protocols = &p
	s.Start()
	defer s.Close()
	tr, err := h2.New(h2.Options{Cleartext: true})
	if err != nil {
		b.Fatal(err)
	}
	defer tr.Close()
	u, _ := url.Parse(s.URL)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		r := &transport.Request{Method: "GET", Scheme: "http", Host: u.Host, Path: []byte("/")}
		var out transport.Outcome
		for pb.Next() {
			out.Reset()
			tr.Do(context.Background(), r, &out)
			if out.Class != result.OK {
				b.Errorf("class %v: %v", out.Class, out.Err)
				return
			}
		}
	})
}
