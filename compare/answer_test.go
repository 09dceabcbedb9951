package compare

import (
	"math"
	"testing"

	"github.com/rpcbench/rpcbench/summary"
)

// The answer metrics of the runs come side by side, one figure per statistic; a run that did not
// read one lacks it.
func TestAnswerMetricsSideBySide(t *testing.T) {
	t.Parallel()
	run := func(p50, p99 float64) *summary.Summary {
		s := &summary.Summary{}
		if p50 > 0 {
			s.AnswerMetrics = []summary.AnswerMetric{{Name: "hop_ns", Count: 10, Values: &summary.Percentiles{P50: p50, P99: p99}}}
		}
		return s
	}
	c := New([]*summary.Summary{run(200, 400), run(50, 100), run(0, 0)}, []string{"http", "in-process", "none"})
	m, ok := Find(c.Metrics, "hop_ns p50")
	if !ok {
		t.Fatalf("no hop_ns p50 among %v", c.Metrics)
	}
	if m.Values[0] != 200 || m.Values[1] != 50 || m.Ratios[1] != 0.25 || !m.missing(2) || !math.IsNaN(m.Ratios[2]) {
		t.Errorf("hop_ns p50: values %v, ratios %v, missing %v; want 200, 50 (0.25×), and none for the third", m.Values, m.Ratios, m.Missing)
	}
	if m, ok := Find(c.Metrics, "hop_ns p99"); !ok || m.Values[1] != 100 {
		t.Errorf("hop_ns p99: %+v, %v; want 100 for the second run", m, ok)
	}
	c = NewStats([]*summary.Summary{run(200, 400), run(50, 100)}, nil, []string{"mean", "p99", "rps"})
	if _, ok := Find(c.Metrics, "hop_ns p99"); !ok {
		t.Errorf("stats mean, p99, rps: no hop_ns p99 among %v", c.Metrics)
	}
	if _, ok := Find(c.Metrics, "hop_ns rps"); ok {
		t.Error("stats: hop_ns rps made; rps is not a statistic of a distribution")
	}
}
