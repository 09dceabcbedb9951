package cli

import (
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rpcbench/rpcbench/serve/ethrpc"
	"github.com/rpcbench/rpcbench/summary"
)

// A batch of mixed methods against the built-in node: the result file keeps each method's calls,
// and the text, JSON and Markdown reports give them. 10 batches of 3 calls taken in turn: 10 of each
// method; eth_nope is answered -32601 every time.
func TestRunBatchCallsPerMethod(t *testing.T) {
	t.Parallel()
	node, err := ethrpc.New(context.Background(), ethrpc.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { node.Close() })
	dir := t.TempDir()
	calls := writeFile(t, dir, "calls.jsonl", `{"method":"eth_blockNumber"}
{"method":"eth_chainId"}
{"method":"eth_nope"}
`)
	rb := filepath.Join(dir, "run.rb")
	if code, _, stderr := mainOut("run", "--calls", calls, "--batch", "3", "--requests", "10", "--connections", "1", "--quiet", "--out", rb, node.URL()); code != ExitSLO {
		t.Fatalf("run: exit %d; want 1 (every batch holds a failing call); stderr %s", code, stderr)
	}
	code, out, stderr := mainOut("report", "--format", "json", rb)
	if code != ExitOK {
		t.Fatalf("report json: exit %d; stderr %s", code, stderr)
	}
	var s summary.Summary
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(s.Calls)
	want := `[{"method":"eth_blockNumber","calls":10,"ok":10,"throughput_cps":T},{"method":"eth_chainId","calls":10,"ok":10,"throughput_cps":T},` +
		`{"method":"eth_nope","calls":10,"ok":0,"errors":{"-32601":10},"throughput_cps":T}]`
	if g := regexp.MustCompile(`"throughput_cps":[0-9.e+]+`).ReplaceAllString(string(got), `"throughput_cps":T`); g != want {
		t.Errorf("JSON calls:\ngot  %s\nwant %s", g, want)
	}
	code, out, stderr = mainOut("report", rb)
	if code != ExitOK {
		t.Fatalf("report: exit %d; stderr %s", code, stderr)
	}
	for _, row := range []string{`(?m)^  eth_blockNumber +10 +10 +0 +0 +[0-9.]+ *$`, `(?m)^  eth_nope +10 +0 +10 \(-32601: 10\) +0 +[0-9.]+ *$`,
		`JSON-RPC calls \(each call inside a batch, by method; a call's latency is its batch's`} {
		if !regexp.MustCompile(row).MatchString(out) {
			t.Errorf("text report lacks %s:\n%s", row, out)
		}
	}
	code, out, stderr = mainOut("report", "--format", "markdown", rb)
	if code != ExitOK {
		t.Fatalf("report markdown: exit %d; stderr %s", code, stderr)
	}
	if !regexp.MustCompile(`\| eth_nope \| 10 \| 0 \| 10 \(-32601: 10\) \| 0 \| [0-9.]+ \|`).MatchString(out) || !strings.Contains(out, "| method | calls | ok | errors | unanswered | calls/s |") {
		t.Errorf("Markdown report lacks the calls table:\n%s", out)
	}
}
