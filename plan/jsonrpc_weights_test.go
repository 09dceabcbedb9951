package plan

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/rpcbench/rpcbench/transport"
)

// methodOf returns the method of the one call in body.
func methodOf(t *testing.T, body []byte) string {
	t.Helper()
	var c struct{ Method string }
	if err := json.Unmarshal(body, &c); err != nil {
		t.Fatalf("body %s: %v", body, err)
	}
	return c.Method
}

// Weights pick the calls in proportion: 9:1 by --weights over names, and a weight per line.
func TestJSONRPCWeights(t *testing.T) {
	t.Parallel()
	const n = 20000
	for _, tc := range []struct {
		name  string
		calls func(t *testing.T) []Call
	}{
		{"--weights by name", func(t *testing.T) []Call {
			calls := []Call{{Method: "eth_blockNumber"}, {Method: "eth_getBalance", Params: json.RawMessage(`["0x1","latest"]`)}}
			if err := WeighCalls(calls, map[string]float64{"eth_blockNumber": 9, "eth_getBalance": 1}); err != nil {
				t.Fatal(err)
			}
			return calls
		}},
		{"a weight per line", func(t *testing.T) []Call {
			calls, err := ParseCalls(strings.NewReader(`{"method":"eth_blockNumber","weight":4.5}
{"method":"eth_getBalance","params":["0x1","latest"],"weight":0.5}`), "calls.jsonl")
			if err != nil {
				t.Fatal(err)
			}
			return calls
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			src, eps := mustJSONRPC(t, tc.calls(t), 0)
			if eps[0].Weight/(eps[0].Weight+eps[1].Weight) != 0.9 {
				t.Errorf("endpoint weights %v and %v; want 9:1", eps[0].Weight, eps[1].Weight)
			}
			var r transport.Request
			got := map[string]int{}
			for i := range uint64(n) {
				if err := src.Fill(i, &r); err != nil {
					t.Fatal(err)
				}
				m := methodOf(t, r.Body)
				got[m]++
				if want := map[string]int{"eth_blockNumber": 0, "eth_getBalance": 1}[m]; r.Endpoint != want {
					t.Fatalf("%s went to endpoint %d; want %d", m, r.Endpoint, want)
				}
			}
			// 9 in 10 of 20,000: 18,000 ± 4 standard deviations (√(20,000·0.9·0.1) ≈ 42)
			if d := math.Abs(float64(got["eth_blockNumber"]) - 18000); d > 4*42 {
				t.Errorf("eth_blockNumber %d of %d; want 18,000 ± 168", got["eth_blockNumber"], n)
			}
		})
	}
}

// The calls of one name share its weight, as the targets of an endpoint do.
func TestWeighCallsSharesAName(t *testing.T) {
	t.Parallel()
	calls := []Call{{Method: "a"}, {Method: "b", Name: "x"}, {Method: "c", Name: "x"}}
	if err := WeighCalls(calls, map[string]float64{"a": 1, "x": 3}); err != nil {
		t.Fatal(err)
	}
	if calls[0].Weight != 1 || calls[1].Weight != 1.5 || calls[2].Weight != 1.5 {
		t.Errorf("weights %v, %v, %v; want 1, 1.5, 1.5", calls[0].Weight, calls[1].Weight, calls[2].Weight)
	}
}

func TestJSONRPCWeightErrors(t *testing.T) {
	t.Parallel()
	err := WeighCalls([]Call{{Method: "a"}, {Method: "b"}}, map[string]float64{"c": 1})
	if err == nil || !strings.Contains(err.Error(), `no call is named "c"; the calls are a, b`) {
		t.Errorf("unknown name: %v; want it named with the names there are", err)
	}
	_, err = JSONRPCEndpoints("http://127.0.0.1:1/", nil, []Call{{Method: "a", Weight: 1}, {Method: "b"}}, 0)
	if err == nil || !strings.Contains(err.Error(), "call 2 (b) has no weight") {
		t.Errorf("half weighted: %v; want call 2 named", err)
	}
	_, err = ParseCalls(strings.NewReader(`{"method":"a","weight":-1}`), "calls.jsonl")
	if err == nil || !strings.Contains(err.Error(), "calls.jsonl:1: weight -1") {
		t.Errorf("negative weight: %v; want file:line and the weight", err)
	}
}

// A weighted batch picks each of its calls by weight; the ids stay consecutive.
func TestJSONRPCWeightedBatch(t *testing.T) {
	t.Parallel()
	src, _ := mustJSONRPC(t, []Call{{Method: "a", Weight: 1}, {Method: "b", Weight: 1}}, 4)
	var r transport.Request
	seen := map[string]int{}
	for i := range uint64(500) {
		if err := src.Fill(i, &r); err != nil {
			t.Fatal(err)
		}
		var batch []struct {
			ID     uint64
			Method string
		}
		if err := json.Unmarshal(r.Body, &batch); err != nil || len(batch) != 4 {
			t.Fatalf("body %s: %v; want a batch of 4", r.Body, err)
		}
		for k, c := range batch {
			if c.ID != 4*i+uint64(k)+1 {
				t.Fatalf("batch %d call %d: id %d; want %d", i, k, c.ID, 4*i+uint64(k)+1)
			}
			seen[c.Method]++
		}
	}
	// 2,000 calls at 1:1: each 1,000 ± 4·√500 ≈ 89
	if math.Abs(float64(seen["a"])-1000) > 89 {
		t.Errorf("calls of a %d, of b %d; want 1,000 ± 89 each", seen["a"], seen["b"])
	}
}

func TestJSONRPCWeightedFillAllocs(t *testing.T) {
	src, _ := mustJSONRPC(t, []Call{{Method: "a", Weight: 9}, {Method: "b", Weight: 1}}, 0)
	var r transport.Request
	if err := src.Fill(0, &r); err != nil { // the sender's state is made once
		t.Fatal(err)
	}
	if a := testing.AllocsPerRun(1000, func() { _ = src.Fill(1, &r) }); a != 0 {
		t.Errorf("weighted Fill allocates %v times; want 0", a)
	}
}
