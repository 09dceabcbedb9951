package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/rpcbench/rpcbench/engine"
	"github.com/rpcbench/rpcbench/output"
	"github.com/rpcbench/rpcbench/report"
	"github.com/rpcbench/rpcbench/summary"
)

// batchNode starts a JSON-RPC server on loopback that answers every call (one object or an array)
// and counts, per request, how many calls it held: it returns the counts since the last call.
func batchNode(t *testing.T) (string, func() []int) {
	t.Helper()
	var mu sync.Mutex
	var sizes []int
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var calls []struct {
			ID json.RawMessage `json:"id"`
		}
		batch := bytes.HasPrefix(bytes.TrimSpace(b), []byte("["))
		if !batch {
			b = append(append([]byte("["), b...), ']')
		}
		if err := json.Unmarshal(b, &calls); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		sizes = append(sizes, len(calls))
		mu.Unlock()
		answers := make([]string, len(calls))
		for i, c := range calls {
			answers[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":"0x1"}`, c.ID)
		}
		w.Header().Set("Content-Type", "application/json")
		if batch {
			io.WriteString(w, "["+strings.Join(answers, ",")+"]")
		} else {
			io.WriteString(w, answers[0])
		}
	}))
	t.Cleanup(s.Close)
	return s.URL + "/", func() []int {
		mu.Lock()
		defer mu.Unlock()
		out := sizes
		sizes = nil
		return out
	}
}

// TestRunSweep runs a scenario with sweep: {batch: …}: each value is a run of its own against each
// target, whose requests carry that many calls each, and the report puts the values side by side.
func TestRunSweep(t *testing.T) {
	t.Parallel()
	a, sizes := batchNode(t)
	b, _ := batchNode(t)
	bench := readBench(t, t.TempDir(), fmt.Sprintf(`targets:
  a: {url: %q}
  b: {url: %q}
scenarios:
  batch:
    connections: 1
    requests: 6
    sweep: {batch: [1, 4]}
    jsonrpc:
      calls:
        - {method: eth_blockNumber}
        - {method: eth_chainId}
`, a, b))
	var observed []string
	seen := map[string][]int{}
	out, err := Run(context.Background(), bench, Options{
		Outputs: func(id RunID) output.Set {
			return output.Set{&probe{
				start: func(output.Run) { observed = append(observed, id.Level+"/"+id.Target) },
				stop: func(*engine.Result, *summary.Summary) {
					if id.Target == "a" {
						seen[id.Level] = sizes()
					}
				},
			}}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := "batch 1/a batch 1/b batch 4/a batch 4/b"; strings.Join(observed, " ") != want {
		t.Errorf("runs: %v; want %s", observed, want)
	}
	// what target a got in each of its runs: 6 requests, each of 1 call, then each of 4
	for level, want := range map[string]string{"batch 1": "[1 1 1 1 1 1]", "batch 4": "[4 4 4 4 4 4]"} {
		if got := fmt.Sprint(seen[level]); got != want {
			t.Errorf("%s: target a got requests of %s calls; want %s", level, got, want)
		}
	}
	for _, m := range out.Runs {
		if m.Err != nil || m.Summary.Requests.Sent != 6 {
			t.Fatalf("%s: %v; want 6 requests", m.RunID, m.Err)
		}
	}
	for format, want := range map[string][]string{
		"markdown": {"## batch · step 1/2: batch 1", "## batch · step 2/2: batch 4", "## batch: batch swept",
			"batch swept, side by side (one step per value of batch)", "| step | figure | a | b | vs a |", "| batch 1 | throughput |", "| batch 4 | throughput |"},
		"html": {"<h2>batch: batch swept</h2>", "<td>batch 4</td>"},
	} {
		var doc bytes.Buffer
		if err := Render(&doc, out, format, report.Options{}); err != nil {
			t.Fatal(err)
		}
		for _, w := range want {
			if !strings.Contains(doc.String(), w) {
				t.Errorf("%s report lacks %q:\n%s", format, w, doc.String())
			}
		}
	}
}

// A scenario of several steps that sends a mix has, after its steps, a table of each endpoint at
// each step side by side: a row group per step and endpoint.
func TestMethodsOverSteps(t *testing.T) {
	t.Parallel()
	a, _ := methodLab(t)
	b, _ := methodLab(t)
	bench := readBench(t, t.TempDir(), fmt.Sprintf(`targets:
  a: {url: %q}
  b: {url: %q}
scenarios:
  kv:
    steps: [1, 2]
    step: 200ms
    endpoints:
      - {name: get, path: "/v0/entity?id=1"}
      - {name: put, method: PUT, path: "/v0/entity?id=1", body: x}
  one:
    steps: [1, 2]
    step: 100ms
`, a.URL()+"/", b.URL()+"/"))
	out, err := Run(context.Background(), bench, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var doc bytes.Buffer
	if err := Render(&doc, out, "markdown", report.Options{Stats: []string{"requests", "p50"}}); err != nil {
		t.Fatal(err)
	}
	md := doc.String()
	for _, w := range []string{"## kv: each endpoint over the steps", "| step | endpoint | figure | a | b | vs a |",
		"| 1 connection | get | requests |", "|  |  | p50 |", "|  | put | requests |", "| 2 connections | get | requests |"} {
		if !strings.Contains(md, w) {
			t.Errorf("report lacks %q:\n%s", w, md)
		}
	}
	if strings.Contains(md, "## one: each endpoint over the steps") {
		t.Errorf("a scenario of one endpoint has a table of its endpoints:\n%s", md)
	}
}
