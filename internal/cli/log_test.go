package cli

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rpcbench/rpcbench/serve/ethrpc"
)

// run --log writes one row per measured request, by endpoint, beside the report's counts; it may
// not be another output.
func TestRunRequestLog(t *testing.T) {
	t.Parallel()
	url := diffNode(t, ethrpc.Config{Blocks: 100})
	path := filepath.Join(t.TempDir(), "requests.csv")
	code, stdout, stderr := mainOut("run", "--calls", filepath.Join("..", "..", "examples", "calls.jsonl"), "--rate", "1000",
		"--requests", "60", "--log", path, url)
	if code != ExitOK {
		t.Fatalf("exit %d:\n%s%s", code, stdout, stderr)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 61 || strings.Join(rows[0], ",") != "id,endpoint,intended,sent,latency_ms,service_ms,status,class" {
		t.Fatalf("got %d rows, header %q; want the header and 60 rows", len(rows), rows[0])
	}
	per := map[string]int{}
	for _, r := range rows[1:] {
		per[r[1]+" "+r[6]+" "+r[7]]++
	}
	// examples/calls.jsonl holds two calls, taken in turn
	if per["eth_blockNumber 200 ok"] != 30 || per["block 200 ok"] != 30 {
		t.Errorf("rows by endpoint, status and class: %v; want 30 eth_blockNumber and 30 block, all 200 ok", per)
	}
	code, _, stderr = mainOut("run", "--jsonrpc", "eth_chainId", "--requests", "1", "--log", path, "--out", path, url)
	if code != ExitUsage || !strings.Contains(stderr, "--log "+path+" is also --out") {
		t.Errorf("--log and --out one file: exit %d, %s; want 2, a refusal", code, stderr)
	}
}
