package ethrpc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

type jsonBlock struct {
	Number, Hash, ParentHash, Timestamp, GasUsed, GasLimit, BaseFeePerGas, Size string
	Miner, StateRoot, TransactionsRoot, ReceiptsRoot, LogsBloom, Sha3Uncles     string
	Transactions                                                                []json.RawMessage
	Uncles                                                                      []string
}

type jsonTx struct {
	Hash, BlockHash, BlockNumber, From, To, Value, Gas, GasPrice, Input, Nonce string
	TransactionIndex, Type, ChainID, V, R, S                                   string
}

func quantity(t *testing.T, what, s string) uint64 {
	t.Helper()
	if !quantityRE.MatchString(s) {
		t.Fatalf("%s %q is not a quantity (0x, lowercase hex, no leading zeros)", what, s)
	}
	v, _ := strconv.ParseUint(s[2:], 16, 64)
	return v
}

func data(t *testing.T, what, s string, n int) {
	t.Helper()
	if b, err := parseData(s); err != nil || (n >= 0 && len(b) != n) || s != strings.ToLower(s) {
		t.Errorf("%s %q: want 0x and %d lowercase hex bytes", what, s, n)
	}
}

func getBlock(t *testing.T, s *Server, tag string, full bool) (jsonBlock, json.RawMessage) {
	t.Helper()
	raw := callJSON(t, s, "eth_getBlockByNumber", fmt.Sprintf(`[%q,%v]`, tag, full))
	var b jsonBlock
	if err := json.Unmarshal(raw, &b); err != nil {
		t.Fatalf("block %s: %v: %s", tag, err, raw)
	}
	return b, raw
}

func TestSimpleMethods(t *testing.T) {
	t.Parallel()
	s := start(t, Config{Blocks: 300, ChainID: 5})
	tests := []struct{ method, want string }{
		{"eth_blockNumber", `"0x12b"`},
		{"eth_chainId", `"0x5"`},
		{"net_version", `"5"`},
		{"web3_clientVersion", `"` + ClientVersion + `"`},
	}
	for _, tt := range tests {
		for _, params := range []string{"[]", "null"} {
			if got := callJSON(t, s, tt.method, params); string(got) != tt.want {
				t.Errorf("%s %s: got %s; want %s", tt.method, params, got, tt.want)
			}
		}
	}
	_, body := post(t, s, `{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"}`)
	if a := decode(t, body); string(a.Result) != `"0x12b"` {
		t.Errorf("eth_blockNumber without params: got %s; want \"0x12b\"", body)
	}
}

func TestBlocks(t *testing.T) {
	t.Parallel()
	s := start(t, Config{Blocks: 100})
	prev, _ := getBlock(t, s, "earliest", false)
	if prev.Number != "0x0" || prev.ParentHash != "0x"+strings.Repeat("00", 32) || len(prev.Transactions) != 0 {
		t.Errorf("genesis: got number %s parent %s with %d txs; want 0x0, zero parent, no txs", prev.Number, prev.ParentHash, len(prev.Transactions))
	}
	txTotal := 0
	for n := uint64(1); n < 100; n++ {
		tag := "0x" + strconv.FormatUint(n, 16)
		b, raw := getBlock(t, s, tag, false)
		if got := quantity(t, "number", b.Number); got != n {
			t.Fatalf("block %s: number got %d; want %d", tag, got, n)
		}
		if b.Hash != s.BlockHash(n) || b.ParentHash != prev.Hash {
			t.Errorf("block %d: hash %s parent %s; want %s on top of %s", n, b.Hash, b.ParentHash, s.BlockHash(n), prev.Hash)
		}
		if d := quantity(t, "timestamp", b.Timestamp) - quantity(t, "timestamp", prev.Timestamp); d != blockInterval {
			t.Errorf("block %d: %d s after its parent; want %d", n, d, blockInterval)
		}
		if quantity(t, "gasUsed", b.GasUsed) > quantity(t, "gasLimit", b.GasLimit) {
			t.Errorf("block %d: gasUsed %s over gasLimit %s", n, b.GasUsed, b.GasLimit)
		}
		quantity(t, "baseFeePerGas", b.BaseFeePerGas)
		quantity(t, "size", b.Size)
		for what, v := range map[string]string{"miner": b.Miner, "stateRoot": b.StateRoot, "transactionsRoot": b.TransactionsRoot, "receiptsRoot": b.ReceiptsRoot, "sha3Uncles": b.Sha3Uncles} {
			size := 32
			if what == "miner" {
				size = 20
			}
			data(t, what, v, size)
		}
		data(t, "logsBloom", b.LogsBloom, 256)
		for _, h := range b.Transactions {
			var hs string
			if err := json.Unmarshal(h, &hs); err != nil {
				t.Fatalf("block %d without full txs: transaction %s is not a hash", n, h)
			}
			data(t, "tx hash", hs, 32)
		}
		txTotal += len(b.Transactions)
		byHash := callJSON(t, s, "eth_getBlockByHash", fmt.Sprintf(`[%q,false]`, b.Hash))
		if !bytes.Equal(byHash, raw) {
			t.Errorf("block %d by hash and by number differ:\n%s\n%s", n, byHash, raw)
		}
		prev = b
	}
	if avg := float64(txTotal) / 99; avg < 4 || avg > 12 {
		t.Errorf("got %.1f transactions per block on average; want about %d", avg, DefaultTxPerBlock)
	}
	latest, _ := getBlock(t, s, "latest", false)
	for _, tag := range []string{"pending", "safe", "finalized"} {
		if b, _ := getBlock(t, s, tag, false); b.Hash != latest.Hash {
			t.Errorf("%s: got block %s; want latest %s", tag, b.Number, latest.Number)
		}
	}
	for _, params := range []string{`["0x64",false]`, `["0xffffffffffffffff",true]`} {
		if got := callJSON(t, s, "eth_getBlockByNumber", params); string(got) != "null" {
			t.Errorf("block past the head %s: got %s; want null", params, got)
		}
	}
	if got := callJSON(t, s, "eth_getBlockByHash", `["0x`+strings.Repeat("ee", 32)+`",true]`); string(got) != "null" {
		t.Errorf("unknown block hash: got %s; want null", got)
	}
}

func TestTransactions(t *testing.T) {
	t.Parallel()
	s := start(t, Config{Blocks: 40})
	seen := 0
	for n := uint64(1); n < 40; n += 3 {
		b, _ := getBlock(t, s, "0x"+strconv.FormatUint(n, 16), true)
		for i, raw := range b.Transactions {
			var tx jsonTx
			if err := json.Unmarshal(raw, &tx); err != nil {
				t.Fatalf("full tx: %v: %s", err, raw)
			}
			if tx.BlockHash != b.Hash || tx.BlockNumber != b.Number || quantity(t, "transactionIndex", tx.TransactionIndex) != uint64(i) {
				t.Errorf("tx %s: block %s/%s index %s; want %s/%s index %d", tx.Hash, tx.BlockHash, tx.BlockNumber, tx.TransactionIndex, b.Hash, b.Number, i)
			}
			for what, v := range map[string]string{"value": tx.Value, "gas": tx.Gas, "gasPrice": tx.GasPrice, "nonce": tx.Nonce, "type": tx.Type, "chainId": tx.ChainID, "v": tx.V, "r": tx.R, "s": tx.S} {
				quantity(t, what, v)
			}
			data(t, "from", tx.From, 20)
			data(t, "to", tx.To, 20)
			data(t, "input", tx.Input, -1)
			if tx.Input == "0x" && tx.Gas != "0x5208" {
				t.Errorf("plain transfer %s: gas %s; want 0x5208", tx.Hash, tx.Gas)
			}
			byHash := callJSON(t, s, "eth_getTransactionByHash", fmt.Sprintf(`[%q]`, tx.Hash))
			if !bytes.Equal(byHash, raw) {
				t.Errorf("tx %s by hash differs from the block's:\n%s\n%s", tx.Hash, byHash, raw)
			}
			seen++
		}
	}
	if seen == 0 {
		t.Fatal("no transactions in 13 blocks")
	}
	if got := callJSON(t, s, "eth_getTransactionByHash", `["0x`+strings.Repeat("0f", 32)+`"]`); string(got) != "null" {
		t.Errorf("unknown tx: got %s; want null", got)
	}
}

func TestBalance(t *testing.T) {
	t.Parallel()
	s := start(t, Config{Blocks: 20})
	acct := `"` + string(appendData(nil, s.chain.accounts[0][:])) + `"`
	b5 := s.BlockHash(5)
	tests := []struct {
		name, params string
		zero, at5    bool
	}{
		{"account at latest", `[` + acct + `,"latest"]`, false, false},
		{"account at a number", `[` + acct + `,"0x5"]`, false, true},
		{"EIP-1898 number", `[` + acct + `,{"blockNumber":"0x5"}]`, false, true},
		{"EIP-1898 hash", `[` + acct + `,{"blockHash":"` + b5 + `"}]`, false, true},
		{"unknown address", `["0x` + strings.Repeat("12", 20) + `","latest"]`, true, false},
	}
	var at5 []string
	for _, tt := range tests {
		got := callJSON(t, s, "eth_getBalance", tt.params)
		var q string
		json.Unmarshal(got, &q) //nolint:errcheck // checked next
		if v := quantity(t, tt.name, q); (q == "0x0") != tt.zero {
			t.Errorf("%s: got %s (%d); want zero: %v", tt.name, q, v, tt.zero)
		}
		if tt.at5 {
			at5 = append(at5, q)
		}
	}
	if len(at5) != 3 || at5[0] != at5[1] || at5[1] != at5[2] {
		t.Errorf("block 5 by number, by EIP-1898 number and by hash: got %v; want the same balance", at5)
	}
}

func TestCallAndEstimate(t *testing.T) {
	t.Parallel()
	s := start(t, Config{Blocks: 20})
	token := firstToken(t, s)
	holder := strings.Repeat("00", 12) + strings.Repeat("ab", 20)
	eoa := `"` + string(appendData(nil, s.chain.accounts[1][:])) + `"`
	word := func(v uint64) string { return fmt.Sprintf(`"0x%064x"`, v) }
	calls := []struct {
		name, args, want string // want: exact result, or "word" for any 32-byte result
	}{
		{"decimals", `{"to":` + token + `,"data":"0x313ce567"}`, word(18)},
		{"decimals via input", `{"to":` + token + `,"input":"0x313ce567"}`, word(18)},
		{"data and input equal", `{"to":` + token + `,"input":"0x313ce567","data":"0x313ce567"}`, word(18)},
		{"transfer returns true", `{"to":` + token + `,"data":"0xa9059cbb` + holder + strings.Repeat("00", 31) + `01"}`, word(1)},
		{"balanceOf", `{"to":` + token + `,"data":"0x70a08231` + holder + `"}`, "word"},
		{"totalSupply", `{"to":` + token + `,"data":"0x18160ddd"}`, "word"},
		{"unknown selector: a hash", `{"to":` + token + `,"data":"0xdeadbeef"}`, "word"},
		{"no data: a hash", `{"to":` + token + `}`, "word"},
		{"symbol", `{"to":` + token + `,"data":"0x95d89b41"}`, `"0x` + fmt.Sprintf("%064x%064x", 32, 4) + fmt.Sprintf("%x", "SYN0") + strings.Repeat("00", 28) + `"`},
		{"an account without code", `{"from":` + eoa + `,"to":` + eoa + `,"value":"0xde0b6b3a7640000","data":"0x1234"}`, `"0x"`},
		{"creation", `{"data":"0x6080"}`, `"0x"`},
		{"big value", `{"to":` + eoa + `,"value":"0x` + "1" + strings.Repeat("0", 40) + `"}`, `"0x"`},
	}
	for _, c := range calls {
		got := string(callJSON(t, s, "eth_call", "["+c.args+`,"latest"]`))
		if c.want == "word" {
			if len(got) != 2+2+64 {
				t.Errorf("eth_call %s: got %s; want a 32-byte word", c.name, got)
			}
			continue
		}
		if got != c.want {
			t.Errorf("eth_call %s: got %s; want %s", c.name, got, c.want)
		}
	}
	a := callJSON(t, s, "eth_call", `[{"to":`+token+`,"data":"0xdeadbeef"},"0x3"]`)
	b := callJSON(t, s, "eth_call", `[{"to":`+token+`,"data":"0xdeadbeee"},"0x3"]`)
	if bytes.Equal(a, b) {
		t.Errorf("fallback of two call data: both %s; want different hashes", a)
	}

	estimates := []struct {
		name, args string
		want       uint64
	}{
		{"plain transfer", `{"to":` + eoa + `,"value":"0x1"}`, 21_000},
		{"data to an account: 16 per non-zero, 4 per zero byte", `{"to":` + eoa + `,"data":"0x0100"}`, 21_000 + 16 + 4},
		{"creation", `{"data":"0x60"}`, 21_000 + 16 + 32_000},
		{"token balanceOf", `{"to":` + token + `,"data":"0x70a08231` + holder + `"}`, 21_000 + 4*16 + 12*4 + 20*16 + 5_000 + 2_100},
		{"gas allowance enough", `{"to":` + eoa + `,"gas":"0x5208"}`, 21_000},
	}
	for _, e := range estimates {
		var q string
		json.Unmarshal(callJSON(t, s, "eth_estimateGas", "["+e.args+"]"), &q) //nolint:errcheck // checked by quantity
		if got := quantity(t, e.name, q); got != e.want {
			t.Errorf("eth_estimateGas %s: got %d; want %d", e.name, got, e.want)
		}
	}
}

func TestStorageRange(t *testing.T) {
	t.Parallel()
	s := start(t, Config{Blocks: 10})
	token := firstToken(t, s)
	type rangeResult struct {
		Storage map[string]struct{ Key, Value string }
		NextKey *string
	}
	get := func(start string, max int) rangeResult {
		raw := callJSON(t, s, "debug_storageRangeAt", fmt.Sprintf(`[%q,0,%s,%q,%d]`, s.BlockHash(4), token, start, max))
		var r rangeResult
		if err := json.Unmarshal(raw, &r); err != nil {
			t.Fatalf("storage range: %v: %s", err, raw)
		}
		return r
	}
	first := get("0x", 25)
	if len(first.Storage) != 25 || first.NextKey == nil || *first.NextKey != fmt.Sprintf("0x%064x", 25) {
		t.Fatalf("first page: got %d slots, nextKey %v; want 25 and slot 25", len(first.Storage), first.NextKey)
	}
	for h, kv := range first.Storage {
		data(t, "hashed key", h, 32)
		data(t, "key", kv.Key, 32)
		data(t, "value", kv.Value, 32)
	}
	second := get(*first.NextKey, 25)
	for h := range second.Storage {
		if _, dup := first.Storage[h]; dup {
			t.Errorf("slot %s on both pages; want disjoint pages", h)
		}
	}
	if len(second.Storage) != 25 {
		t.Errorf("second page: got %d slots; want 25", len(second.Storage))
	}
	slots := s.chain.storageSlots(0)
	last := get(fmt.Sprintf("0x%064x", slots-3), 10)
	if len(last.Storage) != 3 || last.NextKey != nil {
		t.Errorf("last page: got %d slots, nextKey %v; want 3 and null", len(last.Storage), last.NextKey)
	}
	past := get("0x01"+strings.Repeat("00", 31), 10)
	if len(past.Storage) != 0 || past.NextKey != nil {
		t.Errorf("start past every slot: got %d slots, nextKey %v; want none and null", len(past.Storage), past.NextKey)
	}
	raw := callJSON(t, s, "debug_storageRangeAt", fmt.Sprintf(`[%q,"0x0","0x%s","0x",10]`, s.BlockHash(4), strings.Repeat("cd", 20)))
	if string(raw) != `{"storage":{},"nextKey":null}` {
		t.Errorf("an address without storage: got %s; want no slots and a null nextKey", raw)
	}
}
