package cli

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rpcbench/rpcbench/serve/ethrpc"
)

// countingNode starts the built-in JSON-RPC node on loopback and counts the requests it gets.
func countingNode(t *testing.T) (url string, got *atomic.Int64) {
	t.Helper()
	got = new(atomic.Int64)
	s, err := ethrpc.New(context.Background(), ethrpc.Config{Blocks: 4, Wrap: func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			got.Add(1)
			h.ServeHTTP(w, r)
		})
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s.URL(), got
}

// A targets file written by gen from one node names that node's URL. A plan that runs it against
// two targets must not send the second target's runs to the first: it is refused before anything
// is sent, naming the file, its line and both hosts; with rewrite_host each target gets its own
// runs' requests, and the progress lines say so.
func TestBenchTargetsFileOfAnotherHost(t *testing.T) {
	t.Parallel()
	urlA, gotA := countingNode(t)
	urlB, gotB := countingNode(t)
	dir := t.TempDir()
	corpus := filepath.Join(dir, "corpus")
	if code, _, stderr := mainOut("gen", "ethereum", "--url", urlA, "--from", "1", "--to", "2", "--methods", "eth_getBlockByNumber", "--out", corpus); code != ExitOK {
		t.Fatalf("gen: exit %d\n%s", code, stderr)
	}
	gotA.Store(0) // the crawl's own requests
	plan := func(extra string) string {
		return writeFile(t, dir, "bench.yaml", "targets:\n  a: {url: "+urlA+"}\n  b: {url: "+urlB+"}\n"+
			"scenarios:\n  blocks:\n    targets_file: corpus/eth_getBlockByNumber.jsonl\n    requests: 4\n    connections: 1\n"+extra)
	}
	hostA, hostB := strings.TrimSuffix(urlA, "/"), strings.TrimSuffix(urlB, "/")

	code, _, stderr := mainOut("bench", "--quiet", "--out-dir", filepath.Join(dir, "refused"), plan(""))
	wantErr := "scenarios.blocks: against b: targets: " + filepath.Join(corpus, "eth_getBlockByNumber.jsonl") + ":1: " + urlA + " names " + hostA +
		", not the target's " + hostB + ": a run against a target goes to that target; write the path alone (\"POST /…\"), " +
		"or set rewrite_host: true to send the file's requests to each target's host"
	if code != ExitUsage || !strings.Contains(stderr, wantErr) {
		t.Errorf("a file of another host: exit %d, stderr:\n%s\nwant exit %d with:\n%s", code, stderr, ExitUsage, wantErr)
	}
	if a, b := gotA.Load(), gotB.Load(); a != 0 || b != 0 {
		t.Errorf("refused plan: %d requests reached a, %d b; want none", a, b)
	}

	code, _, stderr = mainOut("bench", "--out-dir", filepath.Join(dir, "rewritten"), plan("    rewrite_host: true\n"))
	if code != ExitOK {
		t.Fatalf("rewrite_host: exit %d\n%s", code, stderr)
	}
	if a, b := gotA.Load(), gotB.Load(); a != 4 || b != 4 {
		t.Errorf("rewrite_host: %d requests reached a, %d b; want 4 each (requests: 4 per target)", a, b)
	}
	note := "blocks on b: the URLs of " + filepath.Join(corpus, "eth_getBlockByNumber.jsonl") + " go to the scheme and host of " + urlB + " (rewrite_host)"
	if !strings.Contains(stderr, note) {
		t.Errorf("rewrite_host: the progress lines do not say where the requests go; want %q in:\n%s", note, stderr)
	}
}
