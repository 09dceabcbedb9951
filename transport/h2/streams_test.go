package h2_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/net/http2"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/transport"
	"github.com/rpcbench/rpcbench/transport/h2"
)

// pattern returns n bytes that are not all the same, so that a misplaced chunk shows.
func pattern(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('a' + i%26 + i/(16<<10)%7)
	}
	return b
}

// echo answers with the request's body.
var echo = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.Copy(w, r.Body) })

func TestBodiesBothWays(t *testing.T) {
	t.Parallel()
	sc := startH2C(t, echo)
	s2, cfg := startTLS(t, echo, true)
	// 3 MiB each way: more than Go's server lets a request send before it reads (1 MiB per
	// stream and connection), so the request waits for its WINDOW_UPDATEs.
	body := pattern(3 << 20)
	for _, tc := range []struct {
		name, url string
		o         h2.Options
	}{
		{"h2c", sc.URL, h2.Options{Cleartext: true, KeepBody: true}},
		{"h2", s2.URL, h2.Options{TLS: cfg, KeepBody: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tr := newTransport(t, tc.o)
			var out transport.Outcome
			tr.Do(context.Background(), request(t, "POST", tc.url+"/echo", string(body)), &out)
			if out.Class != result.OK || out.Status != 200 {
				t.Fatalf("class %v (%v), status %d; want ok 200", out.Class, out.Err, out.Status)
			}
			if !bytes.Equal(out.Body, body) {
				t.Errorf("answer of %d bytes is not the %d sent", len(out.Body), len(body))
			}
			if want := int64(len(body) + len("User-Agent: rpcbench\r\n")); out.BytesOut != want {
				t.Errorf("bytes out %d; want %d", out.BytesOut, want)
			}
			if out.BytesIn < int64(len(body)) {
				t.Errorf("bytes in %d; want at least the body's %d", out.BytesIn, len(body))
			}
		})
	}
}

// gate holds each request until n are in, then answers each with its path.
type gate struct {
	n       int
	mu      sync.Mutex
	in      int
	release chan struct{}
}

func (g *gate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	if g.in++; g.in == g.n {
		close(g.release)
	}
	g.mu.Unlock()
	select {
	case <-g.release:
	case <-time.After(10 * time.Second): // a bound, not a synchronisation
	}
	io.WriteString(w, r.URL.Path)
}

// 100 requests in flight at once on one connection: each gets its own answer.
func TestManyStreams(t *testing.T) {
	t.Parallel()
	const n = 100
	s := startH2C(t, &gate{n: n, release: make(chan struct{})})
	tr := newTransport(t, h2.Options{Cleartext: true, KeepBody: true, Streams: n})
	outs := make([]transport.Outcome, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { tr.Do(context.Background(), request(t, "GET", fmt.Sprintf("%s/r%d", s.URL, i), ""), &outs[i]) })
	}
	wg.Wait()
	opened := 0
	for i, out := range outs {
		if want := fmt.Sprintf("/r%d", i); out.Class != result.OK || string(out.Body) != want {
			t.Errorf("request %d: class %v (%v), body %q; want ok, %q", i, out.Class, out.Err, out.Body, want)
		}
		if out.Opened {
			opened++
		}
	}
	if opened != 1 {
		t.Errorf("opened %d connections; want 1", opened)
	}
}

// A server that allows one stream at a time: the requests beyond it wait on the connection
// (Go's server would refuse a stream over its limit), and no other connection opens.
func TestServerMaxConcurrentStreams(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	inflight, most := 0, 0
	s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		inflight++
		most = max(most, inflight)
		mu.Unlock()
		// Hold the stream a while: a client over the limit would open another meanwhile, which
		// the server would refuse. (The outcome does not depend on how long.)
		<-time.After(20 * time.Millisecond)
		mu.Lock()
		inflight--
		mu.Unlock()
		io.WriteString(w, "ok")
	}))
	var p http.Protocols
	p.SetUnencryptedHTTP2(true)
	s.Config.Protocols = &p
	s.Config.HTTP2 = &http.HTTP2Config{MaxConcurrentStreams: 1}
	s.Start()
	t.Cleanup(s.Close)
	tr := newTransport(t, h2.Options{Cleartext: true, Streams: 10})
	opened := 0
	for i, out := range doConcurrently(t, tr, s.URL+"/", 4) {
		if out.Class != result.OK {
			t.Errorf("request %d: class %v (%v); want ok", i, out.Class, out.Err)
		}
		if out.Opened {
			opened++
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if opened != 1 || most != 1 {
		t.Errorf("opened %d connections, the server saw up to %d requests at once; want 1 and 1", opened, most)
	}
}

// A server that refuses every stream (RST_STREAM REFUSED_STREAM): the request failed, class
// reset, and is counted as not sent, for the server says it did not process it.
func TestRefusedStream(t *testing.T) {
	t.Parallel()
	addr := startRaw(t, nil, nil, func(c *rawConn) {
		for {
			id, err := c.requestEnd()
			if err != nil || c.fr.WriteRSTStream(id, http2.ErrCodeRefusedStream) != nil || c.bw.Flush() != nil {
				return
			}
		}
	})
	tr := newTransport(t, h2.Options{Cleartext: true})
	var out transport.Outcome
	tr.Do(context.Background(), request(t, "POST", "http://"+addr+"/", "abc"), &out)
	if out.Class != result.Reset || !out.Sent.IsZero() || !strings.Contains(fmt.Sprint(out.Err), "REFUSED_STREAM") {
		t.Errorf("class %v (%v), sent %v; want reset, REFUSED_STREAM, not sent", out.Class, out.Err, out.Sent)
	}
}

// A server that sends GOAWAY after two requests came in, naming the first as the last it
// processes: the first is answered, the second fails as not sent, and the next request goes on a
// new connection.
func TestGoAway(t *testing.T) {
	t.Parallel()
	var conns sync.Mutex
	first := true
	addr := startRaw(t, nil, nil, func(c *rawConn) {
		conns.Lock()
		goAway := first
		first = false
		conns.Unlock()
		if !goAway {
			answerEach(helloBody)(c)
			return
		}
		a, err := c.requestEnd()
		if err != nil {
			return
		}
		b, err := c.requestEnd()
		if err != nil {
			return
		}
		last := min(a, b)
		if c.fr.WriteGoAway(last, http2.ErrCodeNo, nil) != nil || c.answer(last, helloBody) != nil {
			return
		}
		c.drain()
	})
	u := "http://" + addr + "/"
	tr := newTransport(t, h2.Options{Cleartext: true, Streams: 10})
	outs := doConcurrently(t, tr, u, 2)
	answered, unsent := 0, 0
	for _, out := range outs {
		switch {
		case out.Class == result.OK && out.Status == 200:
			answered++
		case out.Class == result.Reset && out.Sent.IsZero() && strings.Contains(fmt.Sprint(out.Err), "GOAWAY"):
			unsent++
		default:
			t.Errorf("class %v (%v), sent %v; want ok, or reset by GOAWAY and not sent", out.Class, out.Err, out.Sent)
		}
	}
	if answered != 1 || unsent != 1 || outs[0].Opened == outs[1].Opened {
		t.Errorf("%d answered, %d failed as not sent, opened %v and %v; want 1, 1 on one connection", answered, unsent, outs[0].Opened, outs[1].Opened)
	}
	var out transport.Outcome
	tr.Do(context.Background(), request(t, "GET", u, ""), &out)
	if out.Class != result.OK || !out.Opened {
		t.Errorf("after GOAWAY: class %v (%v), opened %v; want ok on a new connection", out.Class, out.Err, out.Opened)
	}
}

func TestLargeAnswers(t *testing.T) {
	t.Parallel()
	big := pattern(10 << 20) // more than a stream's window (4 MiB): WINDOW_UPDATEs go out as it is read
	mux := http.NewServeMux()
	mux.HandleFunc("/big", func(w http.ResponseWriter, _ *http.Request) { w.Write(big) })
	mux.HandleFunc("/small", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok") })
	s := startH2C(t, mux)
	for _, tc := range []struct {
		name     string
		o        h2.Options
		want     result.Class
		wantBody int
	}{
		// kept whole
		{"kept", h2.Options{Cleartext: true, KeepBody: true}, result.OK, len(big)},
		// counted, not kept
		{"counted", h2.Options{Cleartext: true}, result.OK, 0},
		// longer than kept: the stream is reset after 20 KiB or a little more
		{"too large", h2.Options{Cleartext: true, KeepBody: true, MaxBody: 20 << 10}, result.TooLarge, 20 << 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tr := newTransport(t, tc.o)
			var out transport.Outcome
			tr.Do(context.Background(), request(t, "GET", s.URL+"/big", ""), &out)
			if out.Class != tc.want || len(out.Body) != tc.wantBody || !bytes.Equal(out.Body, big[:len(out.Body)]) {
				t.Fatalf("class %v (%v), body of %d bytes; want %v, the first %d bytes", out.Class, out.Err, len(out.Body), tc.want, tc.wantBody)
			}
			if tc.want == result.OK && out.BytesIn < int64(len(big)) {
				t.Errorf("bytes in %d; want at least %d", out.BytesIn, len(big))
			}
			// the connection serves the next request
			out.Reset()
			tr.Do(context.Background(), request(t, "GET", s.URL+"/small", ""), &out)
			if out.Class != result.OK || out.Opened {
				t.Errorf("next request: class %v (%v), opened %v; want ok on the same connection", out.Class, out.Err, out.Opened)
			}
		})
	}
}

// A request canceled while its answer is awaited ends at once, class canceled; its stream is
// reset (the handler sees its context done) and the connection serves the next request. The
// connection watches the first context it sees: a request under it is canceled by that watch,
// one under another context by its own wait.
func TestCancelInFlight(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		watched bool // the canceled context is the one the connection watches
	}{
		{"watched context", true},
		{"another context", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			arrived, reset := make(chan struct{}, 1), make(chan struct{}, 1)
			mux := http.NewServeMux()
			mux.HandleFunc("/hold", func(_ http.ResponseWriter, r *http.Request) {
				arrived <- struct{}{}
				select {
				case <-r.Context().Done():
					reset <- struct{}{}
				case <-time.After(10 * time.Second): // a bound, not a synchronisation
				}
			})
			mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok") })
			s := startH2C(t, mux)
			tr := newTransport(t, h2.Options{Cleartext: true})
			ctx, cancel := context.WithCancel(context.Background())
			first := ctx
			if !tc.watched {
				live, stop := context.WithCancel(context.Background())
				defer stop()
				first = live
			}
			var out transport.Outcome
			tr.Do(first, request(t, "GET", s.URL+"/", ""), &out) // opens the connection, which watches first
			if out.Class != result.OK {
				t.Fatalf("first request: class %v (%v); want ok", out.Class, out.Err)
			}
			out.Reset()
			done := make(chan struct{})
			go func() {
				defer close(done)
				tr.Do(ctx, request(t, "GET", s.URL+"/hold", ""), &out)
			}()
			<-arrived
			cancel()
			<-done
			if out.Class != result.Canceled || out.Sent.IsZero() {
				t.Errorf("class %v (%v), sent %v; want canceled after sending", out.Class, out.Err, out.Sent)
			}
			select {
			case <-reset:
			case <-time.After(10 * time.Second):
				t.Errorf("the server did not see the stream reset")
			}
			var next transport.Outcome
			tr.Do(context.Background(), request(t, "GET", s.URL+"/", ""), &next)
			if next.Class != result.OK || next.Opened {
				t.Errorf("next request: class %v (%v), opened %v; want ok on the same connection", next.Class, next.Err, next.Opened)
			}
		})
	}
}

// A request that runs out of time while it waits for a connection, or for a stream on one, fails
// with class timeout, not sent.
func TestTimeoutWaiting(t *testing.T) {
	t.Parallel()
	held := make(chan struct{})
	t.Cleanup(func() { close(held) })
	// The server answers nothing, and once the first request is in it allows no stream at all:
	// the second request waits, for the connection and then for a stream, until its timeout.
	hold := func(c *rawConn) {
		go func() { <-held; c.nc.Close() }()
		if _, err := c.requestEnd(); err != nil {
			return
		}
		if c.fr.WriteSettings(http2.Setting{ID: http2.SettingMaxConcurrentStreams, Val: 0}) != nil || c.bw.Flush() != nil {
			return
		}
		c.drain()
	}
	for _, tc := range []struct {
		name     string
		settings []http2.Setting
		o        h2.Options
	}{
		// one connection, one stream on it, both taken
		{"for a connection", nil, h2.Options{Cleartext: true, MaxConns: 1, Streams: 1, Timeout: 100 * time.Millisecond}},
		// the server allows one stream at a time, taken
		{"for a stream", []http2.Setting{{ID: http2.SettingMaxConcurrentStreams, Val: 1}}, h2.Options{Cleartext: true, Timeout: 100 * time.Millisecond}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			u := "http://" + startRaw(t, nil, tc.settings, hold) + "/"
			tr := newTransport(t, tc.o)
			outs := doConcurrently(t, tr, u, 2)
			sent := 0
			for i, out := range outs {
				if out.Class != result.Timeout {
					t.Errorf("request %d: class %v (%v); want timeout", i, out.Class, out.Err)
				}
				if !out.Sent.IsZero() {
					sent++
				}
			}
			if sent != 1 {
				t.Errorf("%d requests sent; want 1, the other waiting", sent)
			}
		})
	}
}

// Requests on one connection that repeat and change their fields (the header block is then sent
// again as it was, or encoded anew), with a header value in memory that is rewritten after each
// request, as a template's is: the server sees each request as it was sent.
func TestRequestFieldsRepeatAndChange(t *testing.T) {
	t.Parallel()
	s := startH2C(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		fmt.Fprintf(w, "%s %s %s %s %s", r.Method, r.URL.RequestURI(), r.Header.Get("X-V"), r.UserAgent(), b)
	}))
	tr := newTransport(t, h2.Options{Cleartext: true, KeepBody: true})
	buf := make([]byte, 0, 128)
	for i := range 300 {
		j := i / 2 // each request's fields twice in a row
		v := "same"
		if j%2 == 1 {
			// More distinct values than a connection keeps copies of (64), and long enough
			// that its HPACK table evicts.
			v = fmt.Sprintf("%0100d", j)
		}
		method, body := "GET", ""
		if j%5 == 0 {
			method, body = "POST", "b"
		}
		path := fmt.Sprintf("/p%d", j%3)
		buf = append(buf[:0], v...)
		r := request(t, method, s.URL+path, body)
		r.Header = []transport.Header{{Name: "X-V", Value: unsafe.String(&buf[0], len(buf))}}
		var out transport.Outcome
		tr.Do(context.Background(), r, &out)
		copy(buf[:cap(buf)], bytes.Repeat([]byte("X"), cap(buf))) // what the next request's rendering would do
		want := fmt.Sprintf("%s %s %s rpcbench %s", method, path, v, body)
		if out.Class != result.OK || string(out.Body) != want || out.Opened != (i == 0) {
			t.Fatalf("request %d: class %v (%v), body %q, opened %v; want ok, %q on one connection", i, out.Class, out.Err, out.Body, out.Opened, want)
		}
	}
}
