package ws

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/rpcbench/rpcbench/check"
	"github.com/rpcbench/rpcbench/internal/testnet"
	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/transport"
)

// rpcServer is a small JSON-RPC 2.0 server over WebSocket on 127.0.0.1: "echo" answers its
// params, "fail" answers error -32601, "wrongid" answers with another id, "close" closes the
// connection. With hold > 0 it keeps answers until hold messages are waiting, then sends them in
// reverse order, so that many calls are in flight on one connection and answers cross.
type rpcServer struct {
	url   string
	hold  int
	mu    sync.Mutex
	conns int
	maxIn int // most messages waiting at once on a connection
}

type rpcCall struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

func newRPCServer(t testing.TB, hold int) *rpcServer {
	t.Helper()
	s := &rpcServer{hold: hold}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(s.serve)}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	s.url = "ws://" + ln.Addr().String() + "/"
	return s
}

func (s *rpcServer) serve(w http.ResponseWriter, r *http.Request) {
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	defer c.CloseNow()
	s.mu.Lock()
	s.conns++
	s.mu.Unlock()
	ctx := r.Context()
	var held [][]byte
	for {
		_, msg, err := c.Read(ctx)
		if err != nil {
			return
		}
		if strings.Contains(string(msg), `"close"`) {
			c.Close(websocket.StatusGoingAway, "bye")
			return
		}
		held = append(held, answerTo(msg))
		s.mu.Lock()
		s.maxIn = max(s.maxIn, len(held))
		s.mu.Unlock()
		if len(held) < s.hold {
			continue
		}
		for i := len(held) - 1; i >= 0; i-- {
			if c.Write(ctx, websocket.MessageText, held[i]) != nil {
				return
			}
		}
		held = held[:0]
	}
}

func answerTo(msg []byte) []byte {
	one := func(q rpcCall) map[string]any {
		a := map[string]any{"jsonrpc": "2.0", "id": q.ID}
		switch q.Method {
		case "fail":
			a["error"] = map[string]any{"code": -32601, "message": "Method not found"}
		case "wrongid":
			a["id"] = 999999
			a["result"] = true
		default:
			a["result"] = q.Params
		}
		return a
	}
	var b []byte
	if strings.HasPrefix(strings.TrimSpace(string(msg)), "[") {
		var qs []rpcCall
		_ = json.Unmarshal(msg, &qs)
		as := make([]map[string]any, len(qs))
		for i, q := range qs {
			as[len(qs)-1-i] = one(q) // batch answers in reverse order
		}
		b, _ = json.Marshal(as)
	} else {
		var q rpcCall
		_ = json.Unmarshal(msg, &q)
		b, _ = json.Marshal(one(q))
	}
	return b
}

func request(url string, body string) *transport.Request {
	scheme, rest, _ := strings.Cut(url, "://")
	host, path, _ := strings.Cut(rest, "/")
	return &transport.Request{Method: "POST", Scheme: scheme, Protocol: transport.WS, Host: host, Path: []byte("/" + path), Body: []byte(body)}
}

// TestManyInFlightOnOneConnection sends 8 calls at once over one connection; the server answers
// only when all 8 are waiting, in reverse order: each call must get its own answer.
func TestManyInFlightOnOneConnection(t *testing.T) {
	t.Parallel()
	const n = 8
	srv := newRPCServer(t, n)
	tr := New(Options{Conns: 1, KeepBody: true, Timeout: 20 * time.Second})
	defer tr.Close()
	var wg sync.WaitGroup
	for i := 1; i <= n; i++ {
		wg.Go(func() {
			r := request(srv.url, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"echo","params":[%d]}`, i, i))
			var out transport.Outcome
			tr.Do(context.Background(), r, &out)
			if out.Class != result.OK || !out.Answered || out.Status != StatusSwitched {
				t.Errorf("call %d: class %v, answered %v, status %d, err %v; want an answer with 101", i, out.Class, out.Answered, out.Status, out.Err)
				return
			}
			if cl, err := check.VerifyJSONRPC(r.Body, out.Body); cl != result.OK {
				t.Errorf("call %d got %s: %v %v", i, out.Body, cl, err)
			}
			if want := fmt.Sprintf(`"result":[%d]`, i); !strings.Contains(string(out.Body), want) {
				t.Errorf("call %d got %s; want %s", i, out.Body, want)
			}
			if out.BytesIn <= int64(len(out.Body)) || out.BytesOut <= int64(len(r.Body)) || out.FirstByte.Before(out.Sent) {
				t.Errorf("call %d: bytes in %d out %d, sent %v first byte %v; want frame headers counted and the answer after the send",
					i, out.BytesIn, out.BytesOut, out.Sent, out.FirstByte)
			}
		})
	}
	wg.Wait()
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if srv.conns != 1 || srv.maxIn != n {
		t.Errorf("server saw %d connections and at most %d calls waiting; want 1 and %d", srv.conns, srv.maxIn, n)
	}
}

func TestBatchAndErrors(t *testing.T) {
	t.Parallel()
	srv := newRPCServer(t, 1)
	tr := New(Options{Conns: 2, KeepBody: true})
	defer tr.Close()
	for _, tc := range []struct {
		name, body string
		class      result.Class
		msg        string
	}{
		{"a batch answered in reverse", `[{"jsonrpc":"2.0","id":1,"method":"echo","params":[1]},{"jsonrpc":"2.0","id":2,"method":"echo","params":[2]}]`, result.OK, ""},
		{"an error answer", `{"jsonrpc":"2.0","id":3,"method":"fail"}`, result.Status, "jsonrpc -32601 Method not found"},
		{"an error in a batch", `[{"jsonrpc":"2.0","id":4,"method":"echo"},{"jsonrpc":"2.0","id":5,"method":"fail"}]`, result.Status, "jsonrpc -32601 Method not found"},
	} {
		r := request(srv.url, tc.body)
		var out transport.Outcome
		tr.Do(context.Background(), r, &out)
		if out.Class != result.OK {
			t.Errorf("%s: transport class %v (%v); want an answer", tc.name, out.Class, out.Err)
			continue
		}
		cl, err := (&check.Verifier{JSONRPC: true}).Verify(r, &out)
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if cl != tc.class || msg != tc.msg {
			t.Errorf("%s: got %v %q; want %v %q", tc.name, cl, msg, tc.class, tc.msg)
		}
	}
}

func TestFailures(t *testing.T) {
	t.Parallel()
	srv := newRPCServer(t, 1)
	// an answer with another id never reaches the caller: it times out and the answer is an orphan
	short := New(Options{Conns: 1, Timeout: 300 * time.Millisecond})
	defer short.Close()
	var out transport.Outcome
	short.Do(context.Background(), request(srv.url, `{"jsonrpc":"2.0","id":1,"method":"wrongid"}`), &out)
	if out.Class != result.Timeout || !out.Opened {
		t.Errorf("wrong id: class %v (%v), opened %v; want timeout on a new connection", out.Class, out.Err, out.Opened)
	}
	if got := short.Orphans(); got > 1 { // 0 when the set-up alone took the 300ms on a busy machine
		t.Errorf("orphans %d; want at most 1", got)
	}
	tr := New(Options{Conns: 1, Timeout: 20 * time.Second})
	defer tr.Close()
	out.Reset()
	tr.Do(context.Background(), request(srv.url, `{"jsonrpc":"2.0","method":"notification"}`), &out)
	if out.Class != result.Other || out.Err != ErrNoID {
		t.Errorf("no id: class %v err %v; want other, ErrNoID", out.Class, out.Err)
	}
	out.Reset()
	tr.Do(context.Background(), request(srv.url, `{"jsonrpc":"2.0","id":2,"method":"close"}`), &out)
	if out.Class != result.Reset {
		t.Errorf("closed by the server: class %v (%v); want reset", out.Class, out.Err)
	}
	out.Reset() // the next call opens a new connection
	tr.Do(context.Background(), request(srv.url, `{"jsonrpc":"2.0","id":3,"method":"echo"}`), &out)
	if out.Class != result.OK || !out.Opened {
		t.Errorf("after a close: class %v (%v), opened %v; want an answer on a new connection", out.Class, out.Err, out.Opened)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out.Reset()
	tr.Do(ctx, request(srv.url, `{"jsonrpc":"2.0","id":4,"method":"echo"}`), &out)
	if out.Class != result.Canceled {
		t.Errorf("cancelled: class %v (%v); want canceled", out.Class, out.Err)
	}
}

func TestRefused(t *testing.T) {
	t.Parallel()
	addr := testnet.RefusedAddr(t)
	tr := New(Options{})
	defer tr.Close()
	var out transport.Outcome
	tr.Do(context.Background(), request("ws://"+addr+"/", `{"id":1,"method":"x"}`), &out)
	if out.Class != result.Refused || !out.Opened || !out.Conn.Failed {
		t.Errorf("refused: class %v (%v), opened %v failed %v; want refused and a failed connection", out.Class, out.Err, out.Opened, out.Conn.Failed)
	}
}

func BenchmarkDo(b *testing.B) {
	srv := newRPCServer(b, 1)
	tr := New(Options{Conns: 1})
	defer tr.Close()
	r := request(srv.url, `{"jsonrpc":"2.0","id":1,"method":"echo","params":["0x1"]}`)
	var out transport.Outcome
	b.ReportAllocs()
	for b.Loop() {
		out.Reset()
		tr.Do(context.Background(), r, &out)
		if out.Class != result.OK {
			b.Fatal(out.Err)
		}
	}
}

// TestWSS sends calls over TLS to a server with a self-signed certificate: refused without
// InsecureSkipVerify, answered with it, the TLS handshake timed apart.
func TestWSS(t *testing.T) {
	t.Parallel()
	s := &rpcServer{hold: 1}
	srv := httptest.NewTLSServer(http.HandlerFunc(s.serve))
	defer srv.Close()
	url := "wss" + strings.TrimPrefix(srv.URL, "https") + "/"
	body := `{"jsonrpc":"2.0","id":1,"method":"echo","params":[1]}`

	strict := New(Options{})
	defer strict.Close()
	var out transport.Outcome
	strict.Do(context.Background(), request(url, body), &out)
	if out.Class != result.TLS || !out.Conn.Failed {
		t.Errorf("self-signed, verified: class %v (%v), failed %v; want tls and a failed connection", out.Class, out.Err, out.Conn.Failed)
	}
	insecure := New(Options{InsecureSkipVerify: true})
	defer insecure.Close()
	out.Reset()
	insecure.Do(context.Background(), request(url, body), &out)
	if out.Class != result.OK || !out.Opened || out.Conn.TLS <= 0 || out.Conn.Connect <= 0 {
		t.Errorf("insecure: class %v (%v), opened %v, tls %v, connect %v; want an answer with the set-up timed", out.Class, out.Err, out.Opened, out.Conn.TLS, out.Conn.Connect)
	}
}

// TestWSSTrusted: with Options.TLS trusting the server's certificate, wss verifies and answers;
// the server name it holds is checked (httptest's certificate is for example.com and 127.0.0.1).
func TestWSSTrusted(t *testing.T) {
	t.Parallel()
	s := &rpcServer{hold: 1}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the handshake that fails on purpose
	srv.StartTLS()
	defer srv.Close()
	url := "wss" + strings.TrimPrefix(srv.URL, "https") + "/"
	body := `{"jsonrpc":"2.0","id":1,"method":"echo","params":[1]}`
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	for _, tc := range []struct {
		name       string
		serverName string
		want       result.Class
	}{
		{"the URL's host", "", result.OK},
		{"a name the certificate holds", "example.com", result.OK},
		{"a name it does not hold", "other.test", result.TLS},
	} {
		tr := New(Options{TLS: &tls.Config{RootCAs: pool, ServerName: tc.serverName, MinVersion: tls.VersionTLS12}})
		var out transport.Outcome
		tr.Do(context.Background(), request(url, body), &out)
		tr.Close()
		if out.Class != tc.want {
			t.Errorf("%s: class %v (%v); want %v", tc.name, out.Class, out.Err, tc.want)
		}
	}
}

// TestSpread: with Spread 4 and room for 8 connections, 8 calls that the server holds until all
// 8 have arrived fill two connections, not eight, and one.
func TestSpread(t *testing.T) {
	t.Parallel()
	const n = 8
	type held struct {
		c   *websocket.Conn
		msg []byte
	}
	var mu sync.Mutex
	var waiting []held
	conns := 0
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		mu.Lock()
		conns++
		mu.Unlock()
		for {
			_, msg, err := c.Read(r.Context())
			if err != nil {
				return
			}
			mu.Lock()
			waiting = append(waiting, held{c, answerTo(msg)})
			var release []held
			if len(waiting) == n {
				release, waiting = waiting, nil
			}
			mu.Unlock()
			for _, h := range release {
				_ = h.c.Write(context.Background(), websocket.MessageText, h.msg)
			}
		}
	})}
	go hs.Serve(ln)
	defer hs.Close()
	url := "ws://" + ln.Addr().String() + "/"
	tr := New(Options{Conns: n, Spread: n / 2, KeepBody: true, Timeout: 20 * time.Second})
	defer tr.Close()
	var wg sync.WaitGroup
	for i := 1; i <= n; i++ {
		wg.Go(func() {
			r := request(url, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"echo","params":[%d]}`, i, i))
			var out transport.Outcome
			tr.Do(context.Background(), r, &out)
			if cl, err := check.VerifyJSONRPC(r.Body, out.Body); out.Class != result.OK || cl != result.OK {
				t.Errorf("call %d: class %v (%v), answer %s: %v %v", i, out.Class, out.Err, out.Body, cl, err)
			}
		})
	}
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	if conns != 2 {
		t.Errorf("server saw %d connections; want 2", conns)
	}
}
