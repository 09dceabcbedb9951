package h3_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/internal/faults"
	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/transport"
	"github.com/rpcbench/rpcbench/transport/h3"
)

// h3Server is a faults.H3 and a CA pool that trusts its certificate.
type h3Server struct {
	*faults.H3
	addr string
	pool *x509.CertPool
}

// startH3 serves h over HTTP/3 on a free UDP port of 127.0.0.1.
func startH3(t testing.TB, h http.Handler) *h3Server {
	t.Helper()
	s := &h3Server{H3: faults.NewH3(t, 0, h), pool: x509.NewCertPool()}
	s.addr = s.Addr
	s.pool.AppendCertsFromPEM(s.CertPEM)
	return s
}

// echo answers "PROTO METHOD PATH BODY", with the status of a ?status= query when there is one.
var echo = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	if s := r.URL.Query().Get("status"); s != "" {
		var code int
		fmt.Sscan(s, &code)
		w.WriteHeader(code)
	}
	fmt.Fprintf(w, "%s %s %s %s", r.Proto, r.Method, r.URL.RequestURI(), b)
})

func newTransport(t testing.TB, o h3.Options) *h3.Transport {
	t.Helper()
	tr, err := h3.New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Close() })
	return tr
}

func request(host, method, path, body string) *transport.Request {
	return &transport.Request{Method: method, Scheme: "https", Protocol: result.H3, Host: host, Path: []byte(path), Body: []byte(body)}
}

// do sends one request with a 10s bound and returns its outcome.
func do(tr transport.Transport, r *transport.Request) *transport.Outcome {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var out transport.Outcome
	tr.Do(ctx, r, &out)
	return &out
}

func TestCountsAndBodies(t *testing.T) {
	s := startH3(t, echo)
	tr := newTransport(t, h3.Options{TLS: &tls.Config{RootCAs: s.pool}, KeepBody: true, MaxConns: 1})
	const workers, each = 4, 25
	var (
		mu       sync.Mutex
		statuses = map[int]int{}
		classes  = map[result.Class]int{}
		opened   int
		conns    []result.ConnEvent
		packets  result.QUICPackets
		badBody  []string
	)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				path := fmt.Sprintf("/w%d/%d", w, i)
				if i%5 == 4 {
					path += "?status=404"
				}
				out := do(tr, request(s.addr, "POST", path, "x"))
				mu.Lock()
				statuses[out.Status]++
				classes[out.Class]++
				if out.Opened {
					opened++
					conns = append(conns, out.Conn)
				}
				packets.Sent += out.Packets.Sent
				packets.Received += out.Packets.Received
				packets.Lost += out.Packets.Lost
				if want := "HTTP/3.0 POST " + path + " x"; out.Class == result.OK && string(out.Body) != want {
					badBody = append(badBody, fmt.Sprintf("%q, want %q", out.Body, want))
				}
				if out.Sent.IsZero() || out.FirstByte.Before(out.Sent) || !out.Answered || out.BytesOut != 1 || out.BytesIn != int64(len(out.Body)) {
					badBody = append(badBody, fmt.Sprintf("outcome of %s: %+v", path, *out))
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	// 1 in 5 paths asks for a 404: 5 of each worker's 25
	if statuses[200] != 80 || statuses[404] != 20 || classes[result.OK] != 100 || s.Answered() != 100 {
		t.Errorf("statuses %v, classes %v, server answered %d; want 80×200 and 20×404, all answered (the engine judges statuses), 100 at the server", statuses, classes, s.Answered())
	}
	if len(badBody) > 0 {
		t.Errorf("%d bad outcomes, first: %s", len(badBody), badBody[0])
	}
	if opened != 1 {
		t.Fatalf("%d connections opened, want 1 (MaxConns 1, 4 requests at once under the 100 streams)", opened)
	}
	c := conns[0]
	if c.Proto != "h3" || c.Failed || c.TLS <= 0 || c.Connect != 0 || c.DNS != 0 || c.QUIC == nil || c.QUIC.Version != "v1" || c.QUIC.Resumed || c.QUIC.Used0RTT {
		t.Errorf("connection %+v, QUIC %+v: want h3, a handshake time, no connect, no DNS (an IP), QUIC v1, a first connection neither resumed nor 0-RTT", c, c.QUIC)
	}
	if packets.Sent == 0 || packets.Received == 0 || packets.Lost > packets.Sent {
		t.Errorf("packets %+v: want some sent and received, no more lost than sent", packets)
	}
}

func TestPacketsOneByOne(t *testing.T) {
	s := startH3(t, echo)
	tr := newTransport(t, h3.Options{TLS: &tls.Config{RootCAs: s.pool}})
	var p result.QUICPackets
	for i := range 20 {
		out := do(tr, request(s.addr, "GET", "/", ""))
		if out.Class != result.OK {
			t.Fatalf("request %d: %v %v", i, out.Class, out.Err)
		}
		p.Sent += out.Packets.Sent
		p.Received += out.Packets.Received
	}
	// one request at a time: each took at least one packet each way, and the handshake 2 more;
	// each answer reports what its connection added, a handful, not the connection's total so far
	// (which, summed, would pass 20×21/2)
	if p.Sent < 22 || p.Received < 22 || p.Sent > 120 || p.Received > 120 {
		t.Errorf("packets %+v: want 22 to 120 sent and received for 20 requests one after another", p)
	}
}

func TestNoReuseResumes(t *testing.T) {
	s := startH3(t, echo)
	tr := newTransport(t, h3.Options{TLS: &tls.Config{RootCAs: s.pool}, DisableKeepAlive: true})
	var resumed, zeroRTT, opened int
	for i := range 4 {
		out := do(tr, request(s.addr, "GET", fmt.Sprintf("/%d", i), ""))
		if out.Class != result.OK || out.Status != 200 {
			t.Fatalf("request %d: %v %v", i, out.Class, out.Err)
		}
		if out.Opened && out.Conn.QUIC != nil {
			opened++
			if out.Conn.QUIC.Resumed {
				resumed++
			}
			if out.Conn.QUIC.Used0RTT {
				zeroRTT++
			}
		}
	}
	// the first connection has no ticket; the three after resume the session it got; none tries
	// 0-RTT (quic-go's data race with it)
	if opened != 4 || resumed != 3 || zeroRTT != 0 {
		t.Errorf("%d connections opened, %d resumed, %d used 0-RTT; want 4, 3, 0", opened, resumed, zeroRTT)
	}
}

func TestTLSVerification(t *testing.T) {
	s := startH3(t, echo)
	for _, tc := range []struct {
		name string
		o    h3.Options
		want result.Class
	}{
		{"unknown CA", h3.Options{}, result.TLS},
		{"insecure", h3.Options{InsecureSkipVerify: true}, result.OK},
		{"CA given", h3.Options{TLS: &tls.Config{RootCAs: s.pool}}, result.OK},
		{"wrong server name", h3.Options{TLS: &tls.Config{RootCAs: s.pool, ServerName: "other.example"}}, result.TLS},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := do(newTransport(t, tc.o), request(s.addr, "GET", "/", ""))
			if out.Class != tc.want {
				t.Errorf("class %v (%v), want %v", out.Class, out.Err, tc.want)
			}
			if tc.want != result.OK && (!out.Sent.IsZero() || !out.Opened || !out.Conn.Failed) {
				t.Errorf("a refused handshake: want nothing sent and a failed connection, got %+v", *out)
			}
		})
	}
}

func TestServerDropsUDP(t *testing.T) {
	s := startH3(t, echo)
	s.Drop()
	tr := newTransport(t, h3.Options{InsecureSkipVerify: true, ConnectTimeout: 300 * time.Millisecond})
	out := do(tr, request(s.addr, "GET", "/", ""))
	if out.Class != result.QUICHandshake || !out.Sent.IsZero() || !out.Conn.Failed || out.Err == nil || !strings.Contains(out.Err.Error(), "QUIC handshake with "+s.addr) {
		t.Errorf("class %v, sent %v, conn %+v, err %v; want quic-handshake, unsent, a failed connection, an error naming the address", out.Class, out.Sent, out.Conn, out.Err)
	}
}

func TestServerStopsAnsweringMidRun(t *testing.T) {
	s := startH3(t, echo)
	tr := newTransport(t, h3.Options{InsecureSkipVerify: true, Timeout: 300 * time.Millisecond})
	classes := map[result.Class]int{}
	for i := range 10 {
		if i == 6 {
			s.Drop()
		}
		out := do(tr, request(s.addr, "GET", "/", ""))
		classes[out.Class]++
		if out.Class == result.Timeout && out.Sent.IsZero() {
			t.Errorf("request %d timed out on an open connection but is not counted as sent", i)
		}
	}
	if classes[result.OK] != 6 || classes[result.Timeout] != 4 || len(classes) != 2 {
		t.Errorf("classes %v; want 6 ok, then 4 timeout", classes)
	}
}

func TestTooLarge(t *testing.T) {
	s := startH3(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(make([]byte, 100)) }))
	tr := newTransport(t, h3.Options{TLS: &tls.Config{RootCAs: s.pool}, KeepBody: true, MaxBody: 64})
	out := do(tr, request(s.addr, "GET", "/", ""))
	if out.Class != result.TooLarge || !errors.Is(out.Err, h3.ErrBodyTooLarge) || len(out.Body) != 64 || out.BytesIn != 100 {
		t.Errorf("class %v, err %v, kept %d, read %d; want too-large, 64 kept of 100 read", out.Class, out.Err, len(out.Body), out.BytesIn)
	}
}

func TestBufferNote(t *testing.T) {
	for _, tc := range []struct {
		rcv, snd int
		want     string
	}{
		{416 << 10, 416 << 10, "receive buffers of 416 KiB and send buffers of 416 KiB, not the 7168 KiB quic-go asks for: at high rates packets may be dropped and counted as lost; raise the limit with sysctl -w net.core.rmem_max=7340032 net.core.wmem_max=7340032"},
		{416 << 10, 8 << 20, "receive buffers of 416 KiB, not the 7168 KiB quic-go asks for: at high rates packets may be dropped and counted as lost; raise the limit with sysctl -w net.core.rmem_max=7340032"},
		{8 << 20, 208 << 10, "send buffers of 208 KiB, not the 7168 KiB quic-go asks for: at high rates packets may be dropped and counted as lost; raise the limit with sysctl -w net.core.wmem_max=7340032"},
	} {
		if got := h3.BufferNote(tc.rcv, tc.snd); got != "QUIC's UDP sockets get "+tc.want {
			t.Errorf("BufferNote(%d, %d) = %q, want %q", tc.rcv, tc.snd, got, "QUIC's UDP sockets get "+tc.want)
		}
	}
}

// Headers go in order of the request, a Host header becomes the authority sent, and a request
// without a User-Agent gets rpcbench's.
func TestHeaders(t *testing.T) {
	s := startH3(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%s|%s|%q|%s", r.Host, r.UserAgent(), r.Header.Values("X-Test"), r.Header.Get("Content-Type"))
	}))
	tr := newTransport(t, h3.Options{TLS: &tls.Config{RootCAs: s.pool}, KeepBody: true})
	r := request(s.addr, "GET", "/", "")
	r.Header = []transport.Header{{Name: "X-Test", Value: "a"}, {Name: "Host", Value: "items.test"}, {Name: "X-Test", Value: "b"}, {Name: "Content-Type", Value: "application/json"}}
	out := do(tr, r)
	if want := `items.test|rpcbench|["a" "b"]|application/json`; out.Class != result.OK || string(out.Body) != want {
		t.Errorf("class %v (%v), answer %q; want %q", out.Class, out.Err, out.Body, want)
	}
}

// Requests one after another on one transport each send their own headers, none of an earlier
// one's; an empty User-Agent gets rpcbench's, as a missing one does.
func TestHeadersOfOneRequestOnly(t *testing.T) {
	s := startH3(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%s|%q|%q|%q", r.UserAgent(), r.Header.Values("X-A"), r.Header.Values("X-B"), r.Header.Get("Accept"))
	}))
	tr := newTransport(t, h3.Options{TLS: &tls.Config{RootCAs: s.pool}, KeepBody: true, MaxConns: 1})
	for i, c := range []struct {
		header []transport.Header
		want   string
	}{
		{[]transport.Header{{Name: "X-A", Value: "1"}, {Name: "x-a", Value: "2"}, {Name: "User-Agent", Value: "mine"}}, `mine|["1" "2"]|[]|""`},
		{[]transport.Header{{Name: "X-B", Value: "3"}}, `rpcbench|[]|["3"]|""`},
		{[]transport.Header{{Name: "user-agent", Value: ""}, {Name: "Accept", Value: "*/*"}}, `rpcbench|[]|[]|"*/*"`},
		{nil, `rpcbench|[]|[]|""`},
	} {
		r := request(s.addr, "GET", "/", "")
		r.Header = c.header
		if out := do(tr, r); out.Class != result.OK || string(out.Body) != c.want {
			t.Errorf("request %d: class %v (%v), answer %q; want %q", i, out.Class, out.Err, out.Body, c.want)
		}
	}
}

// A request target goes as given: its path and query, escapes kept; one that does not parse, or a
// method that is not a token, fails before sending with an error that names it.
func TestTargets(t *testing.T) {
	s := startH3(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%s %s", r.Method, r.RequestURI)
	}))
	tr := newTransport(t, h3.Options{TLS: &tls.Config{RootCAs: s.pool}, KeepBody: true, MaxConns: 1})
	for _, c := range []struct{ method, path, want string }{
		{"GET", "/v0/entity?id=42", "GET /v0/entity?id=42"},
		{"GET", "/a?", "GET /a?"},
		{"GET", "/a%20b/c?q=%20&r=x%2Fy", "GET /a%20b/c?q=%20&r=x%2Fy"},
		{"DELETE", "/x;v=1/@:!$&'()*+,=~._-", "DELETE /x;v=1/@:!$&'()*+,=~._-"},
		{"", "/", "GET /"},
		{"GET", "/a\"b", "GET /a%22b"},
		{"GET", "//double", "GET //double"},
		{"GET", "/bad%zz", "h3: request target \"/bad%zz\""},
		{"GET", "/ctl?\x01", "h3: request target \"/ctl?\\x01\""},
		{"GE T", "/", `h3: net/http: invalid method "GE T"`},
	} {
		out := do(tr, request(s.addr, c.method, c.path, ""))
		got := string(out.Body)
		if out.Err != nil {
			got = out.Err.Error()
			if out.Class != result.Other || !out.Sent.IsZero() {
				t.Errorf("%s %q: class %v, sent %v; want other, before sending", c.method, c.path, out.Class, out.Sent)
			}
		}
		if !strings.HasPrefix(got, c.want) {
			t.Errorf("%s %q: got %q; want %q", c.method, c.path, got, c.want)
		}
	}
}
