package check

import (
	"encoding/json"
	"testing"

	"github.com/rpcbench/rpcbench/result"
)

func TestVerifyJSONRPC(t *testing.T) {
	t.Parallel()
	one := `{"jsonrpc":"2.0","id":7,"method":"eth_blockNumber"}`
	batch := `[{"jsonrpc":"2.0","id":10,"method":"a"},{"jsonrpc":"2.0","id":11,"method":"b"},{"jsonrpc":"2.0","id":12,"method":"c"}]`
	for _, tc := range []struct {
		name, req, answer string
		class             result.Class
		msg               string
	}{
		{"result", one, `{"jsonrpc":"2.0","id":7,"result":"0x10"}`, result.OK, ""},
		{"result null is a result", one, `{"jsonrpc":"2.0","id":7,"result":null}`, result.OK, ""},
		{"error by code", one, `{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"Method not found"}}`, result.Status, "jsonrpc -32601 Method not found"},
		{"error without message", one, `{"jsonrpc":"2.0","id":7,"error":{"code":3}}`, result.Status, "jsonrpc 3"},
		{"error message normalised", one, `{"id":7,"error":{"code":-32000,"message":"block 1234 not found"}}`, result.Status, "jsonrpc -32000 block N not found"},
		{"error with a bad code", one, `{"id":7,"error":{"code":"x"}}`, result.Status, "jsonrpc: error member without an integer code"},
		{"parse error with id null", one, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`, result.Status, "jsonrpc -32700 Parse error"},
		{"id mismatch", one, `{"jsonrpc":"2.0","id":8,"result":"0x10"}`, result.Protocol, "jsonrpc: answer id does not match the request"},
		{"string id", one, `{"jsonrpc":"2.0","id":"7","result":"0x10"}`, result.Protocol, "jsonrpc: answer id does not match the request"},
		{"null id and no error", one, `{"jsonrpc":"2.0","id":null,"result":1}`, result.Protocol, "jsonrpc: answer id is null without an error"},
		{"neither result nor error", one, `{"jsonrpc":"2.0","id":7}`, result.Protocol, "jsonrpc: answer has neither result nor error"},
		{"not JSON", one, `<html>`, result.Protocol, "jsonrpc: answer is not a JSON object or array"},
		{"truncated", one, `{"jsonrpc":"2.0","id":7,"result":"0x1`, result.Protocol, "jsonrpc: answer is not a JSON object or array"},
		{"trailing bytes", one, `{"id":7,"result":1} x`, result.Protocol, "jsonrpc: answer is not a JSON object or array"},
		{"batch with trailing bytes", `[{"id":2}]`, `[{"id":2,"result":1}]0`, result.Protocol, "jsonrpc: answer is not a JSON object or array"},
		{"batch for one", one, `[{"id":7,"result":1}]`, result.Protocol, "jsonrpc: batch answer to a single call"},
		{"batch in any order", batch, `[{"id":12,"result":1},{"id":10,"result":2},{"id":11,"result":3}]`, result.OK, ""},
		{"batch with an error", batch, `[{"id":10,"result":1},{"id":11,"error":{"code":-32602,"message":"invalid params"}},{"id":12,"result":3}]`, result.Status, "jsonrpc -32602 invalid params"},
		{"batch missing an id", batch, `[{"id":10,"result":1},{"id":11,"result":2}]`, result.Protocol, "jsonrpc: batch answer lacks ids of the batch"},
		{"batch with an extra id", batch, `[{"id":10,"result":1},{"id":11,"result":2},{"id":12,"result":3},{"id":13,"result":4}]`, result.Protocol, "jsonrpc: batch answer with an id not in the batch"},
		{"batch with a null id for a result", batch, `[{"id":10,"result":1},{"id":null,"result":2},{"id":12,"result":3}]`, result.Protocol, "jsonrpc: answer id is null without an error"},
		{"batch with an answer without id", batch, `[{"id":10,"result":1},{"result":2},{"id":12,"result":3}]`, result.Protocol, "jsonrpc: answer id is null without an error"},
		{"batch with a null-id error", batch, `[{"id":10,"result":1},{"id":null,"error":{"code":-32700,"message":"parse error"}},{"id":12,"result":3}]`, result.Status, "jsonrpc -32700 parse error"},
		{"batch with an id twice", batch, `[{"id":10,"result":1},{"id":10,"result":2},{"id":12,"result":3}]`, result.Protocol, "jsonrpc: batch answer with an id twice"},
		{"a batch rejected whole", batch, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batch too large"}}`, result.Status, "jsonrpc -32600 batch too large"},
		{"one for a batch", batch, `{"id":10,"result":1}`, result.Protocol, "jsonrpc: single answer to a batch"},
		{"batch of non-consecutive ids", `[{"id":5,"method":"a"},{"id":2,"method":"b"}]`, `[{"id":2,"result":1},{"id":5,"result":2}]`, result.OK, ""},
	} {
		cl, err := VerifyJSONRPC([]byte(tc.req), []byte(tc.answer))
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if cl != tc.class || msg != tc.msg {
			t.Errorf("%s: got %v %q; want %v %q", tc.name, cl, msg, tc.class, tc.msg)
		}
	}
}

func FuzzVerifyJSONRPC(f *testing.F) {
	f.Add([]byte(`{"id":1,"method":"a"}`), []byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}`))
	f.Add([]byte(`[{"id":1},{"id":2}]`), []byte(`[{"id":2,"result":[1,{"a":"\u00e9"}]},{"id":1,"result":null}]`))
	f.Add([]byte(`{"id":1}`), []byte(`{"id":1,"result":`))
	f.Fuzz(func(t *testing.T, req, answer []byte) {
		cl, err := VerifyJSONRPC(req, answer)
		if (cl == result.OK) != (err == nil) {
			t.Fatalf("VerifyJSONRPC(%q, %q) = %v, %v: a failure needs a message and a success none", req, answer, cl, err)
		}
		if cl == result.OK && !json.Valid(answer) {
			t.Fatalf("VerifyJSONRPC(%q, %q) accepted malformed JSON", req, answer)
		}
	})
}

var benchAnswer = []byte(`{"jsonrpc":"2.0","id":123456,"result":{"number":"0x1b4","hash":"0xdc0818cf78f21a8e70579cb46a43643f78291264dda342ae31049421c82d21ae","parentHash":"0xe99e022112df268087ea7eafaf4790497fd21dbeeb6bd7a1721df161a6657a54","transactions":["0x1","0x2","0x3"],"gasUsed":"0x9f759"}}`)
var benchRequest = []byte(`{"jsonrpc":"2.0","id":123456,"method":"eth_getBlockByNumber","params":["0x1b4",false]}`)

// BenchmarkVerifyJSONRPC measures the scanner on a typical answer; BenchmarkVerifyJSONRPCStdlib
// does the same judgement with encoding/json, for comparison.
func BenchmarkVerifyJSONRPC(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(benchAnswer)))
	for b.Loop() {
		if cl, err := VerifyJSONRPC(benchRequest, benchAnswer); cl != result.OK {
			b.Fatal(cl, err)
		}
	}
}

func BenchmarkVerifyJSONRPCStdlib(b *testing.B) {
	type answer struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(benchAnswer)))
	for b.Loop() {
		var q, a answer
		if json.Unmarshal(benchRequest, &q) != nil || json.Unmarshal(benchAnswer, &a) != nil || string(a.ID) != string(q.ID) || a.Error != nil {
			b.Fatal("bad")
		}
	}
}
