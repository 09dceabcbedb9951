package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
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

// TestRunSweepTargetFlag runs a scenario with sweep: {a --tag: …}: before each value's runs,
// target a's command is started again with --tag set to that value, so that every request of the
// run at that value is answered by the process started with it; target b, without a command, runs
// at each value as it is; the scenario after the sweep is answered by a's command as the plan
// gives it (--tag 7). The report puts the values side by side.
func TestRunSweepTargetFlag(t *testing.T) {
	t.Parallel()
	other, _ := countingLab(t)
	dir := t.TempDir()
	addr := freeAddr(t)
	tags := filepath.Join(dir, "tags.txt")
	bench := readBench(t, dir, fmt.Sprintf(`targets:
  a:
    url: http://%s/
    command: [%q, --tag, "7"]
    env: {%s: %q, %s: %q}
    ready_timeout: 1m
  b: {url: %s/}
scenarios:
  pool:
    connections: 1
    requests: 5
    sweep: {a --tag: [1, 20]}
  after: {requests: 3, connections: 1}
`, addr, os.Args[0], helperEnv, addr, helperTagLog, tags, other.URL()))
	var got []string // per run against a: its label, and the tags of the processes that answered it
	read := 0
	var progress bytes.Buffer
	out, err := Run(context.Background(), bench, Options{
		LogDir:   dir,
		Progress: &progress,
		Outputs: func(id RunID) output.Set {
			return output.Set{&probe{stop: func(*engine.Result, *summary.Summary) {
				if id.Target != "a" {
					return
				}
				b, _ := os.ReadFile(tags)
				lines := strings.Fields(string(b))
				got = append(got, fmt.Sprintf("%s %s: %s", id.Scenario, id.Level, strings.Join(lines[read:], ",")))
				read = len(lines)
			}}}
		},
	})
	if err != nil || out.TargetErr != nil {
		t.Fatal(err, out.TargetErr)
	}
	want := []string{"pool a --tag 1: 1,1,1,1,1", "pool a --tag 20: 20,20,20,20,20", "after : 7,7,7"}
	if !slices.Equal(got, want) {
		t.Errorf("runs against a and who answered them:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(out.Runs) != 6 {
		t.Fatalf("%d runs; want 6 (2 values and 1 after, against a and b)", len(out.Runs))
	}
	for _, m := range out.Runs {
		if m.Err != nil || m.TargetEnded != "" || m.Summary.Requests.Errors != 0 {
			t.Errorf("%s: %v %s %+v", m.RunID, m.Err, m.TargetEnded, m.Summary.Requests)
		}
	}
	// a's command started four times: as given, then again at --tag 1, at --tag 20, and as given
	// for "after"
	starts := strings.Count(progress.String(), "starting target a again:")
	for _, w := range []string{"starting target a again: " + os.Args[0] + " --tag 1\n", "starting target a again: " + os.Args[0] + " --tag 20\n", "starting target a again: " + os.Args[0] + " --tag 7\n"} {
		if !strings.Contains(progress.String(), w) {
			t.Errorf("progress lacks %q:\n%s", w, progress.String())
		}
	}
	if starts != 3 {
		t.Errorf("target a started again %d times; want 3:\n%s", starts, progress.String())
	}
	log, _ := os.ReadFile(filepath.Join(dir, "a.log"))
	if n := strings.Count(string(log), "rpcbench bench: target a started again: "); n != 3 {
		t.Errorf("a.log tells %d new starts; want 3 (the log is added to, not replaced):\n%s", n, log)
	}
	var doc bytes.Buffer
	if err := Render(&doc, out, "markdown", report.Options{}); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"## pool: a --tag swept", "a --tag swept, side by side (one step per value of a --tag)", "| a --tag 1 | throughput |", "| a --tag 20 | throughput |"} {
		if !strings.Contains(doc.String(), w) {
			t.Errorf("report lacks %q:\n%s", w, doc.String())
		}
	}
}
