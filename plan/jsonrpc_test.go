package plan

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/rpcbench/rpcbench/transport"
)

func mustJSONRPC(t testing.TB, calls []Call, batch int) (*JSONRPCSource, []Endpoint) {
	t.Helper()
	eps, err := JSONRPCEndpoints("http://127.0.0.1:8545/", nil, calls, batch)
	if err != nil {
		t.Fatal(err)
	}
	p := Plan{Endpoints: eps}.Normalized()
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	s, err := NewJSONRPCSource(p.Endpoints, calls, batch)
	if err != nil {
		t.Fatal(err)
	}
	return s, p.Endpoints
}

type rpcReq struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      uint64          `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

func TestJSONRPCSourceUniqueIDsConcurrently(t *testing.T) {
	t.Parallel()
	calls := []Call{{Method: "eth_blockNumber"}, {Method: "eth_getBalance", Params: json.RawMessage(`["0xab","latest"]`)}}
	s, eps := mustJSONRPC(t, calls, 1)
	if len(eps) != 2 || eps[0].Name != "eth_blockNumber" || eps[1].Name != "eth_getBalance" {
		t.Fatalf("endpoints %+v; want eth_blockNumber and eth_getBalance", eps)
	}
	const senders, each = 8, 500
	ids := make([][]uint64, senders)
	var wg sync.WaitGroup
	for g := range senders {
		wg.Go(func() {
			var r transport.Request
			for range each {
				if err := s.Fill(0, &r); err != nil {
					t.Error(err)
					return
				}
				var q rpcReq
				if err := json.Unmarshal(r.Body, &q); err != nil {
					t.Errorf("body %s: %v", r.Body, err)
					return
				}
				if q.JSONRPC != "2.0" || eps[r.Endpoint].Name != q.Method || r.Method != "POST" || string(r.Path) != "/" {
					t.Errorf("request %+v body %s: want a POST of 2.0 with the endpoint's method", r, r.Body)
				}
				ids[g] = append(ids[g], q.ID)
			}
		})
	}
	wg.Wait()
	seen := map[uint64]bool{}
	for _, l := range ids {
		for _, id := range l {
			if seen[id] {
				t.Fatalf("id %d sent twice", id)
			}
			seen[id] = true
		}
	}
	if got := len(seen); got != senders*each {
		t.Errorf("got %d distinct ids; want %d", got, senders*each)
	}
}

func TestJSONRPCSourceBatch(t *testing.T) {
	t.Parallel()
	calls := []Call{{Method: "a", Params: json.RawMessage(`[1]`)}, {Method: "b", Params: json.RawMessage(`{"x":2}`)}, {Method: "c"}}
	s, eps := mustJSONRPC(t, calls, 4)
	if len(eps) != 1 || eps[0].Name != "batch of 4" {
		t.Fatalf("endpoints %+v; want one named batch of 4", eps)
	}
	var r transport.Request
	var want uint64 = 1
	for range 3 {
		if err := s.Fill(0, &r); err != nil {
			t.Fatal(err)
		}
		var qs []rpcReq
		if err := json.Unmarshal(r.Body, &qs); err != nil {
			t.Fatalf("body %s: %v", r.Body, err)
		}
		if len(qs) != 4 {
			t.Fatalf("batch of %d; want 4", len(qs))
		}
		for _, q := range qs {
			if q.ID != want || q.Method != calls[(want-1)%3].Method {
				t.Errorf("call %+v; want id %d method %s", q, want, calls[(want-1)%3].Method)
			}
			want++
		}
	}
}

func TestJSONRPCEndpointsHeader(t *testing.T) {
	t.Parallel()
	eps, err := JSONRPCEndpoints("ws://127.0.0.1:1/", []transport.Header{{Name: "X-A", Value: "1"}}, []Call{{Method: "m"}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	h := eps[0].Header
	if len(h) != 2 || h[1] != (transport.Header{Name: "Content-Type", Value: "application/json"}) {
		t.Errorf("headers %v; want X-A then Content-Type: application/json", h)
	}
	if got, want := string(eps[0].Body), `{"jsonrpc":"2.0","id":1,"method":"m"}`; got != want {
		t.Errorf("body %s; want %s", got, want)
	}
	if err := (Plan{Endpoints: eps}).Validate(); err != nil {
		t.Errorf("a ws URL: %v; want it accepted", err)
	}
}

func TestParseCalls(t *testing.T) {
	t.Parallel()
	in := "# calls\n{\"method\":\"eth_blockNumber\"}\n\n{\"method\":\"eth_getBalance\",\"params\":[\"0x1\",\"latest\"],\"name\":\"balance\"}\n"
	calls, err := ParseCalls(strings.NewReader(in), "calls.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 2 || calls[1].Name != "balance" || string(calls[1].Params) != `["0x1","latest"]` {
		t.Errorf("calls %+v; want two, the second named balance", calls)
	}
	for _, tc := range []struct{ in, want string }{
		{"{\"method\":\"a\"}\n{\"method\":", "calls.jsonl:2:"},
		{"{\"params\":[]}", "calls.jsonl:1: no method"},
		{"{\"method\":\"a\",\"params\":5}", "want an array or an object"},
		{"{\"method\":\"a\",\"extra\":1}", "unknown field"},
		{"{\"method\":\"a\"} {\"method\":\"b\"}", "more than one JSON value"},
		{"\n# nothing\n", "no calls"},
	} {
		_, err := ParseCalls(strings.NewReader(tc.in), "calls.jsonl")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseCalls(%q) = %v; want an error containing %q", tc.in, err, tc.want)
		}
	}
}

func TestJSONRPCSourceFillAllocs(t *testing.T) {
	s, _ := mustJSONRPC(t, []Call{{Method: "eth_getBlockByNumber", Params: json.RawMessage(`["0x10",false]`)}}, 1)
	var r transport.Request
	_ = s.Fill(0, &r)
	if n := testing.AllocsPerRun(100, func() { _ = s.Fill(0, &r) }); n != 0 {
		t.Errorf("Fill allocates %v times per request; want 0", n)
	}
}

func TestJSONRPCTemplatedParams(t *testing.T) {
	calls := []Call{{Method: "eth_getBlockByNumber", Params: json.RawMessage(`[{{randInt 1 1000000}}, false, "{{seq}}"]`)}}
	s, _ := mustJSONRPC(t, calls, 1)
	var r transport.Request
	seen := map[string]bool{}
	for k := range 20 {
		if err := s.Fill(0, &r); err != nil {
			t.Fatal(err)
		}
		var q rpcReq
		if err := json.Unmarshal(r.Body, &q); err != nil {
			t.Fatalf("body %s: %v", r.Body, err)
		}
		var params []any
		if err := json.Unmarshal(q.Params, &params); err != nil || len(params) != 3 || params[2] != fmt.Sprint(k) {
			t.Fatalf("params %s: %v; want [N, false, \"%d\"]", q.Params, err, k)
		}
		seen[fmt.Sprint(params[0])] = true
	}
	if len(seen) < 15 {
		t.Errorf("20 calls drew %d distinct random ints; want nearly 20", len(seen))
	}
	if n := testing.AllocsPerRun(100, func() { _ = s.Fill(0, &r) }); n != 0 {
		t.Errorf("a templated Fill allocates %v times; want 0", n)
	}
	for _, bad := range []string{`[{{randInt 1}}]`, `[{{nosuch}}]`, `{{randInt 1 5}}`, `[{{.user}}]`, `[{{randString 4}}]`} {
		if err := (Call{Method: "m", Params: json.RawMessage(bad)}).Validate(); err == nil {
			t.Errorf("params %s: got no error; want one", bad)
		}
	}
}

func FuzzParseCalls(f *testing.F) {
	f.Add("{\"method\":\"eth_call\",\"params\":[{\"to\":\"0x1\"},\"latest\"],\"name\":\"call\"}\n")
	f.Add("# c\n{\"method\":\"a\"}\n{\"method\":\"b\",\"params\":{}}")
	f.Add("{\"method\":\"\"}")
	f.Fuzz(func(t *testing.T, in string) {
		calls, err := ParseCalls(strings.NewReader(in), "f")
		if err != nil {
			return
		}
		s, eps := mustJSONRPC(t, calls, 2)
		var r transport.Request
		for range 3 {
			if err := s.Fill(0, &r); err != nil || !json.Valid(r.Body) || r.Endpoint >= len(eps) {
				t.Fatalf("Fill: %v, body %q, endpoint %d of %d", err, r.Body, r.Endpoint, len(eps))
			}
		}
	})
}

func BenchmarkJSONRPCFill(b *testing.B) {
	for _, batch := range []int{1, 10} {
		b.Run(fmt.Sprint("batch=", batch), func(b *testing.B) {
			s, _ := mustJSONRPC(b, []Call{{Method: "eth_getBlockByNumber", Params: json.RawMessage(`["0x10",false]`)}}, batch)
			var r transport.Request
			b.ReportAllocs()
			for b.Loop() {
				_ = s.Fill(0, &r)
			}
		})
	}
}
