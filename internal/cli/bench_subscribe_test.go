package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/serve/ethrpc"
)

// benchHeads is a plan file of one scenario, calls and newHeads subscriptions beside them, against
// two targets.
const benchHeads = `targets:
  drops: {url: %q}
  clean: {url: %q}
scenarios:
  heads:
    jsonrpc:
      calls:
        - {method: eth_blockNumber}
    model: open
    rate: 20
    duration: 1s
    subscribe:
      call: eth_subscribe ["newHeads"]
      count: 2
`

// bench runs a scenario's subscriptions beside its calls against each target and shows them side
// by side: two loopback nodes making a block every 20 ms, the first losing every 3rd notification
// of its first subscription, the second none. Each target's run has its own subscriptions section;
// the comparison has their figures with ratios, in text, Markdown and JSON alike.
func TestBenchSubscriptions(t *testing.T) {
	t.Parallel()
	drops := subscribeNode(t, ethrpc.Config{Blocks: 10, BlockTime: 20 * time.Millisecond, DropEvery: 3})
	clean := subscribeNode(t, ethrpc.Config{Blocks: 10, BlockTime: 20 * time.Millisecond})
	dir, stdout, raw := benchPlan(t, fmt.Sprintf(benchHeads, drops.WebSocketURL(), clean.WebSocketURL()))
	type subs struct {
		Opened   int
		Messages uint64
		Gaps     uint64
		GapsBy   string `json:"gaps_by"`
	}
	var rep struct {
		Scenarios []struct {
			Steps []struct {
				Report struct {
					Runs []struct {
						Requests      struct{ Sent uint64 }
						Subscriptions *subs
					}
					Comparison struct {
						Labels  []string
						Metrics []struct {
							Name   string
							Values []*float64
							Ratios []*float64
						}
					}
				}
			}
		}
	}
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatalf("%v\n%s", err, raw)
	}
	if len(rep.Scenarios) != 1 || len(rep.Scenarios[0].Steps) != 1 || len(rep.Scenarios[0].Steps[0].Report.Runs) != 2 {
		t.Fatalf("want one scenario of one step with two runs:\n%s", raw)
	}
	r := rep.Scenarios[0].Steps[0].Report
	var got [2]subs
	for i, run := range r.Runs {
		if run.Subscriptions == nil {
			t.Fatalf("run %d has no subscriptions:\n%s", i, raw)
		}
		got[i] = *run.Subscriptions
		if run.Requests.Sent != 20 { // 20/s for 1 s
			t.Errorf("run %d: %d calls sent, want 20", i, run.Requests.Sent)
		}
	}
	for i, node := range []*ethrpc.Server{drops, clean} {
		if u := got[i]; u.Opened != 2 || u.Messages == 0 || u.Messages > node.Notified() || u.GapsBy == "" {
			t.Errorf("%s: %+v; want 2 opened and some of the %d notifications the node wrote, gaps counted", r.Comparison.Labels[i], u, node.Notified())
		}
	}
	if got[0].Gaps == 0 || got[1].Gaps != 0 {
		t.Errorf("gaps %d and %d; want some on the node that drops, none on the other", got[0].Gaps, got[1].Gaps)
	}
	metric := func(name string) (v [2]float64, ratio *float64) {
		for _, m := range r.Comparison.Metrics {
			if m.Name == name && len(m.Values) == 2 && m.Values[0] != nil && m.Values[1] != nil {
				return [2]float64{*m.Values[0], *m.Values[1]}, m.Ratios[1]
			}
		}
		t.Fatalf("the comparison has no %q for both targets:\n%s", name, raw)
		return
	}
	if v, ratio := metric("subscriptions opened"); v != [2]float64{2, 2} || ratio == nil || *ratio != 1 {
		t.Errorf("subscriptions opened %v, ratio %v; want 2 and 2, 1", v, ratio)
	}
	if v, _ := metric("notifications"); v != [2]float64{float64(got[0].Messages), float64(got[1].Messages)} {
		t.Errorf("notifications compared %v; the runs have %d and %d", v, got[0].Messages, got[1].Messages)
	}
	if v, ratio := metric("notification gaps"); v != [2]float64{float64(got[0].Gaps), 0} || ratio == nil || *ratio != 0 {
		t.Errorf("gaps compared %v, ratio %v; the runs have %d and 0, ratio 0", v, ratio, got[0].Gaps)
	}
	metric("delivery p99") // the node stamps every notification
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	for format, text := range map[string]string{"text": stdout, "markdown": string(md), "html": string(page)} {
		for _, w := range []string{"drops", "clean", "subscriptions opened", "notification gaps", "delivery p99"} {
			if !strings.Contains(text, w) {
				t.Errorf("%s report lacks %q:\n%s", format, w, text)
			}
		}
	}
	for _, text := range []string{stdout, string(md)} {
		if !strings.Contains(text, "0× the notification gaps") {
			t.Errorf("the ratio of gaps is not in words:\n%s", text)
		}
	}
	// the text report has each target's own section, as its report alone would
	for _, w := range []string{fmt.Sprintf("notifications     %d;", got[0].Messages), fmt.Sprintf("notifications     %d;", got[1].Messages)} {
		if !strings.Contains(stdout, w) {
			t.Errorf("text report lacks %q:\n%s", w, stdout)
		}
	}
	if n := strings.Count(stdout, "Subscriptions: "); n != 2 {
		t.Errorf("text report has %d subscriptions sections, want one per target", n)
	}
}

// benchPlan runs rpcbench bench --quiet on the plan text, which must succeed, and returns its run
// directory, its text report and its JSON report.
func benchPlan(t *testing.T, text string) (dir, stdout string, reportJSON []byte) {
	t.Helper()
	name := writePlan(t, text)
	dir = filepath.Join(t.TempDir(), "run")
	code, stdout, stderr := mainOut("bench", "--quiet", "--out-dir", dir, name)
	if code != ExitOK {
		t.Fatalf("exit %d; want 0\n%s\n%s", code, stdout, stderr)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	return dir, stdout, raw
}

// A scenario in steps with subscriptions beside its calls reads push delivery against call load
// step by step: a node holding each block's notifications 10 ms per call run since the block
// before (a block every 50 ms) holds them ~5 ms at 10 calls/s and ~200 ms at 400/s. Each step's
// report has its subscriptions (the median at 400/s at least 70 % of the 200 ms, the hold being a
// floor; at 10/s below half of it), and the text report a table of the steps with the calls'
// throughput beside the delivery figures.
func TestBenchSubscriptionsOverSteps(t *testing.T) {
	t.Parallel()
	const block, perCall = 50 * time.Millisecond, 10 * time.Millisecond
	s := subscribeNode(t, ethrpc.Config{Blocks: 10, BlockTime: block, PushDelayPerCall: perCall})
	plan := fmt.Sprintf(`targets:
  node: {url: %q}
scenarios:
  heads:
    jsonrpc:
      calls:
        - {method: eth_blockNumber}
    model: open
    steps: [10, 400]
    step: 1500ms
    subscribe:
      call: eth_subscribe ["newHeads"]
      count: 2
`, s.WebSocketURL())
	_, stdout, raw := benchPlan(t, plan)
	var rep struct {
		Scenarios []struct {
			Steps []struct {
				Report struct { // one target's: its run's report
					Subscriptions *struct {
						Opened   int
						Delivery *struct{ P50 float64 } `json:"delivery_latency_ms"`
					}
				}
			}
		}
	}
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatalf("%v\n%s", err, raw)
	}
	if len(rep.Scenarios) != 1 || len(rep.Scenarios[0].Steps) != 2 {
		t.Fatalf("want one scenario of two steps:\n%s", raw)
	}
	var p50 [2]float64
	for i, st := range rep.Scenarios[0].Steps {
		u := st.Report.Subscriptions
		if u == nil || u.Opened != 2 || u.Delivery == nil {
			t.Fatalf("step %d: want its subscriptions, 2 opened, their delivery:\n%s", i+1, raw)
		}
		p50[i] = u.Delivery.P50
	}
	busy := float64(time.Duration(400*block.Seconds())*perCall) / float64(time.Millisecond) // 20 calls a block: 200 ms
	if p50[1] < 0.7*busy || p50[0] > busy/2 {
		t.Errorf("delivery p50 %.1f ms at 10/s, %.1f ms at 400/s; the node held each block ~5 ms and ~%.0f ms", p50[0], p50[1], busy)
	}
	at := strings.Index(stdout, "heads: subscriptions over the steps")
	if at < 0 {
		t.Fatalf("no table of the subscriptions over the steps:\n%s", stdout)
	}
	table := stdout[at:]
	for _, w := range []string{"Subscriptions beside the calls over the steps", "10/s ", "400/s ", "throughput", "delivery p50", "delivery p99", "notification gaps"} {
		if !strings.Contains(table, w) {
			t.Errorf("the steps table lacks %q:\n%s", w, stdout)
		}
	}
}

// A subscribe: bench cannot run is refused before anything runs, at the scenario's line, naming
// the target: to a URL that is not a WebSocket's, and without calls beside.
func TestBenchSubscriptionsRefused(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, file, want string
	}{
		{"http target", fmt.Sprintf(benchHeads, "ws://127.0.0.1:1/", "http://127.0.0.1:2/"),
			`plan.yaml:5:3: scenarios.heads: against clean: subscribe: subscriptions need a WebSocket URL (ws:// or wss://); got "http://127.0.0.1:2/"`},
		{"no calls", strings.Replace(fmt.Sprintf(benchHeads, "ws://127.0.0.1:1/", "ws://127.0.0.1:2/"), "    jsonrpc:\n      calls:\n        - {method: eth_blockNumber}\n    model: open\n    rate: 20\n", "", 1),
			"plan.yaml:5:3: scenarios.heads: against drops: subscribe: bench runs subscriptions beside the scenario's calls; give it jsonrpc: calls"},
	} {
		code, stdout, stderr := mainOut("bench", "--quiet", "--out-dir", filepath.Join(t.TempDir(), "run"), writePlan(t, c.file))
		if code != ExitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, stderr:\n%s\nwant exit %d and %q\n%s", c.name, code, stderr, ExitUsage, c.want, stdout)
		}
	}
}
