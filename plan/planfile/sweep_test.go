package planfile

import (
	"fmt"
	"strings"
	"testing"
)

const sweepYAML = `targets:
  node: {url: http://127.0.0.1:18545/}
scenarios:
  batch:
    connections: 4
    duration: 1m
    sweep: {batch: [1, 10, 50]}
    jsonrpc:
      calls:
        - {method: eth_blockNumber}
  stepped:
    steps: [5, 20]
    step: 30s
    alone: true
    sweep:
      batch: [2, 8]
    jsonrpc:
      calls:
        - {method: eth_blockNumber}
        - {method: eth_chainId}
`

// A sweep runs the scenario once per value, its steps (and parts) inside each value, the value in
// the run's label and in its plan's jsonrpc.batch; run --plan picks one of them.
func TestSweepRuns(t *testing.T) {
	t.Parallel()
	b, err := ReadFile("plan.yaml", strings.NewReader(sweepYAML))
	if err != nil {
		t.Fatal(err)
	}
	node := b.Targets[0]
	want := map[string][]string{ // label / batch / connections / method
		"batch": {"batch 1/1/4/eth_blockNumber", "batch 10/10/4/eth_blockNumber", "batch 50/50/4/eth_blockNumber"},
		"stepped": {
			"batch 2, eth_blockNumber alone at 5 connections/2/5/eth_blockNumber", "batch 2, eth_chainId alone at 5 connections/2/5/eth_chainId",
			"batch 2, eth_blockNumber alone at 20 connections/2/20/eth_blockNumber", "batch 2, eth_chainId alone at 20 connections/2/20/eth_chainId",
			"batch 8, eth_blockNumber alone at 5 connections/8/5/eth_blockNumber", "batch 8, eth_chainId alone at 5 connections/8/5/eth_chainId",
			"batch 8, eth_blockNumber alone at 20 connections/8/20/eth_blockNumber", "batch 8, eth_chainId alone at 20 connections/8/20/eth_chainId",
		},
	}
	for _, s := range b.Scenarios {
		var got []string
		for k := range s.Runs() {
			p := s.PlanFor(node, k, "")
			var methods []string
			for _, c := range p.JSONRPC.Calls {
				methods = append(methods, c.Method)
			}
			got = append(got, fmt.Sprintf("%s/%d/%d/%s", s.StepLabel(k), p.JSONRPC.Batch, p.Normalized().Load.Connections, strings.Join(methods, ",")))
			if err := p.Validate(); err != nil {
				t.Errorf("%s run %d: %v", s.Name, k, err)
			}
		}
		if strings.Join(got, "\n") != strings.Join(want[s.Name], "\n") {
			t.Errorf("%s runs:\n%s\nwant\n%s", s.Name, strings.Join(got, "\n"), strings.Join(want[s.Name], "\n"))
		}
	}
	p, _, _, k, err := b.Select("batch", "", 3)
	if err != nil || k != 2 || p.JSONRPC.Batch != 50 {
		t.Errorf("batch step 3: %v, run %d, batch %d; want run 2 with batch 50", err, k, p.JSONRPC.Batch)
	}
	if _, _, _, _, err := b.Select("batch", "", 4); err == nil || !strings.Contains(err.Error(), "has steps 1 to 3") {
		t.Errorf("batch step 4: %v; want steps 1 to 3", err)
	}
}

func TestSweepErrors(t *testing.T) {
	t.Parallel()
	head := "targets:\n  t: {url: http://127.0.0.1:1/}\nscenarios:\n  s:\n    rate: 10\n"
	calls := "    jsonrpc: {calls: [{method: m}]}\n"
	for body, want := range map[string]string{
		"    sweep: {batch: [1, 10]}\n":                                                "plan.yaml:6:12: scenarios.s.sweep: batch is the number of JSON-RPC calls per request: give jsonrpc.calls",
		calls + "    sweep: {pool: [1, 10]}\n":                                         `plan.yaml:7:13: scenarios.s.sweep.pool: unknown key`,
		calls + "    sweep: {batch: [1, 0]}\n":                                         `plan.yaml:7:24: scenarios.s.sweep.batch[1]: "0": want a whole number of 1 or more`,
		calls + "    sweep: {batch: [1, 2.5]}\n":                                       `scenarios.s.sweep.batch[1]: "2.5": want a whole number of 1 or more`,
		calls + "    sweep: {batch: [10, 10]}\n":                                       "plan.yaml:7:25: scenarios.s.sweep.batch[1]: 10 is given twice",
		calls + "    sweep: {batch: [1, 20000]}\n":                                     "scenarios.s.sweep.batch[1]: 20000 calls per request: want 1 to 10000",
		calls + "    sweep: {batch: []}\n":                                             "scenarios.s.sweep.batch: want a list of values, e.g. [1, 10, 50, 100]",
		calls + "    sweep: {}\n":                                                      "scenarios.s.sweep: empty: want one parameter and its values, e.g. {batch: [1, 10, 50, 100]}; the parameters: batch",
		calls + "    sweep: [1, 10]\n":                                                 "scenarios.s.sweep: want a mapping",
		"    jsonrpc: {calls: [{method: m}], batch: 5}\n    sweep: {batch: [1, 10]}\n": "scenarios.s.sweep: the sweep sets jsonrpc.batch of each run: drop jsonrpc.batch",
	} {
		_, err := ReadFile("plan.yaml", strings.NewReader(head+body))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want an error with %q", body, err, want)
		}
	}
	capHead := "targets:\n  t: {url: http://127.0.0.1:1/}\nscenarios:\n  s:\n"
	_, err := ReadFile("plan.yaml", strings.NewReader(capHead+calls+"    sweep: {batch: [1, 10]}\n    capacity: {slo: p99<10ms}\n"))
	if err == nil || !strings.Contains(err.Error(), "a capacity search is one search per target: drop sweep: or capacity:") {
		t.Errorf("sweep with capacity: %v; want it refused", err)
	}
}
