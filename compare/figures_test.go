package compare

import (
	"math"
	"strings"
	"testing"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/summary"
)

// statRun is a run whose every latency figure is distinct (p95 = 95 ms, mean = 40 ms …), scaled by
// k, with one endpoint "e" of its own figures (scaled by 10·k), in the open model at rate 100·k.
func statRun(k float64) *summary.Summary {
	s := &summary.Summary{}
	l := summary.Percentiles{Min: 1, Mean: 40, Stdev: 7, P50: 50, P75: 75, P90: 90, P95: 95, P99: 99, P999: 99.9, P9999: 99.99, Max: 500}
	for _, p := range []*float64{&l.Min, &l.Mean, &l.Stdev, &l.P50, &l.P75, &l.P90, &l.P95, &l.P99, &l.P999, &l.P9999, &l.Max} {
		*p *= k
	}
	s.Latency, s.Throughput, s.Requests.Sent, s.Requests.Unsent, s.Requests.Errors = l, 100*k, uint64(1000*k), 3, 3
	s.Config.Load = plan.Load{Model: plan.Open, Rate: 100 * k}
	e := summary.Endpoint{Name: "e"}
	e.Latency, e.Throughput, e.Requests.Sent = summary.Percentiles{Mean: 400 * k, P95: 950 * k}, 50*k, uint64(500*k)
	s.Endpoints = []summary.Endpoint{e, {Name: "f"}}
	return s
}

// The stats chosen are the figures of the totals and of each endpoint, in their order, each read
// from its own field of the runs, with its ratio to the first run.
func TestNewStats(t *testing.T) {
	t.Parallel()
	runs := []*summary.Summary{statRun(1), statRun(2)}
	c := NewStats(runs, []string{"a", "b"}, []string{"p95", "mean", "stdev", "requests", "rps", "errors", "min", "p75", "p99.99", "max"})
	want := map[string][2]float64{"p95": {95, 190}, "mean": {40, 80}, "stdev": {7, 14}, "requests": {1003, 2003}, "rps": {100, 200},
		"errors": {100 * 3.0 / 1003, 100 * 3.0 / 2003}, "min": {1, 2}, "p75": {75, 150}, "p99.99": {99.99, 199.98}, "max": {500, 1000}}
	var names []string
	for _, m := range c.Metrics {
		names = append(names, m.Name)
	}
	if strings.Join(names, ",") != "p95,mean,stdev,requests,throughput,error rate,min,p75,p99.99,max" {
		t.Fatalf("figures %v; want those asked, in order", names)
	}
	for i, m := range c.Metrics {
		w := want[[]string{"p95", "mean", "stdev", "requests", "rps", "errors", "min", "p75", "p99.99", "max"}[i]]
		if math.Abs(m.Values[0]-w[0]) > 1e-9 || math.Abs(m.Values[1]-w[1]) > 1e-9 {
			t.Errorf("%s: %v; want %v", m.Name, m.Values, w)
		}
	}
	if m := c.Metrics[3]; m.Better != NotJudged || m.Phrase(1) != "2.0× the requests" {
		t.Errorf("requests of the open model: %v, %q; want not judged, \"2.0× the requests\"", m.Better, m.Phrase(1))
	}
	if m := c.Metrics[0]; m.Better != LowerIsBetter || m.Improved(1) {
		t.Errorf("p95: %v, b improved %v; want lower is better, b worse", m.Better, m.Improved(1))
	}
	if len(c.Endpoints) != 2 || len(c.Endpoints[0].Metrics) != 10 {
		t.Fatalf("endpoints %+v; want e and f with the ten figures each", c.Endpoints)
	}
	if e := c.Endpoints[0].Metrics; e[0].Values[1] != 1900 || e[1].Values[0] != 400 || e[3].Values[1] != 1000 {
		t.Errorf("endpoint e: p95 %v, mean %v, requests %v; want its own figures", e[0].Values, e[1].Values, e[3].Values)
	}
	// no stats: New's figures
	if d := NewStats(runs, nil, nil); len(d.Metrics) != len(New(runs, nil).Metrics) || d.Metrics[0].Name != "throughput" {
		t.Errorf("no stats: %d figures; want New's", len(d.Metrics))
	}
}

// Every name a plan or --stats takes is a figure of its own.
func TestStatNamesAllRead(t *testing.T) {
	t.Parallel()
	s := statRun(1)
	seen := map[float64]string{}
	for _, n := range plan.StatNames {
		v := statFigure(n, true).of(&s.Stats)
		if o, ok := seen[v]; ok {
			t.Errorf("%s reads the same figure as %s (%v)", n, o, v)
		}
		seen[v] = n
	}
}
