package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rpcbench/rpcbench/serve/ethrpc"
)

// diff --format html: two built-in nodes that differ in their chain length; the page shows the
// method that differs and the difference's path and both values.
func TestDiffHTML(t *testing.T) {
	t.Parallel()
	a := diffNode(t, ethrpc.Config{})
	b := diffNode(t, ethrpc.Config{Blocks: 5000})
	dir := t.TempDir()
	writeFile(t, dir, "calls.jsonl", `{"method":"eth_chainId"}
{"method":"eth_blockNumber"}
`)
	code, page, stderr := mainOut("diff", "--calls", filepath.Join(dir, "calls.jsonl"), "--format", "html", a, b)
	if code != ExitSLO {
		t.Fatalf("exit %d; want 1 (eth_blockNumber differs): %s", code, stderr)
	}
	for _, want := range []string{
		"<!DOCTYPE html>",
		"<title>rpcbench diff: 1 of 2 requests differ, 0 failed</title>",
		// eth_chainId: sent 1, equal 1, different 0; eth_blockNumber: sent 1, equal 0, different 1
		"<tr><td><code>eth_chainId</code></td><td>1</td><td>1</td><td>0</td><td>0</td><td>0</td></tr>",
		`<tr><td><code>eth_blockNumber</code></td><td>1</td><td>0</td><td class="bad">1</td><td>0</td><td>0</td></tr>`,
		// 10000 blocks (the last is 9999 = 0x270f) against 5000 (4999 = 0x1387)
		`<td>result</td><td>changed</td><td>&#34;0x270f&#34; <span class="hint">(string)</span></td><td>&#34;0x1387&#34; <span class="hint">(string)</span></td>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("no %q in the page:\n%s", want, page)
		}
	}
	if strings.Contains(page, "src=") || strings.Contains(page, "href=") {
		t.Error("the page loads something; want it self-contained")
	}
}
