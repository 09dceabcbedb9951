package cli

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/reflection"

	"github.com/rpcbench/rpcbench/serve/items"
	"github.com/rpcbench/rpcbench/serve/items/rpzpb"
	"github.com/rpcbench/rpcbench/summary"
)

// The ghz command line runs unchanged against `serve items --tls` (ghz speaks TLS unless
// --insecure), but for the proto file's path in this repository, and -n 300 rather than 100000.
func TestGHZCommandLine(t *testing.T) {
	t.Parallel()
	s := startItems(t, items.Config{TLS: true})
	_, port, _ := net.SplitHostPort(s.GRPCAddr())
	code, stdout, stderr := mainOut("ghz", "--proto", itemsProto, "--call", "rpz.ItemService.CreateItem",
		"-d", `{"id":"abc","name":"Name"}`, "-c", "100", "-n", "300", "--skipTLS", "localhost:"+port)
	if code != ExitOK {
		t.Fatalf("exit %d; stderr %s", code, stderr)
	}
	for _, re := range []string{
		`\nSummary:\n  Count:\t300\n  Total:\t[0-9.]+ ms\n  Slowest:\t[0-9.]+ ms\n  Fastest:\t[0-9.]+ ms\n  Average:\t[0-9.]+ ms\n  Requests/sec:\t[0-9.]+\n`,
		`\nResponse time histogram:\n(  [0-9.]+ \[[0-9]+\]\t\|∎*\n){11}`,
		`\nLatency distribution:\n  10 % in [0-9.]+ ms \n  25 % in [0-9.]+ ms \n  50 % in [0-9.]+ ms \n  75 % in [0-9.]+ ms \n  90 % in [0-9.]+ ms \n  95 % in [0-9.]+ ms \n  99 % in [0-9.]+ ms \n`,
		`\nStatus code distribution:\n  \[OK\]\t300 responses\n`,
		`\nrpcbench:\n  requests      intended 300, sent 300, ok 300, failed 0\n  latency .*from the intended send time`,
		`connections   1 opened; tls set-up`,
	} {
		if !regexp.MustCompile(re).MatchString(stdout) {
			t.Errorf("the report does not match %q:\n%s", re, stdout)
		}
	}
	// the histogram's counts add up to every call
	var sum int
	for _, m := range regexp.MustCompile(`\[([0-9]+)\]\t\|`).FindAllStringSubmatch(stdout, -1) {
		n, _ := strconv.Atoi(m[1])
		sum += n
	}
	if sum != 300 {
		t.Errorf("the histogram counts %d calls; want 300", sum)
	}
	if s.Len() != 1 {
		t.Errorf("the server holds %d items; want the one id abc", s.Len())
	}
}

// ghz's templates, metadata, --insecure (plaintext), --connections and -O json.
func TestGHZTemplatesAndConnections(t *testing.T) {
	t.Parallel()
	s := startItems(t, items.Config{})
	got := runGHZJSON(t, "--insecure", "--call", "rpz.ItemService/CreateItem",
		"-d", `{"id":"{{.RequestNumber}}","name":"{{newUUID}} at {{.TimestampUnix}} by {{.MethodName}}"}`,
		"-m", `{"x-tenant":"7"}`, "-c", "4", "-n", "40", "--connections", "2", s.GRPCAddr())
	if got.Status["OK"] != 40 || got.Connections.Opened != 2 {
		t.Errorf("status %v, %d connections opened; want OK 40 over 2 connections", got.Status, got.Connections.Opened)
	}
	if s.Len() != 40 {
		t.Errorf("the server holds %d items; want 40, one per {{.RequestNumber}}", s.Len())
	}
	if h := got.Config.Endpoints[0].Header; len(h) != 1 || h[0].Name != "x-tenant" || h[0].Value != "7" {
		t.Errorf("metadata %v; want x-tenant: 7", h)
	}
	if got.Config.Load.Connections != 4 || got.Config.GRPC.Connections != 2 {
		t.Errorf("plan: %d calls in flight over %d connections; want 4 over 2", got.Config.Load.Connections, got.Config.GRPC.Connections)
	}
}

// runGHZJSON runs rpcbench ghz with args and -O json, and returns the report.
func runGHZJSON(t *testing.T, args ...string) *summary.Summary {
	t.Helper()
	return reportOf(t, append([]string{"ghz", "-O", "json"}, args...)...)
}

func TestGHZUsageErrors(t *testing.T) {
	t.Parallel()
	tests := []cliCase{
		{"no call", []string{"-d", "{}", "127.0.0.1:1"}, ExitUsage, nil, []string{"--call: give the method"}},
		{"a URL", []string{"--call", "a.B/C", "grpc://127.0.0.1:1"}, ExitUsage, nil, []string{"want HOST:PORT, as ghz does"}},
		{"unknown ghz data", []string{"--call", "a.B/C", "-d", `{"id":"{{.WorkerID}}"}`, "127.0.0.1:1"}, ExitUsage, nil, []string{"{{.WorkerID}}", ".RequestNumber"}},
		{"bad metadata", []string{"--call", "a.B/C", "-m", `{"n":1}`, "127.0.0.1:1"}, ExitUsage, nil, []string{"-m {\"n\":1}: want a JSON object of strings"}},
		{"plaintext and TLS", []string{"--call", "a.B/C", "--insecure", "--skipTLS", "127.0.0.1:1"}, ExitUsage, nil, []string{"--insecure is plaintext"}},
		{"zero calls", []string{"--call", "a.B/C", "-n", "0", "127.0.0.1:1"}, ExitUsage, nil, []string{"-n 0"}},
		{"no host", []string{"--call", "a.B/C"}, ExitUsage, nil, []string{"want one HOST:PORT, got 0"}},
		{"cert without key", []string{"--call", "a.B/C", "--cert", "c.pem", "127.0.0.1:1"}, ExitUsage, nil, []string{"a client certificate and its key go together"}},
		{"nobody listens", []string{"--insecure", "--call", "a.B/C", "127.0.0.1:1"}, ExitCannotStart, nil, []string{"cannot connect"}},
	}
	runCLICases(t, []string{"ghz"}, tests)
}

// --cacert, --cname, --cert and --key: a server whose certificate names another host and that
// asks for the client's certificate, both signed by a CA made here.
func TestGHZMutualTLS(t *testing.T) {
	t.Parallel()
	dir, addr, tenants := startMutualTLS(t)
	f := func(name string) string { return filepath.Join(dir, name) }
	args := []string{"ghz", "--call", "rpz.ItemService/GetItem", "-d", `{"id":"1"}`, "-n", "10", "-c", "2", "-m", `{"x-tenant":"7"}`}
	code, stdout, stderr := mainOut(append(args, "--cacert", f("ca.pem"), "--cname", "items.test",
		"--cert", f("client.pem"), "--key", f("client-key.pem"), addr)...)
	if code != ExitOK || !strings.Contains(stdout, "[OK]\t10 responses") {
		t.Fatalf("mutual TLS: exit %d, stderr %s\n%s", code, stderr, stdout)
	}
	if n := len(tenants); n != 10 || <-tenants != "7" {
		t.Errorf("the server saw %d calls (and metadata x-tenant of the first as printed); want 10 with x-tenant 7", n)
	}
	for name, tc := range map[string]struct {
		extra []string
		why   string // what the message says of the cause
	}{
		"no --cname":    {[]string{"--cacert", f("ca.pem"), "--cert", f("client.pem"), "--key", f("client-key.pem")}, "doesn't contain any IP SANs"},
		"no client key": {[]string{"--cacert", f("ca.pem"), "--cname", "items.test"}, "the server requires a client certificate, and none was given"}, // then the alert, or (TLS 1.3: the refusal comes after the handshake, and a write may meet the closed connection first) that it asked for one,
		"no --cacert":   {[]string{"--cname", "items.test", "--cert", f("client.pem"), "--key", f("client-key.pem")}, "certificate signed by unknown authority"},
		"plaintext":     {[]string{"--insecure"}, "the server speaks TLS: leave out --insecure"},
	} {
		code, _, stderr := mainOut(append(append(args, tc.extra...), addr)...)
		if code != ExitCannotStart || !strings.Contains(stderr, "cannot connect") || !strings.Contains(stderr, tc.why) {
			t.Errorf("%s: exit %d, stderr %q; want %d, cannot connect: %s", name, code, stderr, ExitCannotStart, tc.why)
		}
	}
}

// startMutualTLS starts an item service over TLS that wants the client's certificate: its own
// certificate names items.test, and both are signed by a CA made here. It returns the directory of
// the PEM files (ca, server, client and their -key files), the server's address and the channel of
// each call's x-tenant metadata.
func startMutualTLS(t *testing.T) (dir, addr string, tenants chan string) {
	t.Helper()
	dir = t.TempDir()
	ca, caKey := newCert(t, dir, "ca", nil, nil, "")
	newCert(t, dir, "server", ca, caKey, "items.test")
	newCert(t, dir, "client", ca, caKey, "")
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	pair, err := tls.LoadX509KeyPair(filepath.Join(dir, "server.pem"), filepath.Join(dir, "server-key.pem"))
	if err != nil {
		t.Fatal(err)
	}
	creds := credentials.NewTLS(&tls.Config{Certificates: []tls.Certificate{pair}, ClientCAs: pool, ClientAuth: tls.RequireAndVerifyClientCert, MinVersion: tls.VersionTLS12})
	tenants = make(chan string, 100)
	return dir, startTestGRPC(t, tenantServer{tenants: tenants}, grpc.Creds(creds)), tenants
}

// startTestGRPC serves srv, with reflection, on 127.0.0.1 until the test ends; it returns the address.
func startTestGRPC(t *testing.T, srv rpzpb.ItemServiceServer, opts ...grpc.ServerOption) string {
	t.Helper()
	s := grpc.NewServer(opts...)
	rpzpb.RegisterItemServiceServer(s, srv)
	reflection.Register(s)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve(ln)
	t.Cleanup(s.Stop)
	return ln.Addr().String()
}

// tenantServer answers GetItem with an item and passes on each call's x-tenant metadata.
type tenantServer struct {
	rpzpb.UnimplementedItemServiceServer
	tenants chan string
	// stuck: CreateItem never answers; it returns when the call's deadline ends it
	stuck bool
}

func (s tenantServer) CreateItem(ctx context.Context, r *rpzpb.CreateItemRequest) (*rpzpb.Item, error) {
	if s.stuck {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return s.UnimplementedItemServiceServer.CreateItem(ctx, r)
}

func (s tenantServer) GetItem(ctx context.Context, r *rpzpb.GetItemRequest) (*rpzpb.Item, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	select {
	case s.tenants <- strings.Join(md.Get("x-tenant"), ","):
	default:
	}
	return &rpzpb.Item{Id: r.GetId()}, nil
}

// newCert writes NAME.pem and NAME-key.pem into dir: a CA when parent is nil, else a certificate
// parent signs, for host when given (a server) or for client authentication.
func newCert(t *testing.T, dir, name string, parent *x509.Certificate, parentKey *ecdsa.PrivateKey, host string) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      pkix.Name{CommonName: name},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
	}
	switch {
	case parent == nil:
		tmpl.IsCA, tmpl.BasicConstraintsValid = true, true
		tmpl.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature
		parent, parentKey = tmpl, key
	case host != "":
		tmpl.DNSNames = []string{host}
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
	default:
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".pem"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+"-key.pem"), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert, key
}

// The gRPC commands of the docs (docs/grpc.md) work as printed: each `rpcbench run` and
// `rpcbench ghz` line of the gRPC section runs against `serve items` (plaintext for run, TLS for
// ghz, as the page starts them), with the port of the test's server, paths from the repository's root, and at most 200
// calls instead of thousands or seconds.
func TestReadmeGRPCExamples(t *testing.T) {
	t.Parallel()
	page, section := docSection(t, "gRPC\n")
	plain := startItems(t, items.Config{})
	secure := startItems(t, items.Config{TLS: true})
	_, securePort, _ := net.SplitHostPort(secure.GRPCAddr())
	var cmds [][]string
	for _, block := range strings.Split(section, "```sh\n")[1:] {
		block = block[:strings.Index(block, "```")]
		block = strings.ReplaceAll(block, "\\\n", " ")
		for line := range strings.Lines(block) {
			if strings.HasPrefix(line, "rpcbench run ") || strings.HasPrefix(line, "rpcbench ghz ") {
				cmds = append(cmds, shellWords(t, strings.TrimSpace(strings.SplitN(line, " #", 2)[0]))[1:])
			}
		}
	}
	if len(cmds) < 4 {
		t.Fatalf("found %d run and ghz commands in the gRPC section of %s; want at least 4", len(cmds), page)
	}
	for _, args := range cmds {
		shown := strings.Join(args, " ")
		for i := 0; i < len(args); i++ {
			a := args[i]
			switch {
			case (a == "-n" || a == "--requests") && atMost(args[i+1], 200):
				// a count small enough already
			case a == "--duration" || a == "-z" || a == "-n" || a == "--requests":
				args[i], args[i+1] = "--requests", "200"
				if args[0] == "ghz" {
					args[i] = "-n"
				}
			case a == "--rate" || a == "-r":
				args[i+1] = "500"
			case strings.HasPrefix(a, "proto") || strings.HasPrefix(a, "examples/"):
				args[i] = filepath.Join("..", "..", a)
			case args[0] == "run":
				args[i] = strings.ReplaceAll(a, "127.0.0.1:9090", plain.GRPCAddr())
			default:
				args[i] = strings.NewReplacer("localhost:9091", "localhost:"+securePort, "127.0.0.1:9090", plain.GRPCAddr()).Replace(a)
			}
		}
		if !slices.Contains(args, "--requests") && !slices.Contains(args, "-n") {
			t.Errorf("%s: no count to bound it", shown)
			continue
		}
		code, stdout, stderr := mainOut(args...)
		// an open-model run may drop calls on a busy machine: the calls made must all be OK
		if code != ExitOK || args[0] == "ghz" && !regexp.MustCompile(`\nStatus code distribution:\n  \[OK\]\t[0-9]+ responses\n\n`).MatchString(stdout) {
			t.Errorf("%s: exit %d; stderr %s\n%s", shown, code, stderr, stdout)
		}
	}
}

// atMost reports whether the count s is a number up to n.
func atMost(s string, n int) bool {
	v, err := strconv.Atoi(s)
	return err == nil && v <= n
}

// shellWords splits a command line as sh does for the README's commands: words apart by spaces,
// '…' quoted as is.
func shellWords(t *testing.T, line string) []string {
	t.Helper()
	var words []string
	var cur strings.Builder
	in, quoted := false, false
	for _, r := range line {
		switch {
		case r == '\'':
			quoted, in = !quoted, true
		case r == ' ' && !quoted:
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if quoted {
		t.Fatalf("%q: an unclosed quote", line)
	}
	if in {
		words = append(words, cur.String())
	}
	return words
}
