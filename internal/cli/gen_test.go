package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rpcbench/rpcbench/serve/ethrpc"
)

// gen writes a corpus that run and diff read as printed, and refuses bad flags with exit 2.
func TestGenEthereum(t *testing.T) {
	t.Parallel()
	a := diffNode(t, ethrpc.Config{Seed: 7, Blocks: 10, TxPerBlock: 3})
	dir := filepath.Join(t.TempDir(), "corpus")
	code, stdout, stderr := mainOut("gen", "ethereum", "--url", a, "--from", "2", "--to", "9", "--rate", "1000",
		"--methods", "eth_getBlockByNumber,eth_getBalance,eth_call,eth_getLogs,debug_storageRangeAt", "--storage-page-size", "16", "--out", dir)
	// blocks 2 to 9 of seed 7 hold 17 transactions, 4 of them token transfers to 4 tokens in their
	// blocks; no account is met twice in a block (see the gen package's test)
	for _, want := range []string{"blocks 2 to 9, 8 of 8 written", "eth_getBlockByNumber  8 ", "eth_getBalance        34 ",
		"eth_call              4 ", "debug_storageRangeAt  8 ", "eth_getLogs (error -32601: the method eth_getLogs does not exist/is not available)"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("exit %d; got no %q in:\n%s%s", code, want, stdout, stderr)
		}
	}
	if code != ExitOK {
		t.Fatalf("exit %d; want 0:\n%s%s", code, stdout, stderr)
	}
	b := diffNode(t, ethrpc.Config{Seed: 7, Blocks: 10, TxPerBlock: 3})
	code, stdout, stderr = mainOut("diff", "--targets", filepath.Join(dir, "eth_getBalance.jsonl"), "--format", "json", a, b)
	var rep struct{ Requests, Different int }
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil || code != ExitOK || rep.Requests != 34 || rep.Different != 0 {
		t.Errorf("diff --targets eth_getBalance.jsonl on two alike nodes: exit %d, %+v, %v; want 34 requests, all equal:\n%s%s", code, rep, err, stdout, stderr)
	}
	code, stdout, stderr = mainOut("run", "--calls", filepath.Join(dir, "eth_call.calls.jsonl"), "--requests", "8", "--rate", "1000", "--format", "json", a)
	if code != ExitOK || !strings.Contains(stdout, `"eth_call"`) {
		t.Errorf("run --calls eth_call.calls.jsonl: exit %d:\n%s%s", code, stdout, stderr)
	}
	code, _, stderr = mainOut("gen", "ethereum", "--url", a, "--from", "2", "--to", "9", "--out", dir)
	if code != ExitUsage || !strings.Contains(stderr, "holds a crawl") {
		t.Errorf("gen into a crawl's directory without --resume: exit %d, %s; want 2", code, stderr)
	}
	code, stdout, _ = mainOut("gen", "ethereum", "--url", a, "--from", "2", "--to", "9", "--rate", "1000",
		"--methods", "eth_getBlockByNumber,eth_getBalance,eth_call,eth_getLogs,debug_storageRangeAt", "--storage-page-size", "16", "--out", dir, "--resume")
	if code != ExitOK || !strings.Contains(stdout, "8 of 8 written; 57 requests sent") {
		t.Errorf("--resume of a finished crawl: exit %d; want 0 and nothing more sent than eth_blockNumber:\n%s", code, stdout)
	}
	if _, err := os.Stat(filepath.Join(dir, "eth_getLogs.jsonl")); err == nil {
		t.Errorf("eth_getLogs.jsonl written; want no file for a method the node does not have")
	}
}

func TestGenBadFlags(t *testing.T) {
	t.Parallel()
	runCLICases(t, []string{"gen"}, []cliCase{
		{"no kind", []string{"--url", "http://127.0.0.1:1/", "--out", "x"}, ExitUsage, nil, []string{"want a kind of node"}},
		{"other kind", []string{"bitcoin", "--url", "http://127.0.0.1:1/", "--out", "x"}, ExitUsage, nil, []string{`"bitcoin": want ethereum or jsonrpc`}},
		{"no url", []string{"ethereum", "--out", "x"}, ExitUsage, nil, []string{"--url: want the node's URL"}},
		{"ws url", []string{"ethereum", "--url", "ws://127.0.0.1:1/", "--out", "x"}, ExitUsage, nil, []string{`--url "ws://127.0.0.1:1/": want http://`}},
		{"no out", []string{"ethereum", "--url", "http://127.0.0.1:1/"}, ExitUsage, nil, []string{"--out: want the directory"}},
		{"to before from", []string{"ethereum", "--url", "http://127.0.0.1:1/", "--out", "x", "--from", "9", "--to", "3"}, ExitUsage, nil, []string{"--to 3 is before --from 9"}},
		{"bad to", []string{"ethereum", "--url", "http://127.0.0.1:1/", "--out", "x", "--to", "soon"}, ExitUsage, nil, []string{`--to "soon": want a block number or latest`}},
		{"bad from", []string{"ethereum", "--url", "http://127.0.0.1:1/", "--out", "x", "--from", "-1"}, ExitUsage, nil, []string{"-from"}},
		{"unknown method", []string{"ethereum", "--url", "http://127.0.0.1:1/", "--out", "x", "--methods", "eth_getBalance,eth_nope"}, ExitUsage, nil, []string{`--methods: method "eth_nope": want one of eth_blockNumber`}},
		{"resume nothing", []string{"ethereum", "--url", "http://127.0.0.1:1/", "--out", "testdata", "--resume"}, ExitUsage, nil, []string{"holds no crawl to resume"}},
	})
}

// gen jsonrpc makes the calls of the example steps file, as docs/diff-and-corpora.md prints it, against the
// node of that page (serve jsonrpc's defaults); bad steps files are usage errors with their line.
func TestGenJSONRPC(t *testing.T) {
	t.Parallel()
	a := diffNode(t, ethrpc.Config{})
	dir := filepath.Join(t.TempDir(), "corpus")
	steps := filepath.Join("..", "..", "examples", "gen", "steps.yaml")
	code, stdout, stderr := mainOut("gen", "jsonrpc", "--url", a, "--steps", steps, "--rate", "2000", "--out", dir)
	// blocks 1 to 20 of seed 0 hold 207 transactions (as the gen ethereum summary of docs/diff-and-corpora.md says):
	// the head, the head block and 20 more, 207 transactions, the first 50 senders' balances
	for _, want := range []string{"steps 1 to 5, 5 of 5 written; 279 requests sent, 279 written",
		"eth_blockNumber           1 ", "eth_getBlockByNumber      21 ", "eth_getTransactionByHash  207 ", "eth_getBalance            50 "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("exit %d; got no %q in:\n%s%s", code, want, stdout, stderr)
		}
	}
	if code != ExitOK {
		t.Fatalf("exit %d; want 0:\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = mainOut("run", "--targets", filepath.Join(dir, "eth_getTransactionByHash.jsonl"), "--requests", "20", "--rate", "1000", "--format", "json")
	if code != ExitOK || !strings.Contains(stdout, `"requests": 20`) {
		t.Errorf("run --targets eth_getTransactionByHash.jsonl: exit %d:\n%s%s", code, stdout, stderr)
	}
	b := diffNode(t, ethrpc.Config{})
	code, stdout, stderr = mainOut("diff", "--calls", filepath.Join(dir, "eth_getBalance.calls.jsonl"), "--format", "json", a, b)
	var rep struct{ Requests, Different int }
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil || code != ExitOK || rep.Requests != 50 || rep.Different != 0 {
		t.Errorf("diff --calls eth_getBalance.calls.jsonl on two alike nodes: exit %d, %+v, %v; want 50 requests, all equal:\n%s%s", code, rep, err, stdout, stderr)
	}

	bad := t.TempDir()
	writeFile(t, bad, "steps.yaml", "- method: eth_blockNumber\n- method: eth_getBlockByNumber\n  params: [\"{{head.result}}\", false]\n")
	writeFile(t, bad, "steps.json", "[{\"method\": \"eth_blockNumber\"},\n {\"method\": \"x\", \"for_each\": 7}]\n")
	badSteps := filepath.Join(bad, "steps.yaml")
	runCLICases(t, []string{"gen", "jsonrpc"}, []cliCase{
		{"unknown step", []string{"--url", a, "--steps", badSteps, "--out", filepath.Join(bad, "o1")}, ExitUsage, nil,
			[]string{badSteps + `:3:12: "{{head.result}}": no earlier step is named head (want item or one of the steps before: eth_blockNumber)`}},
		{"json", []string{"--url", a, "--steps", filepath.Join(bad, "steps.json"), "--out", filepath.Join(bad, "o2")}, ExitUsage, nil,
			[]string{filepath.Join(bad, "steps.json") + `:2:30: for_each: want "{{STEP.PATH}}"`}},
		{"no steps", []string{"--url", a, "--out", "x"}, ExitUsage, nil, []string{"--steps: want the steps file"}},
		{"missing file", []string{"--url", a, "--steps", filepath.Join(bad, "nope.yaml"), "--out", "x"}, ExitUsage, nil, []string{"--steps: open"}},
		{"ethereum flags", []string{"--url", a, "--steps", steps, "--out", "x", "--from", "3", "--resume"}, ExitUsage, nil, []string{"--from, --resume: for gen ethereum only"}},
		{"same dir", []string{"--url", a, "--steps", steps, "--out", dir}, ExitUsage, nil, []string{"holds a crawl (of kind jsonrpc)"}},
	})
	code, _, stderr = mainOut("gen", "ethereum", "--url", a, "--steps", steps, "--out", "x")
	if code != ExitUsage || !strings.Contains(stderr, "--steps: for gen jsonrpc only") {
		t.Errorf("gen ethereum --steps: exit %d, %s; want 2", code, stderr)
	}
}
