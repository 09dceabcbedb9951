package items

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/serve/h3serve"
)

func newServer(t testing.TB, cfg Config) *Server {
	t.Helper()
	s, err := New(cfg)
	if err != nil {
		t.Fatalf("New(%+v): %v", cfg, err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

// jsonItem is an item as the HTTP API writes it.
type jsonItem struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Timestamp time.Time `json:"timestamp"`
	Payload   string    `json:"payload"`
}

func do(t testing.TB, c *http.Client, method, url, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the body: %v", method, url, err)
	}
	return resp.StatusCode, b
}

func decodeItem(t testing.TB, b []byte) jsonItem {
	t.Helper()
	var it jsonItem
	if err := json.Unmarshal(b, &it); err != nil {
		t.Fatalf("answer %q is not an item: %v", b, err)
	}
	return it
}

func TestHTTPCreateAndGet(t *testing.T) {
	t.Parallel()
	s := newServer(t, Config{})
	c := &http.Client{Timeout: 10 * time.Second}
	before := time.Now()
	status, b := do(t, c, "POST", s.URL()+"/rpz/items", `{"id":"a1","name":"pen \"blue\""}`)
	after := time.Now()
	if status != http.StatusCreated {
		t.Fatalf("POST: status %d (%s); want 201", status, b)
	}
	created := decodeItem(t, b)
	if created.ID != "a1" || created.Name != `pen "blue"` || created.Payload != "" {
		t.Errorf("POST answered %+v; want id a1, name `pen \"blue\"`, no payload", created)
	}
	if created.Timestamp.Before(before.Truncate(time.Microsecond)) || created.Timestamp.After(after) {
		t.Errorf("timestamp %v; want between %v and %v", created.Timestamp, before, after)
	}
	status, b = do(t, c, "GET", s.URL()+"/rpz/items/a1", "")
	if got := decodeItem(t, b); status != 200 || got != created {
		t.Errorf("GET a1: status %d, %+v; want 200, %+v", status, got, created)
	}
	// An integer id is kept as its decimal text.
	if status, b = do(t, c, "POST", s.URL()+"/rpz/items", `{"id":42,"name":"n"}`); status != 201 || decodeItem(t, b).ID != "42" {
		t.Errorf("POST integer id: status %d, %s; want 201 with id \"42\"", status, b)
	}
	if status, _ = do(t, c, "GET", s.URL()+"/rpz/items/42", ""); status != 200 {
		t.Errorf("GET 42: status %d; want 200", status)
	}
	// A second create replaces the item.
	do(t, c, "POST", s.URL()+"/rpz/items", `{"id":"a1","name":"cup"}`)
	if _, b = do(t, c, "GET", s.URL()+"/rpz/items/a1", ""); decodeItem(t, b).Name != "cup" {
		t.Errorf("GET a1 after replacing it: %s; want name cup", b)
	}
	if got := s.Len(); got != 2 {
		t.Errorf("Len() = %d; want 2", got)
	}
}

func TestHTTPErrors(t *testing.T) {
	t.Parallel()
	s := newServer(t, Config{})
	c := &http.Client{Timeout: 10 * time.Second}
	tests := []struct {
		name, method, path, body string
		want                     int
	}{
		{"absent item", "GET", "/rpz/items/nope", "", 404},
		{"bad JSON", "POST", "/rpz/items", `{"id":`, 400},
		{"not an object", "POST", "/rpz/items", `"x"`, 400},
		{"missing id", "POST", "/rpz/items", `{"name":"x"}`, 400},
		{"fractional id", "POST", "/rpz/items", `{"id":1.5}`, 400},
		{"trailing data", "POST", "/rpz/items", `{"id":"x"}]`, 400},
		{"body too large", "POST", "/rpz/items", `{"id":"x","name":"` + strings.Repeat("n", maxBodyBytes) + `"}`, 413},
		{"wrong method on the collection", "GET", "/rpz/items", "", 405},
		{"wrong method on an item", "DELETE", "/rpz/items/x", "", 405},
		{"unknown path", "GET", "/elsewhere", "", 404},
	}
	for _, tt := range tests {
		if got, b := do(t, c, tt.method, s.URL()+tt.path, tt.body); got != tt.want {
			t.Errorf("%s: %s %s: status %d (%.80s); want %d", tt.name, tt.method, tt.path, got, b, tt.want)
		}
	}
	if got := s.Len(); got != 0 {
		t.Errorf("Len() after only bad requests = %d; want 0", got)
	}
}

func TestPayloadBytes(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 1, 1000, 100000} {
		s := newServer(t, Config{PayloadBytes: n})
		c := &http.Client{Timeout: 10 * time.Second}
		if status, b := do(t, c, "POST", s.URL()+"/rpz/items", `{"id":"p","name":"n"}`); status != 201 || len(decodeItem(t, b).Payload) != n {
			t.Errorf("PayloadBytes %d: POST status %d, payload of %d bytes; want 201, %d", n, status, len(decodeItem(t, b).Payload), n)
		}
		if _, b := do(t, c, "GET", s.URL()+"/rpz/items/p", ""); len(decodeItem(t, b).Payload) != n {
			t.Errorf("PayloadBytes %d: GET payload of %d bytes; want %d", n, len(decodeItem(t, b).Payload), n)
		}
		it, err := grpcClient(t, s).GetItem(context.Background(), getReq("p"))
		if err != nil || len(it.GetPayload()) != n {
			t.Errorf("PayloadBytes %d: gRPC GetItem payload of %d bytes, err %v; want %d", n, len(it.GetPayload()), err, n)
		}
	}
}

func TestHTTPS(t *testing.T) {
	t.Parallel()
	s := newServer(t, Config{TLS: true})
	if !strings.HasPrefix(s.URL(), "https://127.0.0.1:") {
		t.Fatalf("URL() = %q; want https://127.0.0.1:PORT", s.URL())
	}
	// The certificate names every loopback spelling.
	blk, _ := pem.Decode(s.CertPEM())
	if blk == nil {
		t.Fatalf("CertPEM() = %q; want a PEM certificate", s.CertPEM())
	}
	cert, err := x509.ParseCertificate(blk.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	for _, host := range []string{"localhost", "127.0.0.1", "::1"} {
		if err := cert.VerifyHostname(host); err != nil {
			t.Errorf("certificate does not name %s: %v", host, err)
		}
	}
	for _, tt := range []struct {
		serverName string // "" means the host of the URL
		h2         bool
	}{{"", false}, {"localhost", false}, {"", true}} {
		tc := s.ClientTLSConfig()
		tc.ServerName = tt.serverName
		tr := &http.Transport{TLSClientConfig: tc, ForceAttemptHTTP2: tt.h2}
		c := &http.Client{Transport: tr, Timeout: 10 * time.Second}
		if status, b := do(t, c, "POST", s.URL()+"/rpz/items", `{"id":"t","name":"secure"}`); status != 201 {
			t.Errorf("HTTPS (server name %q, h2 %v) POST: status %d (%s); want 201", tt.serverName, tt.h2, status, b)
		}
		resp, err := c.Get(s.URL() + "/rpz/items/t")
		if err != nil {
			t.Fatalf("HTTPS GET: %v", err)
		}
		resp.Body.Close()
		if want := map[bool]int{false: 1, true: 2}[tt.h2]; resp.StatusCode != 200 || resp.ProtoMajor != want {
			t.Errorf("HTTPS GET (h2 %v): status %d over %s; want 200 over HTTP/%d", tt.h2, resp.StatusCode, resp.Proto, want)
		}
		tr.CloseIdleConnections()
	}
	// A client that does not trust the certificate fails.
	if _, err := http.Get(s.URL() + "/rpz/items/t"); err == nil {
		t.Error("GET with the system roots: got no error; want a certificate error")
	}
}

func TestH2C(t *testing.T) {
	t.Parallel()
	s := newServer(t, Config{})
	var p http.Protocols
	p.SetUnencryptedHTTP2(true)
	tr := &http.Transport{Protocols: &p}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr, Timeout: 10 * time.Second}).Get(s.URL() + "/rpz/items/x")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 || resp.ProtoMajor != 2 {
		t.Errorf("h2c GET: status %d over %s; want 404 over HTTP/2", resp.StatusCode, resp.Proto)
	}
}

func TestCertFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	certPEM, keyPEM, err := h3serve.SelfSigned("rpcbench items", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	certFile, keyFile := write("cert.pem", certPEM), write("key.pem", keyPEM)
	garbage := write("garbage.pem", []byte("not PEM"))

	s := newServer(t, Config{CertFile: certFile, KeyFile: keyFile})
	if !bytes.Equal(s.CertPEM(), certPEM) || !strings.HasPrefix(s.URL(), "https://") {
		t.Errorf("with cert files: URL %q, CertPEM of %d bytes; want https and the file's certificate", s.URL(), len(s.CertPEM()))
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(certPEM)
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}, Timeout: 10 * time.Second}
	if status, _ := do(t, c, "GET", s.URL()+"/rpz/items/x", ""); status != 404 {
		t.Errorf("GET over HTTPS with the file's certificate: status %d; want 404", status)
	}

	missing := filepath.Join(dir, "missing.pem")
	tests := []struct {
		name string
		cfg  Config
		want []string // substrings of the error
	}{
		{"missing cert", Config{CertFile: missing, KeyFile: keyFile}, []string{"reading the certificate", missing}},
		{"missing key", Config{CertFile: certFile, KeyFile: missing}, []string{"reading the key", missing}},
		{"garbage cert", Config{CertFile: garbage, KeyFile: keyFile}, []string{garbage, "want PEM files"}},
		{"key of another cert", Config{CertFile: certFile, KeyFile: garbage}, []string{garbage}},
		{"cert without key", Config{CertFile: certFile}, []string{"set both or neither"}},
		{"payload too large", Config{PayloadBytes: MaxPayloadBytes + 1}, []string{"PayloadBytes"}},
		{"bad address", Config{Addr: "127.0.0.1:x"}, []string{"HTTP"}},
		{"bad gRPC address", Config{GRPCAddr: "127.0.0.1:x"}, []string{"gRPC"}},
	}
	for _, tt := range tests {
		s, err := New(tt.cfg)
		if err == nil {
			s.Close()
			t.Errorf("%s: New gave no error; want one", tt.name)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", tt.name, err, w)
			}
		}
	}
}

// TestConcurrentClients creates and reads items from many goroutines over HTTP and gRPC at once
// (run with -race), then checks every item is there.
func TestConcurrentClients(t *testing.T) {
	t.Parallel()
	s := newServer(t, Config{PayloadBytes: 10})
	tr := &http.Transport{MaxIdleConnsPerHost: 8}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	gc := grpcClient(t, s)
	const workers, per = 8, 40
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < per; i++ {
				id := fmt.Sprintf("w%d-%d", w, i)
				if w%2 == 0 {
					resp, err := c.Post(s.URL()+"/rpz/items", "application/json", strings.NewReader(`{"id":"`+id+`","name":"n"}`))
					if err != nil {
						t.Error(err)
						return
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				} else if _, err := gc.CreateItem(context.Background(), createReq(id, "n")); err != nil {
					t.Error(err)
					return
				}
				// Read it back over the other protocol.
				if w%2 == 0 {
					if it, err := gc.GetItem(context.Background(), getReq(id)); err != nil || it.GetId() != id {
						t.Errorf("gRPC GetItem(%q) = %v, %v", id, it, err)
					}
				} else {
					resp, err := c.Get(s.URL() + "/rpz/items/" + id)
					if err != nil {
						t.Error(err)
						return
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != 200 {
						t.Errorf("GET %s: status %d; want 200", id, resp.StatusCode)
					}
				}
			}
		}()
	}
	wg.Wait()
	if got := s.Len(); got != workers*per {
		t.Errorf("Len() = %d; want %d", got, workers*per)
	}
}

func TestCloseWaitsForInFlight(t *testing.T) {
	t.Parallel()
	in := make(chan struct{}, 1)
	s, err := New(Config{}, WithMiddleware(func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			in <- struct{}{}
			h.ServeHTTP(w, r)
		})
	}))
	if err != nil {
		t.Fatal(err)
	}
	// A request whose body has not all arrived holds the handler.
	conn, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"id":"late","name":"n"}`
	fmt.Fprintf(conn, "POST /rpz/items HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s", len(body), body[:5])
	<-in
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	if _, err := conn.Write([]byte(body[5:])); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufioReader(conn), nil)
	if err != nil {
		t.Fatalf("reading the answer to the request in flight at Close: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != 201 {
		t.Errorf("request in flight at Close: status %d; want 201", resp.StatusCode)
	}
	if err := <-closed; err != nil {
		t.Errorf("Close: %v", err)
	}
	if got := s.Len(); got != 1 {
		t.Errorf("Len() = %d; want 1", got)
	}
}

func BenchmarkGetItem(b *testing.B) {
	for _, n := range []int{0, 1024} {
		b.Run(fmt.Sprintf("payload=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			s := newServer(b, Config{PayloadBytes: n})
			if err := s.Put("42", "pen"); err != nil {
				b.Fatal(err)
			}
			c := &http.Client{}
			url := s.URL() + "/rpz/items/42"
			for b.Loop() {
				resp, err := c.Get(url)
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					b.Fatalf("status %d", resp.StatusCode)
				}
			}
		})
	}
}

// BenchmarkGetItemHandler times the server's side alone: routing, lookup and writing the answer.
func BenchmarkGetItemHandler(b *testing.B) {
	b.ReportAllocs()
	s := newServer(b, Config{})
	s.Put("42", "pen") //nolint:errcheck
	h := s.handler()
	req, _ := http.NewRequest("GET", "/rpz/items/42", nil)
	w := &discardWriter{h: http.Header{}}
	for b.Loop() {
		h.ServeHTTP(w, req)
	}
}

type discardWriter struct{ h http.Header }

func (d *discardWriter) Header() http.Header         { return d.h }
func (d *discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (d *discardWriter) WriteHeader(int)             {}
