package summary

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/monitor"
	"github.com/rpcbench/rpcbench/result"
)

func TestGeneratorNote(t *testing.T) {
	t.Parallel()
	cpu := func(avg, peak float64) result.ResourceSummary {
		return result.ResourceSummary{Samples: 5, CPUPercent: result.ResourceStat{Avg: avg, Peak: peak, Samples: 4}}
	}
	tests := []struct {
		name string
		r    result.Resources
		want []string // "" alone: no note
	}{
		// 2 CPUs: 180% is 90% of them, the threshold
		{"two CPUs busy", result.Resources{Self: true, Cores: 2, Summary: cpu(150, 180)}, []string{"reached 180% of one core with 2 CPUs to use (avg 150%)", "bottleneck"}},
		{"two CPUs, one busy", result.Resources{Self: true, Cores: 2, Summary: cpu(95, 100)}, []string{""}},
		{"one CPU busy", result.Resources{Self: true, Cores: 1, Summary: cpu(80, 99)}, []string{"reached 99% of one core with 1 CPU to use"}},
		// thirds of 6: mean(1,2)=1.5 ms, mean(30,40)=35 ms: over 10 ms and over 2 × 1.5
		{"lag grows", result.Resources{Self: true, Cores: 4, Summary: cpu(50, 60), SendLagP99: []float64{1, 2, 5, 9, 30, 40}},
			[]string{"send lag p99 grew from 1.50ms in the first third of the run to 35.0ms in the last"}},
		// last third 12 ms, but not twice the first third's 8 ms
		{"lag high, steady", result.Resources{Self: true, Cores: 4, Summary: cpu(50, 60), SendLagP99: []float64{8, 8, 12, 12, 12, 12}}, []string{""}},
		// grows, but stays under 10 ms: a generator keeping up
		{"lag grows, small", result.Resources{Self: true, Cores: 4, Summary: cpu(50, 60), SendLagP99: []float64{0.1, 0.2, 4, 5}}, []string{""}},
		{"both", result.Resources{Self: true, Cores: 1, Summary: cpu(97, 100), SendLagP99: []float64{1, 1, 50}},
			[]string{"reached 100%", "and its send lag p99 grew from 1.00ms to 50.0ms"}},
		{"no samples", result.Resources{Self: true, Cores: 1}, []string{""}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := GeneratorNote(tc.r)
			if tc.want[0] == "" {
				if got != "" {
					t.Errorf("got %q; want no note", got)
				}
				return
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("got %q; want it to contain %q", got, w)
				}
			}
		})
	}
}

// SetResources keeps the figures and adds notes for the generator and for sampling that stopped.
func TestSetResources(t *testing.T) {
	t.Parallel()
	s := &Summary{Notes: []string{"earlier"}}
	rs := []result.Resources{
		{Target: "pid 7", Error: "monitor: listing processes: gone"},
		{Target: "rpcbench (self)", Self: true, Cores: 1, Summary: result.ResourceSummary{CPUPercent: result.ResourceStat{Avg: 90, Peak: 95, Samples: 3}}},
	}
	m := &result.Metrics{URL: "http://127.0.0.1:1/metrics", Error: "refused"}
	s.SetResources(rs, m)
	if len(s.Resources) != 2 || s.Metrics != m {
		t.Fatalf("got %d resources, metrics %v; want 2 and the given", len(s.Resources), s.Metrics)
	}
	want := []string{"earlier", "monitoring pid 7 stopped early: monitor: listing processes: gone", "the load generator may have been the bottleneck", "scraping the metrics of http://127.0.0.1:1/metrics stopped early: refused"}
	if len(s.Notes) != len(want) {
		t.Fatalf("got notes %q; want %d", s.Notes, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(s.Notes[i], w) {
			t.Errorf("note %d: got %q; want it to start %q", i, s.Notes[i], w)
		}
	}
}

// ResourcesOf carries the processes counted, their PIDs, the changes (on the run's timeline) and
// the network scope into the result file's record.
func TestResourcesOfProcesses(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tr := monitor.WatchResult{Target: monitor.Name("w"), Summary: monitor.Summary{ProcsMin: 1, ProcsMax: 2, PIDs: []int{5},
		PIDChanges: []monitor.PIDChange{{Time: t0.Add(1500 * time.Millisecond), Procs: 2, Started: []int{6}}}, PIDChangesTotal: 1,
		NetScope: monitor.NetHostWide}}
	r := ResourcesOf(tr, "process w", func(x time.Time) time.Duration { return x.Sub(t0) })
	want := []result.PIDChange{{At: 1500 * time.Millisecond, Procs: 2, Started: []int{6}}}
	if !reflect.DeepEqual(r.PIDs, []int{5}) || !reflect.DeepEqual(r.PIDChanges, want) || r.PIDChangesTotal != 1 ||
		r.Summary.ProcsMin != 1 || r.Summary.ProcsMax != 2 || r.Summary.NetScope != "host-wide" {
		t.Errorf("got PIDs %v, changes %+v (%d), procs %d..%d, scope %q; want [5], %+v (1), 1..2, host-wide",
			r.PIDs, r.PIDChanges, r.PIDChangesTotal, r.Summary.ProcsMin, r.Summary.ProcsMax, r.Summary.NetScope, want)
	}
}

func TestProcessesText(t *testing.T) {
	t.Parallel()
	many := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	changes := []result.PIDChange{{At: time.Second, Procs: 2}, {At: 2 * time.Second, Procs: 3}, {At: 2500 * time.Millisecond, Procs: 2}, {At: 4 * time.Second, Procs: 2}}
	tests := []struct {
		name string
		r    result.Resources
		want string
	}{
		{"one", result.Resources{PIDs: []int{42}, Summary: result.ResourceSummary{ProcsMin: 1, ProcsMax: 1}}, "1 (pid 42)"},
		{"cgroup", result.Resources{Summary: result.ResourceSummary{ProcsMin: 1, ProcsMax: 1}}, "whole cgroup"},
		{"older file", result.Resources{Samples: []result.ResourceSample{{Procs: 1}, {Procs: 3}}}, "1–3"},
		{"none ran", result.Resources{Samples: []result.ResourceSample{{Procs: 0}}}, "0"},
		{"nothing", result.Resources{}, "—"},
		{"many", result.Resources{PIDs: many, Summary: result.ResourceSummary{ProcsMin: 10, ProcsMax: 10}}, "10 (pids 1,2,3,4,5,6,7,8 and 2 more)"},
		{"changed", result.Resources{PIDs: []int{1}, PIDChanges: changes, PIDChangesTotal: 5, Summary: result.ResourceSummary{ProcsMin: 1, ProcsMax: 3}},
			"1–3 (pid 1 at the start; changed 5×, at 1.0s, 2.0s, 2.5s, …)"},
	}
	for _, tt := range tests {
		if got := ProcessesText(tt.r); got != tt.want {
			t.Errorf("%s: got %q; want %q", tt.name, got, tt.want)
		}
	}
}

// PIDsAt replays the changes kept; past the last one kept, when more happened, it does not know.
func TestPIDsAt(t *testing.T) {
	t.Parallel()
	r := result.Resources{PIDs: []int{1, 2}, PIDChangesTotal: 3, PIDChanges: []result.PIDChange{
		{At: time.Second, Procs: 3, Started: []int{3}},
		{At: 2 * time.Second, Procs: 2, Exited: []int{1}},
	}}
	tests := []struct {
		at   time.Duration
		want []int
		ok   bool
	}{
		{0, []int{1, 2}, true},
		{time.Second, []int{1, 2, 3}, true},
		{2 * time.Second, []int{2, 3}, true},
		{3 * time.Second, nil, false}, // the third change is not kept: it may have come before
	}
	for _, tt := range tests {
		if got, ok := PIDsAt(r, tt.at); ok != tt.ok || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("at %v: got %v, %v; want %v, %v", tt.at, got, ok, tt.want, tt.ok)
		}
	}
	if _, ok := PIDsAt(result.Resources{Summary: result.ResourceSummary{ProcsMin: 1, ProcsMax: 1}}, 0); ok {
		t.Error("a cgroup: got PIDs; want none known")
	}
}
