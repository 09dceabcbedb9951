package cli

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/serve/ethrpc"
)

// countedNode is a built-in node on 127.0.0.1 that counts the requests it serves in *n, each held
// for delay first, and calls at(n) after counting.
func countedNode(t *testing.T, n *atomic.Int64, delay time.Duration, at func(int64)) string {
	t.Helper()
	return diffNode(t, ethrpc.Config{Blocks: 64, Wrap: func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			c := n.Add(1)
			if at != nil {
				at(c)
			}
			if delay > 0 {
				time.Sleep(delay) // the node's known slowness, not a synchronisation
			}
			h.ServeHTTP(w, r)
		})
	}})
}

type diffLatency struct {
	Answers, Errors int
	P50MS           float64 `json:"p50_ms"`
	P99MS           float64 `json:"p99_ms"`
	MaxMS           float64 `json:"max_ms"`
	P50Ratio        float64 `json:"p50_ratio"`
	P99Ratio        float64 `json:"p99_ratio"`
}

type diffJSON struct {
	Requests, Equal, Different, Failed int
	Stopped                            string
	Methods                            []struct {
		Name    string
		Sent    int
		Latency []diffLatency
	}
}

// One node answers as the other, 40 ms later: the report gives each method's latency per node,
// the slower node's p50 at 40 ms or more and above the other's, its ratios the quotient of the
// two nodes' figures, and no difference. 40 requests, 4 at a time: about 0.4 s.
func TestDiffSlowerNodeLatencyPerMethod(t *testing.T) {
	t.Parallel()
	var na, nb atomic.Int64
	a, b := countedNode(t, &na, 0, nil), countedNode(t, &nb, 40*time.Millisecond, nil)
	calls := writeFile(t, t.TempDir(), "calls.jsonl", "{\"method\":\"eth_chainId\"}\n{\"method\":\"eth_getBlockByNumber\",\"params\":[\"0x10\",false]}\n")
	code, stdout, stderr := mainOut("diff", "--calls", calls, "--requests", "40", "--connections", "4", "--format", "json", a, b)
	if code != ExitOK {
		t.Fatalf("exit %d; want 0 (equal answers)\n%s\n%s", code, stderr, stdout)
	}
	var rep diffJSON
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if rep.Requests != 40 || rep.Equal != 40 || rep.Different != 0 || rep.Failed != 0 || na.Load() != 40 || nb.Load() != 40 {
		t.Errorf("%d requests, %d equal, %d different, %d failed, nodes served %d and %d; want 40, 40, 0, 0, 40 and 40",
			rep.Requests, rep.Equal, rep.Different, rep.Failed, na.Load(), nb.Load())
	}
	if len(rep.Methods) != 2 {
		t.Fatalf("methods %+v; want eth_chainId and eth_getBlockByNumber", rep.Methods)
	}
	for _, m := range rep.Methods {
		if len(m.Latency) != 2 {
			t.Fatalf("%s: latency of %d nodes; want 2", m.Name, len(m.Latency))
		}
		la, lb := m.Latency[0], m.Latency[1]
		if la.Answers != 20 || lb.Answers != 20 || la.Errors != 0 || lb.Errors != 0 {
			t.Errorf("%s: answers %d and %d, errors %d and %d; want 20 each, no error", m.Name, la.Answers, lb.Answers, la.Errors, lb.Errors)
		}
		if lb.P50MS < 40 || lb.MaxMS < 40 || la.P50MS >= lb.P50MS {
			t.Errorf("%s: p50 A %.2f ms, p50 B %.2f ms, max B %.2f ms; want B at 40 ms or more, and slower than A", m.Name, la.P50MS, lb.P50MS, lb.MaxMS)
		}
		near := func(got, want float64) bool { return got > want*0.999 && got < want*1.001 }
		if la.P50Ratio != 1 || la.P99Ratio != 1 || !near(lb.P50Ratio, lb.P50MS/la.P50MS) || !near(lb.P99Ratio, lb.P99MS/la.P99MS) {
			t.Errorf("%s: ratios A %v %v, B %v %v; want 1, 1, %v, %v", m.Name, la.P50Ratio, la.P99Ratio, lb.P50Ratio, lb.P99Ratio,
				lb.P50MS/la.P50MS, lb.P99MS/la.P99MS)
		}
	}
	_, text, _ := mainOut("diff", "--calls", calls, "--requests", "4", "--connections", "2", a, b)
	for _, want := range []string{"latency of  server  requests  errors", "p99 ×A", "eth_chainId       A"} {
		if !strings.Contains(text, want) {
			t.Errorf("the text report lacks %q:\n%s", want, text)
		}
	}
}

// A diff on the engine's schedule: a 200 ms warm-up, then a step to 200/s held for 500 ms. The
// warm-up's 40 requests (200 ms at 200/s) reach both nodes and are not compared; the 100 of the
// stage (500 ms at 200/s) are, and the result file counts the same 100, each answered.
func TestDiffOnTheSchedule(t *testing.T) {
	t.Parallel()
	var na, nb atomic.Int64
	a, b := countedNode(t, &na, 0, nil), countedNode(t, &nb, 0, nil)
	dir := t.TempDir()
	calls := writeFile(t, dir, "calls.jsonl", "{\"method\":\"eth_chainId\"}\n{\"method\":\"eth_blockNumber\"}\n")
	rb := filepath.Join(dir, "diff.rb")
	code, stdout, stderr := mainOut("diff", "--calls", calls, "--stages", "0s:200,500ms:200", "--warmup", "200ms", "--out", rb, "--quiet", "--format", "json", a, b)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stderr, stdout)
	}
	var rep diffJSON
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if rep.Requests != 100 || rep.Equal != 100 || na.Load() != 140 || nb.Load() != 140 {
		t.Errorf("%d compared, %d equal, nodes served %d and %d; want 100, 100, 140 and 140 (40 of warm-up)", rep.Requests, rep.Equal, na.Load(), nb.Load())
	}
	f, err := result.ReadFile(rb, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tot := f.Total.Total(); tot.Sent != 100 || tot.OK != 100 {
		t.Errorf("result file: %d sent, %d ok; want 100 and 100", tot.Sent, tot.OK)
	}
	// report names both nodes and says the latency is until both answered
	code, text, stderr := mainOut("report", rb)
	target := "diff of " + a + ", " + b
	if code != ExitOK || f.Header.Target != target || !strings.Contains(text, "  "+target+"\n") ||
		!strings.Contains(text, "a diff of 2 URLs: each request went to every one at once; its latency runs until the last answered") {
		t.Errorf("report of the diff's result file: exit %d, header target %q; want %q, named and the latency explained:\n%s%s", code, f.Header.Target, target, text, stderr)
	}
}

// Interrupted (as Ctrl-C does, through the context) once a node has served 30 requests of a 30 s
// run: the report still comes, says so and counts what was compared, the result file is whole
// and says it was interrupted, and its answered requests are those the report compared.
func TestDiffInterruptedReportsWhatWasCompared(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var na, nb atomic.Int64
	a := countedNode(t, &na, 0, func(n int64) {
		if n == 30 {
			cancel()
		}
	})
	b := countedNode(t, &nb, 0, nil)
	dir := t.TempDir()
	calls := writeFile(t, dir, "calls.jsonl", "{\"method\":\"eth_chainId\"}\n")
	rb := filepath.Join(dir, "diff.rb")
	var stdout, stderr strings.Builder
	e := &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr}
	code := runDiff(ctx, e, []string{"--calls", calls, "--rate", "200", "--duration", "30s", "--out", rb, "--quiet", "--format", "json", a, b})
	if code != ExitInterrupted {
		t.Fatalf("exit %d; want %d\n%s", code, ExitInterrupted, stderr.String())
	}
	var rep diffJSON
	if err := json.Unmarshal([]byte(stdout.String()), &rep); err != nil {
		t.Fatalf("%v\n%s", err, stdout.String())
	}
	if rep.Stopped != "interrupted" || rep.Requests < 30 || int64(rep.Requests) > na.Load() || rep.Different != 0 || rep.Failed != 0 {
		t.Errorf("stopped %q, %d compared (%d different, %d failed) of %d served; want interrupted, 30 or more, none different or failed",
			rep.Stopped, rep.Requests, rep.Different, rep.Failed, na.Load())
	}
	if !strings.Contains(stderr.String(), "interrupted; the report covers the requests compared until then") {
		t.Errorf("stderr %q; want it to say the run was interrupted", stderr.String())
	}
	f, err := result.ReadFile(rb, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tot := f.Total.Total(); f.CutShort() || !f.Trailer.Interrupted || tot.OK != uint64(rep.Requests) {
		t.Errorf("result file: cut short %v, interrupted %v, %d ok; want whole, interrupted, %d ok as compared", f.CutShort(), f.Trailer.Interrupted, tot.OK, rep.Requests)
	}
}

// A plan file's diff scenario: its calls at its load to the targets it compares, its reference
// learning the noise, its rules in the report. The candidate injects a difference into exactly
// 1 % of its answers (4 of 400) and all three add noise: the report counts the 4 and no other.
// bench passes the scenario by, saying which command runs it; run --plan refuses it.
func TestDiffPlanScenario(t *testing.T) {
	t.Parallel()
	a, ref := diffNode(t, ethrpc.Config{Blocks: 64, Noise: true}), diffNode(t, ethrpc.Config{Blocks: 64, Noise: true})
	cand, err := ethrpc.New(t.Context(), ethrpc.Config{Blocks: 64, Noise: true, InjectShare: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cand.Close() })
	dir := t.TempDir()
	writeFile(t, dir, "calls.jsonl", "{\"method\":\"eth_chainId\"}\n{\"method\":\"eth_getBlockByNumber\",\"params\":[\"0x10\",false]}\n")
	planFile := writeFile(t, dir, "p.yaml", `targets:
  a: {url: `+a+`}
  a2: {url: `+ref+`}
  b: {url: `+cand.URL()+`}
scenarios:
  load:
    path: /
    requests: 5
  cmp:
    jsonrpc: {calls_file: calls.jsonl}
    model: closed
    requests: 400
    connections: 8
    diff:
      targets: [a, b]
      reference: a2
      tolerance: {result.gasPrice: 5%}
`)
	code, stdout, stderr := mainOut("diff", "--plan", planFile, "--scenario", "cmp", "--format", "json")
	if code != ExitSLO {
		t.Fatalf("exit %d; want 1 (the injected differences)\n%s\n%s", code, stderr, stdout)
	}
	var rep struct {
		Servers                  []string
		Requests, Different, Due int
		Rules                    []string
		NoiseReference           string `json:"noise_reference"`
		Noise                    []struct{ Method, Path string }
		Mismatches               []struct{ Servers []struct{ URL string } }
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if n := cand.Injected(); n != 4 || rep.Requests != 400 || rep.Due != 400 || rep.Different != 4 {
		t.Errorf("injected %d; report: %d requests of %d due, %d different; want 4 injected, 400 of 400, 4 different", n, rep.Requests, rep.Due, rep.Different)
	}
	if want := []string{a, cand.URL(), ref}; !slices.Equal(rep.Servers, want) || rep.NoiseReference != ref {
		t.Errorf("servers %v, reference %s; want %v, %s", rep.Servers, rep.NoiseReference, want, ref)
	}
	if !slices.Contains(rep.Rules, "tolerance result.gasPrice=5%") || len(rep.Noise) != 2 {
		t.Errorf("rules %v, noise %+v; want the tolerance, and noise in both methods", rep.Rules, rep.Noise)
	}
	if code, _, stderr := mainOut("run", "--plan", planFile, "--scenario", "cmp", "--target", "a"); code != ExitUsage ||
		!strings.Contains(stderr, "--scenario cmp: a diff of the targets, which run does not send: rpcbench diff --plan "+planFile+" --scenario cmp runs it") {
		t.Errorf("run --plan of a diff: exit %d, %s; want 2 and which command runs it", code, stderr)
	}
	code, stdout, stderr = mainOut("bench", "--dry-run", planFile)
	if code != ExitOK || strings.Contains(stdout, "cmp") ||
		!strings.Contains(stderr, "rpcbench bench: scenario cmp is a diff of the targets, which bench does not run: rpcbench diff --plan "+planFile+" --scenario cmp runs it") {
		t.Errorf("bench --dry-run: exit %d\n%s\n%s\nwant the load alone run, the diff said to be passed by", code, stdout, stderr)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--plan", planFile, "--scenario", "load"}, "--scenario load: load has no diff: section; the diff scenarios of " + planFile + ": cmp"},
		{[]string{"--plan", planFile, "--scenario", "nope"}, "--scenario nope: no such scenario in " + planFile},
		{[]string{"--plan", planFile, "--rate", "5"}, "--plan " + planFile + " and --rate: the plan file's diff: says what to send and how to compare"},
		{[]string{"--plan", planFile, a}, "--plan " + planFile + ": the plan file names the targets"},
		{[]string{"--scenario", "cmp", "--calls", planFile, a, a}, "--scenario goes with --plan"},
	} {
		code, _, stderr := mainOut(append([]string{"diff"}, c.args...)...)
		if code != ExitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("diff %v: exit %d, %s; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}
