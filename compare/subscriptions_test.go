package compare

import (
	"math"
	"testing"

	"github.com/rpcbench/rpcbench/summary"
)

// The subscriptions of runs come side by side with their ratios to the first run's; a run that has
// no subscriptions, or no figure to give (gaps not counted, nothing stamped), lacks it; runs
// without subscriptions get no such figures at all.
func TestSubscriptionMetricsSideBySide(t *testing.T) {
	t.Parallel()
	a := &summary.Summary{Subscriptions: &summary.Subscriptions{Opened: 4, Messages: 400, Gaps: 2, GapsBy: "block number",
		TimeToID: &summary.Percentiles{P99: 1}, TimeToFirst: &summary.Percentiles{P99: 50},
		Delivery: &summary.Percentiles{P50: 2, P99: 8}, Spread: &summary.Percentiles{P99: 0.5},
		Reference: &summary.ReferenceLag{Lag: &summary.Percentiles{P99: 40}}}}
	b := &summary.Summary{Subscriptions: &summary.Subscriptions{Opened: 2, Messages: 100, Gaps: 6, GapsBy: "block number",
		TimeToID: &summary.Percentiles{P99: 3}, TimeToFirst: &summary.Percentiles{P99: 25},
		Delivery: &summary.Percentiles{P50: 1, P99: 24}, Reference: &summary.ReferenceLag{Lag: &summary.Percentiles{P99: 10}}}}
	c := &summary.Summary{Subscriptions: &summary.Subscriptions{Opened: 4, Messages: 400}} // no gaps counted, nothing stamped
	none := &summary.Summary{}
	cmp := New([]*summary.Summary{a, b, c, none}, []string{"a", "b", "c", "none"})
	want := []struct {
		name   string
		better Direction
		values []float64 // NaN: missing
		ratio1 float64   // b against a
	}{
		{"subscriptions opened", HigherIsBetter, []float64{4, 2, 4, math.NaN()}, 0.5},
		{"notifications", NotJudged, []float64{400, 100, 400, math.NaN()}, 0.25},
		{"notification gaps", LowerIsBetter, []float64{2, 6, math.NaN(), math.NaN()}, 3},
		{"time to id p99", LowerIsBetter, []float64{1, 3, math.NaN(), math.NaN()}, 3},
		{"time to first p99", LowerIsBetter, []float64{50, 25, math.NaN(), math.NaN()}, 0.5},
		{"delivery p50", LowerIsBetter, []float64{2, 1, math.NaN(), math.NaN()}, 0.5},
		{"delivery p99", LowerIsBetter, []float64{8, 24, math.NaN(), math.NaN()}, 3},
		{"fan-out spread p99", LowerIsBetter, []float64{0.5, math.NaN(), math.NaN(), math.NaN()}, math.NaN()},
		{"reference lag p99", LowerIsBetter, []float64{40, 10, math.NaN(), math.NaN()}, 0.25},
	}
	for _, w := range want {
		m, ok := Find(cmp.Metrics, w.name)
		if !ok {
			t.Errorf("no %q among the metrics", w.name)
			continue
		}
		if m.Better != w.better {
			t.Errorf("%s: better %v, want %v", w.name, m.Better, w.better)
		}
		for i, v := range w.values {
			if math.IsNaN(v) != m.missing(i) || !math.IsNaN(v) && m.Values[i] != v {
				t.Errorf("%s: run %d: value %v (missing %v), want %v", w.name, i, m.Values[i], m.missing(i), v)
			}
			if math.IsNaN(v) && !math.IsNaN(m.Ratios[i]) {
				t.Errorf("%s: run %d lacks it, ratio %v; want none", w.name, i, m.Ratios[i])
			}
		}
		if r := m.Ratios[1]; math.IsNaN(w.ratio1) != math.IsNaN(r) || !math.IsNaN(r) && r != w.ratio1 {
			t.Errorf("%s: ratio of b to a %v, want %v", w.name, r, w.ratio1)
		}
	}
	if m, _ := Find(cmp.Metrics, "notification gaps"); m.Improved(1) {
		t.Errorf("6 gaps against 2 called better")
	}
	for _, stats := range [][]string{nil, {"p99"}} {
		plain := NewStats([]*summary.Summary{none, {}}, nil, stats)
		for _, m := range plain.Metrics {
			if m.Name == "notifications" || m.Name == "delivery p99" {
				t.Errorf("stats %v: runs without subscriptions compared on %q", stats, m.Name)
			}
		}
		if _, ok := Find(NewStats([]*summary.Summary{a, b}, nil, stats).Metrics, "delivery p99"); !ok {
			t.Errorf("stats %v: runs with subscriptions not compared on their delivery", stats)
		}
	}
}
