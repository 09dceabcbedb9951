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
	// 990·k answers at 100·k/s: a run of 9.9 s, over which 4,950,000·k bytes came in
	s.Requests.Completed, s.Bytes.In, s.Requests.Misses = uint64(990*k), uint64(4_950_000*k), uint64(17*k)
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
	c := NewStats(runs, []string{"a", "b"}, []string{"p95", "mean", "stdev", "requests", "rps", "errors", "min", "p75", "p99.99", "max", "transfer/s", "misses", "miss-rate"})
	want := map[string][2]float64{"p95": {95, 190}, "mean": {40, 80}, "stdev": {7, 14}, "requests": {1003, 2003}, "rps": {100, 200},
		"errors": {100 * 3.0 / 1003, 100 * 3.0 / 2003}, "min": {1, 2}, "p75": {75, 150}, "p99.99": {99.99, 199.98}, "max": {500, 1000},
		// the bytes in over the run's 9.9 s (990 answers at 100/s; 1,980 at 200/s)
		"transfer/s": {4_950_000 / 9.9, 9_900_000 / 9.9}, "misses": {17, 34}, "miss-rate": {100 * 17.0 / 1003, 100 * 34.0 / 2003}}
	var names []string
	for _, m := range c.Metrics {
		names = append(names, m.Name)
	}
	if strings.Join(names, ",") != "p95,mean,stdev,requests,throughput,error rate,min,p75,p99.99,max,transfer/s,misses,miss rate" {
		t.Fatalf("figures %v; want those asked, in order", names)
	}
	for i, m := range c.Metrics {
		w := want[[]string{"p95", "mean", "stdev", "requests", "rps", "errors", "min", "p75", "p99.99", "max", "transfer/s", "misses", "miss-rate"}[i]]
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
	if m := c.Metrics[11]; m.Better != NotJudged || m.Unit != "count" || c.Metrics[10].Unit != "B/s" {
		t.Errorf("misses: %v, %q; transfer/s: %q; want misses not judged (the ids asked for make them), a count, and transfer/s in B/s", m.Better, m.Unit, c.Metrics[10].Unit)
	}
	if len(c.Endpoints) != 2 || len(c.Endpoints[0].Metrics) != 13 {
		t.Fatalf("endpoints %+v; want e and f with the thirteen figures each", c.Endpoints)
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
