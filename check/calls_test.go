package check

import (
	"fmt"
	"testing"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/transport"
)

// fmtCalls prints calls as "method:outcome[:code]" in order.
func fmtCalls(calls []result.Call) string {
	s := ""
	for i, c := range calls {
		if i > 0 {
			s += " "
		}
		s += c.Method + ":" + c.Outcome.String()
		if c.Outcome == result.CallError {
			s += fmt.Sprint(":", c.Code)
		}
	}
	return s
}

func TestVerifyDetailCalls(t *testing.T) {
	t.Parallel()
	batch := `[{"jsonrpc":"2.0","id":10,"method":"a"},{"jsonrpc":"2.0","id":11,"method":"b"},{"jsonrpc":"2.0","id":12,"method":"a"}]`
	for _, tc := range []struct {
		name, req, answer string
		status            int
		judge             bool
		class             result.Class
		want              string
	}{
		{"all results, in any order", batch, `[{"id":12,"result":1},{"id":10,"result":2},{"id":11,"result":3}]`, 200, true, result.OK, "a:ok b:ok a:ok"},
		{"one error by code", batch, `[{"id":10,"result":1},{"id":11,"error":{"code":-32602,"message":"invalid params"}},{"id":12,"result":3}]`, 200, true, result.Status, "a:ok b:error:-32602 a:ok"},
		{"two errors", batch, `[{"id":10,"error":{"code":-32601}},{"id":11,"result":null},{"id":12,"error":{"code":3}}]`, 200, true, result.Status, "a:error:-32601 b:ok a:error:3"},
		{"an error with a null id stands for no call", batch, `[{"id":10,"result":1},{"id":null,"error":{"code":-32700}},{"id":12,"result":3}]`, 200, true, result.Status, "a:ok b:unanswered a:ok"},
		{"an answer that is not the batch's: none answered", batch, `[{"id":10,"result":1},{"id":11,"result":2}]`, 200, true, result.Protocol, "a:unanswered b:unanswered a:unanswered"},
		{"one error for the whole batch", batch, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"too big"}}`, 200, true, result.Status, "a:unanswered b:unanswered a:unanswered"},
		{"a failing status", batch, `[{"id":10,"result":1},{"id":11,"result":2},{"id":12,"result":3}]`, 500, true, result.Status, "a:unanswered b:unanswered a:unanswered"},
		{"not judged: the request failed already", batch, ``, 0, false, result.OK, "a:unanswered b:unanswered a:unanswered"},
		{"a single call is no batch", `{"jsonrpc":"2.0","id":7,"method":"a"}`, `{"id":7,"result":1}`, 200, true, result.OK, ""},
		{"a method not among Methods", `[{"id":1,"method":"zz"},{"id":2}]`, `[{"id":1,"result":1},{"id":2,"result":2}]`, 200, true, result.OK, "zz:ok (no method):ok"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v := &Verifier{JSONRPC: true, Methods: []string{"a", "b"}}
			r := &transport.Request{Body: []byte(tc.req)}
			out := &transport.Outcome{Status: tc.status, Body: []byte(tc.answer), Answered: tc.judge}
			var d result.Detail
			cl, _ := v.VerifyDetail(r, out, tc.judge, &d)
			calls := d.Calls
			if got := fmtCalls(calls); got != tc.want || cl != tc.class {
				t.Errorf("got %q, class %v; want %q, class %v", got, cl, tc.want, tc.class)
			}
			if tc.judge {
				wcl, _ := v.Verify(r, out)
				if wcl != cl {
					t.Errorf("VerifyDetail judged %v, Verify %v; want the same", cl, wcl)
				}
			}
		})
	}
}

// Judging a batch call by call allocates nothing when its methods are among Methods and its calls
// are answered with results, as Verify does not.
func TestVerifyDetailCallsAllocs(t *testing.T) { // not parallel: AllocsPerRun
	v := &Verifier{JSONRPC: true, Methods: []string{"eth_blockNumber", "eth_chainId"}}
	r := &transport.Request{Body: []byte(`[{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"},{"jsonrpc":"2.0","id":2,"method":"eth_chainId"}]`)}
	out := &transport.Outcome{Status: 200, Answered: true, Body: []byte(`[{"jsonrpc":"2.0","id":2,"result":"0x1"},{"jsonrpc":"2.0","id":1,"result":"0x10"}]`)}
	d := result.Detail{Calls: make([]result.Call, 0, 8)}
	var cl result.Class
	allocs := testing.AllocsPerRun(100, func() {
		d.Reset()
		cl, _ = v.VerifyDetail(r, out, true, &d)
	})
	if allocs != 0 || cl != result.OK || fmtCalls(d.Calls) != "eth_blockNumber:ok eth_chainId:ok" {
		t.Errorf("got %v allocs, class %v, calls %q; want 0, OK, both ok", allocs, cl, fmtCalls(d.Calls))
	}
}
