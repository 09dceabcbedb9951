// Package e2e is the end-to-end suite of write-up (d): it checks the JSON-RPC node at
// $RPCBENCH_TARGET_URL (the built-in node, started in-process when the variable is not set, as
// under go test ./...). jsonrpc-impls.yaml runs it against each implementation with
// `go test -json` and reports its wall time and pass/fail counts side by side.
package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/rpcbench/rpcbench/serve/ethrpc"
)

func target(t *testing.T) string {
	t.Helper()
	if u := os.Getenv("RPCBENCH_TARGET_URL"); u != "" {
		return u
	}
	s, err := ethrpc.New(context.Background(), ethrpc.Config{Blocks: 100})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s.URL()
}

// call sends one JSON-RPC call and returns its result; an error answer fails the test.
func call(t *testing.T, method string, params ...any) json.RawMessage {
	t.Helper()
	if params == nil {
		params = []any{}
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	resp, err := http.Post(target(t), "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Result json.RawMessage
		Error  *struct {
			Code    int
			Message string
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	if out.Error != nil {
		t.Fatalf("%s: error %d %s", method, out.Error.Code, out.Error.Message)
	}
	return out.Result
}

func TestBlockNumberIsHex(t *testing.T) {
	t.Parallel()
	var n string
	json.Unmarshal(call(t, "eth_blockNumber"), &n)
	if !strings.HasPrefix(n, "0x") || len(n) < 3 {
		t.Errorf("eth_blockNumber: got %q; want a hex quantity", n)
	}
}

func TestBlockByNumberHasItsNumber(t *testing.T) {
	t.Parallel()
	var b struct{ Number, Hash string }
	json.Unmarshal(call(t, "eth_getBlockByNumber", "0x1", false), &b)
	if b.Number != "0x1" || len(b.Hash) != 66 {
		t.Errorf("eth_getBlockByNumber 0x1: number %q, hash %q; want 0x1 and a 32-byte hash", b.Number, b.Hash)
	}
}

func TestChainIDAnswers(t *testing.T) {
	t.Parallel()
	var id string
	json.Unmarshal(call(t, "eth_chainId"), &id)
	if !strings.HasPrefix(id, "0x") {
		t.Errorf("eth_chainId: got %q; want a hex quantity", id)
	}
}

func TestBalanceOfAnyAddress(t *testing.T) {
	t.Parallel()
	var bal string
	json.Unmarshal(call(t, "eth_getBalance", "0x00000000000000000000000000000000000000aa", "latest"), &bal)
	if !strings.HasPrefix(bal, "0x") {
		t.Errorf("eth_getBalance: got %q; want a hex quantity", bal)
	}
}
