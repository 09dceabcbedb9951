package compare

import (
	"math"
	"testing"

	"github.com/rpcbench/rpcbench/summary"
)

func run(rps, p99 float64, sent, errors uint64) *summary.Summary {
	s := &summary.Summary{}
	s.Throughput = rps
	s.Latency.P99 = p99
	s.Requests.Sent, s.Requests.Errors = sent, errors
	return s
}

func find(t *testing.T, c *Comparison, name string) Metric {
	t.Helper()
	for _, m := range c.Metrics {
		if m.Name == name {
			return m
		}
	}
	t.Fatalf("no metric %q", name)
	return Metric{}
}

func TestPhrases(t *testing.T) {
	t.Parallel()
	c := New([]*summary.Summary{run(1000, 10, 100, 0), run(3200, 5, 100, 2), run(500, 30, 100, 0), run(1000, 10, 100, 1)}, []string{"a.rb", "", "c.rb"})
	if got, want := c.Labels[1], "run 2"; got != want {
		t.Errorf("got label %q; want %q", got, want)
	}
	tests := []struct {
		metric string
		run    int
		want   string
		better bool
	}{
		{"throughput", 1, "3.2× more requests/s", true}, // the headline of a comparison
		{"throughput", 2, "0.50× the requests/s", false},
		{"throughput", 3, "same requests/s", false},
		{"p99", 1, "0.50× the p99", true}, // lower latency is better
		{"p99", 2, "3.0× the p99", false},
		{"error rate", 1, "n/a (first run: 0)", false}, // no ratio against zero
		{"error rate", 0, "same error rate", false},
	}
	for _, tc := range tests {
		m := find(t, c, tc.metric)
		if got := m.Phrase(tc.run); got != tc.want {
			t.Errorf("%s run %d: got %q; want %q", tc.metric, tc.run, got, tc.want)
		}
		if got := m.Improved(tc.run); got != tc.better {
			t.Errorf("%s run %d: got Improved %v; want %v", tc.metric, tc.run, got, tc.better)
		}
	}
}

func TestRatio(t *testing.T) {
	t.Parallel()
	tests := []struct{ v, base, want float64 }{
		{6, 2, 3},
		{0, 0, 1},
		{1, 4, 0.25},
	}
	for _, tc := range tests {
		if got := Ratio(tc.v, tc.base); got != tc.want {
			t.Errorf("Ratio(%v, %v): got %v; want %v", tc.v, tc.base, got, tc.want)
		}
	}
	if got := Ratio(1, 0); !math.IsNaN(got) {
		t.Errorf("Ratio(1, 0): got %v; want NaN", got)
	}
}

func TestFormatRatio(t *testing.T) {
	t.Parallel()
	tests := []struct {
		r    float64
		want string
	}{{3.21, "3.2"}, {0.5, "0.50"}, {12, "12.0"}, {150.4, "150"}, {0.0123, "0.012"}}
	for _, tc := range tests {
		if got := FormatRatio(tc.r); got != tc.want {
			t.Errorf("FormatRatio(%v): got %q; want %q", tc.r, got, tc.want)
		}
	}
}
