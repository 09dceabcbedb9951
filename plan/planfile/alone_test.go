package planfile

import (
	"strings"
	"testing"

	"github.com/rpcbench/rpcbench/plan"
)

const aloneYAML = `targets:
  node: {url: http://127.0.0.1:18545/}
scenarios:
  methods:
    model: open
    steps: [300, 1000]
    step: 1m
    ramp: 10s
    alone: true
    weights: {eth_call: 3}
    jsonrpc:
      calls:
        - {method: eth_blockNumber}
        - {method: eth_call, weight: 3}
        - {method: eth_estimateGas, load: 10}
  kv:
    connections: 50
    duration: 30s
    alone: true
    endpoints:
      - {name: put, method: PUT, path: "/v0/entity?id=1", body: x, weight: 1}
      - {name: get, path: "/v0/entity?id=1", weight: 9, load: 1}
  mix:
    rate: 100
    endpoints:
      - {name: get, path: "/v0/entity?id=1"}
      - {name: put, method: PUT, path: "/v0/entity?id=1"}
`

// Each call or endpoint of a scenario with alone: runs by itself with the whole of each level (or
// its own load:, once), and a scenario without it still runs the mix, one run per level.
func TestAloneRuns(t *testing.T) {
	t.Parallel()
	b, err := ReadFile("plan.yaml", strings.NewReader(aloneYAML))
	if err != nil {
		t.Fatal(err)
	}
	node := b.Targets[0]
	type want struct {
		label string
		calls []string // the JSON-RPC methods, or the endpoints' names
		model plan.Model
		level float64
	}
	cases := map[string][]want{
		"methods": {
			{"eth_blockNumber alone at 300/s", []string{"eth_blockNumber"}, plan.Open, 300},
			{"eth_call alone at 300/s", []string{"eth_call"}, plan.Open, 300},
			{"eth_estimateGas alone at its own 10/s", []string{"eth_estimateGas"}, plan.Open, 10},
			{"eth_blockNumber alone at 1000/s", []string{"eth_blockNumber"}, plan.Open, 1000},
			{"eth_call alone at 1000/s", []string{"eth_call"}, plan.Open, 1000},
		},
		"kv": {
			{"put alone", []string{"put"}, plan.Closed, 50},
			{"get alone at its own 1 connection", []string{"get"}, plan.Closed, 1},
		},
		"mix": {{"", []string{"get", "put"}, plan.Open, 100}},
	}
	for _, s := range b.Scenarios {
		ws := cases[s.Name]
		if s.Runs() != len(ws) {
			t.Fatalf("%s: %d runs, want %d", s.Name, s.Runs(), len(ws))
		}
		for k, w := range ws {
			if got := s.StepLabel(k); got != w.label {
				t.Errorf("%s run %d: label %q, want %q", s.Name, k, got, w.label)
			}
			p := s.PlanFor(node, k, "")
			var names []string
			for _, c := range p.JSONRPC.Calls {
				names = append(names, c.Method)
				if c.Weight != 0 {
					t.Errorf("%s run %d: call %s keeps weight %v alone", s.Name, k, c.Method, c.Weight)
				}
			}
			if len(p.JSONRPC.Calls) == 0 {
				for _, e := range p.Endpoints {
					names = append(names, e.Name)
					if s.Alone && e.Weight != 0 {
						t.Errorf("%s run %d: endpoint %s keeps weight %v alone", s.Name, k, e.Name, e.Weight)
					}
				}
			}
			if strings.Join(names, ",") != strings.Join(w.calls, ",") {
				t.Errorf("%s run %d sends %v, want %v", s.Name, k, names, w.calls)
			}
			if s.Alone && p.Traffic.Weights != nil {
				t.Errorf("%s run %d keeps the weights %v", s.Name, k, p.Traffic.Weights)
			}
			l := p.Normalized().Load
			level := l.Rate
			if l.Model == plan.Closed {
				level = float64(l.Connections)
			}
			if l.Model != w.model || level != w.level {
				t.Errorf("%s run %d: %s model at %v, want %s at %v", s.Name, k, l.Model, level, w.model, w.level)
			}
			if err := p.Validate(); err != nil {
				t.Errorf("%s run %d: %v", s.Name, k, err)
			}
		}
	}
}

func TestAloneErrors(t *testing.T) {
	t.Parallel()
	head := "targets:\n  t: {url: http://127.0.0.1:1/}\nscenarios:\n  s:\n"
	for body, want := range map[string]string{
		"    rate: 10\n    endpoints:\n      - {name: a, path: /a, load: 5}\n":                                   "plan.yaml:7:35: scenarios.s.endpoints[0].load: the level of a's run alone: give alone: true too",
		"    alone: true\n    rate: 10\n    endpoints:\n      - {path: /a}\n":                                    "scenarios.s.endpoints[0]: no name: with alone:",
		"    alone: true\n    rate: 10\n    targets_file: t.http\n":                                              "scenarios.s.alone: runs each endpoint or call of the plan alone",
		"    alone: true\n    connections: 5\n    endpoints:\n      - {name: a, path: /a, load: 2.5}\n":          "2.5 connections: want a whole number",
		"    alone: true\n    stages: 10s:100\n    endpoints:\n      - {name: a, path: /a, load: 2}\n":           "the scenario's stages set the load of every run",
		"    alone: true\n    endpoints:\n      - {name: a, path: /a, load: 5}\n    capacity: {slo: p99<10ms}\n": "plan.yaml:7:35: scenarios.s.endpoints[0].load: a capacity search sets the rate of a's run alone: drop load:",
	} {
		_, err := ReadFile("plan.yaml", strings.NewReader(head+body))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want an error with %q", body, err, want)
		}
	}
}

// stats: is read for the plan and per scenario, a scenario's own list first; a bad name is an
// error at its line naming the names a table shows.
func TestReadStats(t *testing.T) {
	t.Parallel()
	b, err := ReadFile("plan.yaml", strings.NewReader(`targets:
  t: {url: http://127.0.0.1:1/}
stats: [p50, p95, mean, stdev]
scenarios:
  a: {rate: 10, duration: 1s}
  b: {rate: 10, duration: 1s, stats: "requests, rps"}
`))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(b.StatsOf(b.Scenarios[0]), ","); got != "p50,p95,mean,stdev" {
		t.Errorf("scenario a: %s; want the plan's p50,p95,mean,stdev", got)
	}
	if got := strings.Join(b.StatsOf(b.Scenarios[1]), ","); got != "requests,rps" {
		t.Errorf("scenario b: %s; want its own requests,rps", got)
	}
	for body, want := range map[string]string{
		"stats: [p50, avg]\n": `plan.yaml:3:8: stats: "avg" is not a statistic a table shows; want some of rps, transfer/s, requests, errors, misses, miss-rate, min, mean, stdev, p50`,
		"stats: [p50, p50]\n": `"p50" is given twice`,
		"stats: []\n":         "stats: empty: want some of",
	} {
		_, err := ReadFile("plan.yaml", strings.NewReader("targets:\n  t: {url: http://127.0.0.1:1/}\n"+body+"scenarios:\n  a: {rate: 10}\n"))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want an error with %q", body, err, want)
		}
	}
}

// One run of a scenario with alone (run --plan, k8s job) is one of its steps: each part at each
// level; none is chosen for the caller.
func TestAloneSelect(t *testing.T) {
	t.Parallel()
	b, err := ReadFile("plan.yaml", strings.NewReader(aloneYAML))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, _, _, err := b.Select("kv", "", 0); err == nil || err.Error() != "step: scenario kv has 2 steps (put alone, get alone at its own 1 connection): say which, from 1 to 2" {
		t.Errorf("no step chosen: %v; want the two steps named", err)
	}
	if _, _, _, _, err := b.Select("kv", "", 3); err == nil || !strings.Contains(err.Error(), "has steps 1 to 2") {
		t.Errorf("step 3: %v; want steps 1 to 2", err)
	}
	p, _, _, k, err := b.Select("methods", "", 5)
	if err != nil || k != 4 || len(p.JSONRPC.Calls) != 1 || p.JSONRPC.Calls[0].Method != "eth_call" || p.Load.Rate != 1000 {
		t.Errorf("methods step 5: %v, run %d, calls %v at %v/s; want eth_call alone at 1000/s", err, k, p.JSONRPC.Calls, p.Load.Rate)
	}
}
