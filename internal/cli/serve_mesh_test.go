package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/serve/mesh"
)

// meshCmd runs `rpcbench serve mesh args…` in the background with a context the test cancels.
type meshCmd struct {
	lines  chan string
	cancel context.CancelFunc
	code   chan int
}

func startMeshCmd(t *testing.T, args ...string) *meshCmd {
	t.Helper()
	r, w := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	c := &meshCmd{lines: make(chan string, 64), cancel: cancel, code: make(chan int, 1)}
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		close(c.lines)
	}()
	go func() {
		var errb bytes.Buffer
		code := runServe(ctx, &env{stdin: strings.NewReader(""), stdout: w, stderr: &errb}, append([]string{"mesh"}, args...))
		if code != ExitOK {
			w.Write([]byte("stderr: " + errb.String() + "\n"))
		}
		w.Close()
		c.code <- code
	}()
	t.Cleanup(func() { c.stop(t) })
	return c
}

// line returns the next line printed, failing after 10s without one.
func (c *meshCmd) line(t *testing.T) string {
	t.Helper()
	select {
	case l, ok := <-c.lines:
		if !ok {
			t.Fatal("serve mesh printed nothing more")
		}
		return l
	case <-time.After(10 * time.Second):
		t.Fatal("serve mesh printed nothing within 10s")
	}
	return ""
}

// stop cancels the command and returns its exit code.
func (c *meshCmd) stop(t *testing.T) int {
	t.Helper()
	c.cancel()
	select {
	case code := <-c.code:
		c.code <- code
		return code
	case <-time.After(20 * time.Second):
		t.Fatal("serve mesh did not stop within 20s")
	}
	return -1
}

func meshHop(t *testing.T, url string, limit int) mesh.Response {
	t.Helper()
	body := `{"queue":["A","B","C","D","E"],"limit":` + itoa(limit) + `}`
	resp, err := http.Post(url+"/peer/hop", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r mesh.Response
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || r.Error != nil {
		t.Fatalf("POST /peer/hop: got %d %v; want 200", resp.StatusCode, r.Error)
	}
	return r
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestServeMeshInOneProcess(t *testing.T) {
	t.Parallel()
	c := startMeshCmd(t, "--transport", "grpc", "--pprof")
	first := c.line(t)
	url, ok := strings.CutSuffix(strings.TrimPrefix(first, "mesh gateway on "), " (transport grpc)")
	if !ok || !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("first line %q; want \"mesh gateway on http://127.0.0.1:PORT (transport grpc)\"", first)
	}
	if l := c.line(t); !strings.HasPrefix(l, "peers in this process: A=127.0.0.1:") {
		t.Errorf("second line %q; want the peers in this process", l)
	}
	if l := c.line(t); l != "pprof on "+url+"/debug/pprof/" {
		t.Errorf("third line %q; want the pprof address", l)
	}
	if l := c.line(t); !strings.HasPrefix(l, "try: curl -s -X POST "+url+"/peer/hop") {
		t.Errorf("fourth line %q; want a curl example", l)
	}
	r := meshHop(t, url, 20)
	if r.State.HopCount != 20 || r.State.HopLatency <= 0 {
		t.Errorf("got HopCount %d, HopLatency %d; want 20 and > 0", r.State.HopCount, r.State.HopLatency)
	}
	resp, err := http.Get(url + "/debug/pprof/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("pprof: got %d; want 200", resp.StatusCode)
	}
	if code := c.stop(t); code != ExitOK {
		t.Errorf("got exit %d; want 0", code)
	}
}

// A peer process and a gateway process, wired by address: here the CLI runs peer A, the library
// runs peer B and the gateway.
func TestServeMeshPeerProcess(t *testing.T) {
	t.Parallel()
	b, err := mesh.ListenPeer("127.0.0.1:0", "B", mesh.Config{Peers: map[string]string{"A": "127.0.0.1:1", "B": "127.0.0.1:1"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	// A's own entry in --peers is not used: a chain of two hops never comes back to A.
	c := startMeshCmd(t, "--peer", "A", "--addr", "127.0.0.1:0", "--peers", "A=127.0.0.1:1,B="+b.Addr())
	first := c.line(t)
	rest, ok := strings.CutPrefix(first, "mesh peer A on ")
	if !ok {
		t.Fatalf("first line %q; want \"mesh peer A on HOST:PORT ...\"", first)
	}
	addrA, _, _ := strings.Cut(rest, " ")
	gw, err := mesh.NewGateway(mesh.Config{Peers: map[string]string{"A": addrA, "B": b.Addr()}})
	if err != nil {
		t.Fatal(err)
	}
	defer gw.Close()
	r, err := gw.Hop(context.Background(), mesh.HopRequest{Queue: []string{"A", "B"}, Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if r.State.HopCount != 2 || b.Hops() != 1 {
		t.Errorf("got HopCount %d and %d hops at B; want 2 and 1", r.State.HopCount, b.Hops())
	}
	if code := c.stop(t); code != ExitOK {
		t.Errorf("got exit %d; want 0", code)
	}
	if l := c.line(t); l != "mesh peer A: 1 hops" {
		t.Errorf("last line %q; want \"mesh peer A: 1 hops\"", l)
	}
}

// A gateway process whose peers run elsewhere.
func TestServeMeshGatewayOnly(t *testing.T) {
	t.Parallel()
	peers, err := mesh.Start(mesh.Config{Transport: mesh.H2C})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { peers.Close() })
	c := startMeshCmd(t, "--transport", "h2c", "--peers", mesh.FormatPeers(peers.Peers()))
	url, ok := strings.CutSuffix(strings.TrimPrefix(c.line(t), "mesh gateway on "), " (transport h2c)")
	if !ok {
		t.Fatalf("got %q; want the gateway's address", url)
	}
	if l := c.line(t); l != "peers elsewhere: "+mesh.FormatPeers(peers.Peers()) {
		t.Errorf("second line %q; want the peers elsewhere", l)
	}
	meshHop(t, url, 7)
	if got := peers.Peer("A").Hops() + peers.Peer("B").Hops(); got != 4 {
		t.Errorf("got %d hops at A and B; want 4 of the 7 (hops 1, 2, 6 and 7)", got)
	}
}

func TestServeMeshBadFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		args       []string
		wantStderr string
	}{
		{"unknown transport", []string{"--transport", "udp"}, `--transport: unknown transport "udp"`},
		{"peer without a directory", []string{"--peer", "A"}, "--peer A needs --peers"},
		{"peer not in the directory", []string{"--peer", "Z", "--peers", "A=127.0.0.1:9001"}, `--peer Z: not in --peers`},
		{"bad directory", []string{"--peers", "A=127.0.0.1"}, `peer A address "127.0.0.1": want HOST:PORT`},
		{"zero max limit", []string{"--max-limit", "0"}, "max-limit"},
		{"negative timeout", []string{"--timeout", "-1s"}, "timeout"},
		{"stray argument", []string{"now"}, `unexpected argument "now"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var out, errb bytes.Buffer
			code := Main(append([]string{"serve", "mesh"}, tt.args...), strings.NewReader(""), &out, &errb)
			if code != ExitUsage {
				t.Errorf("got exit %d; want 2", code)
			}
			if !strings.Contains(errb.String(), tt.wantStderr) {
				t.Errorf("stderr: got %q; want it to contain %q", errb.String(), tt.wantStderr)
			}
		})
	}
}

func TestServeMeshHelp(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	if code := Main([]string{"serve", "mesh", "--help"}, strings.NewReader(""), &out, &errb); code != ExitOK {
		t.Fatalf("got exit %d; want 0", code)
	}
	for _, w := range []string{"rpcbench serve mesh --addr 127.0.0.1:8080", "--peer $p", "-transport", "-peers", "-max-limit"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("help lacks %q:\n%s", w, out.String())
		}
	}
}

// The MeshRPC commands of the docs (docs/serve.md) work as printed: each `rpcbench run` of the section runs against a
// mesh of the transport its serve line names, at the test's addresses, with chains of 20 hops
// instead of 1,000 and 20 requests; both endpoints answer every request.
func TestReadmeMeshRPCExamples(t *testing.T) {
	t.Parallel()
	page, section := docSection(t, "The MeshRPC figure")
	addrs := map[string]string{}
	for _, tc := range []struct {
		tr         mesh.Transport
		http, grpc string // the page's addresses
	}{{mesh.HTTP, "127.0.0.1:8090", ""}, {mesh.H2C, "127.0.0.1:8091", ""}, {mesh.GRPC, "127.0.0.1:8092", "127.0.0.1:9092"}} {
		m, err := mesh.Start(mesh.Config{Transport: tc.tr})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { m.Close() })
		addrs[tc.http] = m.Addr()
		if tc.grpc != "" {
			if addrs[tc.grpc], err = m.ListenGRPC("127.0.0.1:0"); err != nil {
				t.Fatal(err)
			}
		}
	}
	block := section[strings.Index(section, "```sh\n")+6:]
	block = strings.ReplaceAll(block[:strings.Index(block, "```")], "\\\n", " ")
	runs := 0
	for line := range strings.Lines(block) {
		if !strings.HasPrefix(line, "rpcbench run ") {
			continue
		}
		runs++
		line = strings.ReplaceAll(line, `"limit":1000`, `"limit":20`)
		args := shellWords(t, strings.TrimSpace(line))[1:]
		for i, a := range args {
			if a == "--requests" {
				args[i+1] = "20"
			}
			for from, to := range addrs {
				args[i] = strings.Replace(args[i], from, to, 1)
			}
		}
		s := runJSON(t, args...)
		if len(s.Endpoints) != 2 {
			t.Fatalf("%s: %d endpoints; want rpc and static", line, len(s.Endpoints))
		}
		for _, e := range s.Endpoints {
			if e.Requests.OK == 0 || e.Requests.Errors != 0 {
				t.Errorf("%s: endpoint %s: ok %d, failed %d; want every request ok", line, e.Name, e.Requests.OK, e.Requests.Errors)
			}
		}
	}
	if runs != 3 {
		t.Errorf("found %d run commands in the MeshRPC section of %s; want 3, one per transport", runs, page)
	}
}
