package cli

import (
	"crypto/tls"
	"crypto/x509"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/serve/items"
)

// protoCounter answers "ok" and counts requests by the protocol they came in. It holds the first
// hold requests until they are all in, so that they are in flight together.
type protoCounter struct {
	hold    int
	mu      sync.Mutex
	n       map[string]int
	in      int
	release chan struct{}
}

func (p *protoCounter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	if p.n == nil {
		p.n = map[string]int{}
		p.release = make(chan struct{})
	}
	p.n[r.Proto]++
	p.in++
	held, release := p.in <= p.hold, p.release
	if p.in == p.hold {
		close(p.release)
	}
	p.mu.Unlock()
	if held {
		select {
		case <-release:
		case <-time.After(10 * time.Second): // a bound, not a synchronisation
		}
	}
	io.WriteString(w, "ok")
}

func (p *protoCounter) count(proto string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.n[proto]
}

// startH2TLS starts Go's HTTP/2 server over TLS on 127.0.0.1 with a certificate for h2.test that
// the CA of dir/ca.pem signed; it asks for a client certificate from the same CA, and accepts TLS
// up to maxVersion (0: any). It returns the server's URL.
func startH2TLS(t *testing.T, dir string, h http.Handler, maxVersion uint16) string {
	t.Helper()
	ca, caKey := newCert(t, dir, "ca", nil, nil, "")
	newCert(t, dir, "server", ca, caKey, "h2.test")
	newCert(t, dir, "client", ca, caKey, "")
	pair, err := tls.LoadX509KeyPair(filepath.Join(dir, "server.pem"), filepath.Join(dir, "server-key.pem"))
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	s := httptest.NewUnstartedServer(h)
	s.EnableHTTP2 = true
	s.Config.ErrorLog = log.New(io.Discard, "", 0) // the handshakes that fail on purpose
	s.TLS = &tls.Config{Certificates: []tls.Certificate{pair}, ClientCAs: pool, ClientAuth: tls.VerifyClientCertIfGiven,
		MinVersion: tls.VersionTLS12, MaxVersion: maxVersion}
	s.StartTLS()
	t.Cleanup(s.Close)
	return s.URL
}

// An https:// URL speaks HTTP/2 when the server's ALPN chooses it, with the CA, server name and
// client certificate given; --http1 speaks HTTP/1.1 to the same server; the report says which.
func TestRunH2TLS(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv := &protoCounter{}
	u := startH2TLS(t, dir, srv, 0)
	f := func(name string) string { return filepath.Join(dir, name) }
	tlsArgs := []string{"--cacert", f("ca.pem"), "--server-name", "h2.test", "--cert", f("client.pem"), "--key", f("client-key.pem"), "--tls-min", "1.3"}

	got := runJSON(t, append([]string{"run", "--requests", "6", "--connections", "3"}, append(tlsArgs, u+"/")...)...)
	if got.Requests.OK != 6 || got.Connections.Protocols["h2"] != got.Connections.Opened || got.Connections.Opened == 0 {
		t.Errorf("h2: ok %d, connections %d, by protocol %v; want 6 ok, every connection h2", got.Requests.OK, got.Connections.Opened, got.Connections.Protocols)
	}
	if got.Connections.TLS == nil {
		t.Error("h2: no TLS set-up time; want one apart from the latency")
	}
	if n := srv.count("HTTP/2.0"); n != 6 {
		t.Errorf("h2: the server saw %d HTTP/2 requests; want 6", n)
	}

	got = runJSON(t, append([]string{"run", "--http1", "--requests", "4", "--connections", "2"}, append(tlsArgs, u+"/")...)...)
	if got.Requests.OK != 4 || got.Connections.Protocols["h2"] != 0 || got.Connections.TLS == nil {
		t.Errorf("--http1: ok %d, by protocol %v, TLS %v; want 4 ok, no h2, a TLS set-up time", got.Requests.OK, got.Connections.Protocols, got.Connections.TLS)
	}
	if n := srv.count("HTTP/1.1"); n != 4 {
		t.Errorf("--http1: the server saw %d HTTP/1.1 requests; want 4", n)
	}

	// Without the CA the server's certificate is not trusted: every request fails, class tls.
	got = runJSON(t, "run", "--requests", "2", "--connections", "1", "--server-name", "h2.test", u+"/")
	if got.Requests.OK != 0 || got.Errors["tls"] != 2 {
		t.Errorf("no CA: ok %d, errors %v; want 2 failures of class tls", got.Requests.OK, got.Errors)
	}
}

// --tls-min 1.3 refuses a server that speaks TLS 1.2 at most.
func TestRunTLSMin(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	u := startH2TLS(t, dir, &protoCounter{}, tls.VersionTLS12)
	ca := filepath.Join(dir, "ca.pem")
	for _, proto := range []string{"--http1", "--streams=10"} {
		got := runJSON(t, "run", proto, "--requests", "2", "--connections", "1", "--cacert", ca, "--server-name", "h2.test", "--tls-min", "1.3", u+"/")
		if got.Requests.OK != 0 || got.Errors["tls"] != 2 {
			t.Errorf("%s --tls-min 1.3 against TLS 1.2: ok %d, errors %v; want 2 failures of class tls", proto, got.Requests.OK, got.Errors)
		}
		got = runJSON(t, "run", proto, "--requests", "2", "--connections", "1", "--cacert", ca, "--server-name", "h2.test", "--tls-min", "1.2", u+"/")
		if got.Requests.OK != 2 {
			t.Errorf("%s --tls-min 1.2 against TLS 1.2: ok %d, errors %v; want 2 ok", proto, got.Requests.OK, got.Errors)
		}
	}
}

// --h2c speaks HTTP/2 with prior knowledge to Go's h2c server; --streams 2 puts the 4
// connections' requests on 2 HTTP/2 connections (the server holds the first 4 requests until they
// are all in flight).
func TestRunH2C(t *testing.T) {
	t.Parallel()
	srv := &protoCounter{hold: 4}
	s := httptest.NewUnstartedServer(srv)
	var p http.Protocols
	p.SetUnencryptedHTTP2(true)
	s.Config.Protocols = &p
	s.Start()
	t.Cleanup(s.Close)
	got := runJSON(t, "run", "--h2c", "--streams", "2", "--requests", "40", "--connections", "4", s.URL+"/")
	if got.Requests.OK != 40 || got.Connections.Opened != 2 || got.Connections.Protocols["h2c"] != 2 {
		t.Errorf("ok %d, connections %d, by protocol %v; want 40 ok over 2 h2c connections", got.Requests.OK, got.Connections.Opened, got.Connections.Protocols)
	}
	if n := srv.count("HTTP/2.0"); n != 40 {
		t.Errorf("the server saw %d HTTP/2 requests; want 40", n)
	}
	code, stdout, _ := mainOut("run", "--h2c", "--requests", "1", "--quiet", s.URL+"/")
	if code != ExitOK || !strings.Contains(stdout, "HTTP/2 over cleartext (h2c)") || !strings.Contains(stdout, "spoke h2c 1") {
		t.Errorf("text report: exit %d, %q; want it to name h2c and the connection that spoke it", code, stdout)
	}
}

func TestRunH2UsageErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	newCert(t, dir, "ca", nil, nil, "")
	ca := filepath.Join(dir, "ca.pem")
	for _, tc := range []struct {
		args []string
		want string // in stderr
	}{
		{[]string{"--h2c", "--http1", "http://127.0.0.1:1/"}, "--h2c and --http1: give one of them"},
		{[]string{"--h2c", "https://127.0.0.1:1/"}, "protocol h2c does not carry https:// URLs"},
		{[]string{"--streams", "4", "http://127.0.0.1:1/"}, "streams per connection go with HTTP/2 (h2, h2c), HTTP/3 (h3) and gRPC, not with protocol http1"},
		{[]string{"--cacert", ca, "http://127.0.0.1:1/"}, "is plaintext: certificates"},
		{[]string{"--tls-min", "1.1", "https://127.0.0.1:1/"}, "want one of 1.2, 1.3"},
		{[]string{"--cacert", "/nonexistent/ca.pem", "https://127.0.0.1:1/"}, "/nonexistent/ca.pem"},
	} {
		code, _, stderr := mainOut(append([]string{"run", "--requests", "1"}, tc.args...)...)
		if code != ExitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, stderr, ExitUsage, tc.want)
		}
	}
}

// The HTTP/2 and TLS commands of the docs (docs/grpc.md) work as printed: each `rpcbench run` line of its section
// runs against `serve items` as the section starts it (plain, self-signed TLS, and TLS with
// certificates from a CA made here for items.internal), with the test's ports and files and 200
// requests; the report names the protocol the comment says.
func TestReadmeHTTP2Examples(t *testing.T) {
	t.Parallel()
	page, section := docSection(t, "HTTP/2 and TLS\n")
	dir := t.TempDir()
	ca, caKey := newCert(t, dir, "ca", nil, nil, "")
	newCert(t, dir, "server", ca, caKey, "items.internal")
	newCert(t, dir, "client", ca, caKey, "")
	addrs := map[string]string{
		"127.0.0.1:8082": startItems(t, items.Config{}).Addr(),
		"127.0.0.1:8443": startItems(t, items.Config{TLS: true}).Addr(),
		"127.0.0.1:8444": startItems(t, items.Config{CertFile: filepath.Join(dir, "server.pem"), KeyFile: filepath.Join(dir, "server-key.pem")}).Addr(),
	}
	var cmds []string
	for _, block := range strings.Split(section, "```sh\n")[1:] {
		block = strings.ReplaceAll(block[:strings.Index(block, "```")], "\\\n", " ")
		for line := range strings.Lines(block) {
			if strings.HasPrefix(line, "rpcbench run ") {
				cmds = append(cmds, line)
			}
		}
	}
	if len(cmds) < 4 {
		t.Fatalf("found %d run commands in the HTTP/2 section of %s; want at least 4", len(cmds), page)
	}
	for _, line := range cmds {
		cmd, comment, _ := strings.Cut(line, " #")
		args := shellWords(t, strings.TrimSpace(cmd))[1:]
		for i, a := range args {
			switch {
			case a == "--requests":
				args[i+1] = "200"
			case strings.HasSuffix(a, ".pem"):
				args[i] = filepath.Join(dir, a)
			case strings.Contains(a, "://"):
				for from, to := range addrs {
					args[i] = strings.Replace(args[i], from, to, 1)
				}
			}
		}
		code, stdout, stderr := mainOut(append(args, "--quiet")...)
		if code != ExitOK {
			t.Errorf("%s: exit %d; stderr %s", cmd, code, stderr)
			continue
		}
		want := "spoke h2 "
		switch {
		case strings.Contains(comment, "h2c"):
			want = "spoke h2c "
		case strings.Contains(comment, "HTTP/1.1"):
			want = "" // rpcbench's own HTTP/1.1 client, which does not name it
		}
		if !strings.Contains(stdout, want) || want == "" && strings.Contains(stdout, "spoke") {
			t.Errorf("%s: report %s; want it to say %q", cmd, stdout, want)
		}
	}
}

// Streaming calls against serve items: the messages of the body file are sent, the answers
// counted, in all and per call; a stream the server ends with NOT_FOUND counts by its code.
func TestRunGRPCStreams(t *testing.T) {
	t.Parallel()
	s := startItems(t, items.Config{})
	base := "grpc://" + s.GRPCAddr() + "/rpz.ItemService/"
	dir := t.TempDir()
	itemsFile := filepath.Join(dir, "items.jsonl")
	if err := os.WriteFile(itemsFile, []byte("{\"id\":\"a\",\"name\":\"1\"}\n{\"id\":\"b\",\"name\":\"2\"}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name             string
		args             []string
		ok               uint64
		sent, received   uint64
		perSent, perRecv float64
		status           string // a status code counted, besides OK
	}{
		// client-streaming: 2 items a call, one answer
		{"CreateItems", []string{"--body-file", itemsFile, base + "CreateItems"}, 10, 20, 10, 2, 1, ""},
		// server-streaming: one request, 2 items back
		{"ListItems", []string{"--body", `{"ids":["a","b"]}`, base + "ListItems"}, 10, 10, 20, 1, 2, ""},
		// bidi: 3 ids, 3 items back
		{"GetItems", []string{"--body", `{"id":"a"} {"id":"b"} {"id":"a"}`, base + "GetItems"}, 10, 30, 30, 3, 3, ""},
		// the second id has no item: one answer, then NOT_FOUND
		{"NotFound", []string{"--body", `{"ids":["a","zz"]}`, base + "ListItems"}, 0, 10, 10, 1, 1, "NotFound"},
	} {
		got := runJSON(t, append([]string{"run", "--requests", "10", "--connections", "2"}, tc.args...)...)
		m := got.Messages
		if got.Requests.OK != tc.ok || m == nil || m.Sent != tc.sent || m.Received != tc.received || m.SentPerCall != tc.perSent || m.ReceivedPerCall != tc.perRecv {
			t.Errorf("%s: ok %d, messages %+v; want ok %d, sent %d (%v a call), received %d (%v a call)", tc.name, got.Requests.OK, m, tc.ok, tc.sent, tc.perSent, tc.received, tc.perRecv)
		}
		if tc.status != "" && got.Status[tc.status] != 10 {
			t.Errorf("%s: status %v; want 10 %s", tc.name, got.Status, tc.status)
		}
		if tc.ok > 0 && got.TTFB == nil {
			t.Errorf("%s: no time to the first message", tc.name)
		}
		if (got.MessageGap != nil) != (tc.perRecv > 1) {
			t.Errorf("%s: gaps between answers %v; want them for calls of several answers", tc.name, got.MessageGap)
		}
	}
}

// --stream-rate paces a bidi call's messages and times each answer; it goes with gRPC only.
func TestRunStreamRate(t *testing.T) {
	t.Parallel()
	s := startItems(t, items.Config{})
	if err := s.Put("a", "pen"); err != nil {
		t.Fatal(err)
	}
	got := runJSON(t, "run", "--requests", "4", "--connections", "2", "--stream-rate", "1000/s",
		"--body", strings.Repeat(`{"id":"a"}`, 5), "grpc://"+s.GRPCAddr()+"/rpz.ItemService/GetItems")
	if got.Requests.OK != 4 || got.Messages == nil || got.Messages.Received != 20 || got.MessageLatency == nil {
		t.Errorf("ok %d, messages %+v, message latency %v; want 4 ok, 20 answers, each timed", got.Requests.OK, got.Messages, got.MessageLatency)
	}
	code, _, stderr := mainOut("run", "--requests", "1", "--stream-rate", "10", "http://127.0.0.1:1/")
	if code != ExitUsage || !strings.Contains(stderr, "a stream rate go with gRPC") {
		t.Errorf("--stream-rate on http: exit %d, %q; want %d and a word on gRPC", code, stderr, ExitUsage)
	}
}
