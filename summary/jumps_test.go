package summary_test

import (
	"slices"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/summary"
)

// jumpRun is a run of ten one-second intervals of p99 1 ms and no failures but two stretches: a
// p99 of 50 ms in seconds 3–5, while target pid 42 burned 95 % of a core (10 % otherwise); 40 of
// 100 requests failed in second 7–8, while go_gc_pause_seconds_total rose to 0.3/s (0 otherwise).
// Nothing else moved: pid 43's CPU and both RSS stay flat, http_requests_total stays at 100/s, the
// generator's send lag at 0.1 ms and its CPU at 30 %.
func jumpRun() *summary.Summary {
	s := &summary.Summary{}
	f := func(v float64) *float64 { return &v }
	m := &result.Metrics{Series: []string{"go_gc_pause_seconds_total", "http_requests_total"}, Types: []string{"counter", "counter"}}
	pid42 := result.Resources{Target: "pid 42"}
	pid43 := result.Resources{Target: "pid 43"}
	self := result.Resources{Target: "rpcbench (self)", Self: true, Cores: 2}
	for i := range 10 {
		p := summary.Point{Start: float64(i), End: float64(i + 1), OK: 100, P99: 1}
		cpu, gc := 10.0, 0.0
		if i == 3 || i == 4 {
			p.P99, cpu = 50, 95
		}
		if i == 7 {
			p.OK, p.Errors, gc = 60, 40, 0.3
		}
		s.Timeline = append(s.Timeline, p)
		at := time.Duration(i+1) * time.Second
		pid42.Samples = append(pid42.Samples, result.ResourceSample{At: at, Interval: time.Second, CPUPercent: cpu, RSS: 100 << 20})
		pid43.Samples = append(pid43.Samples, result.ResourceSample{At: at, Interval: time.Second, CPUPercent: 50 + float64(i%2), RSS: 200 << 20})
		self.Samples = append(self.Samples, result.ResourceSample{At: at, Interval: time.Second, CPUPercent: 30})
		self.SendLagP99 = append(self.SendLagP99, 0.1)
		m.Samples = append(m.Samples, result.MetricsSample{At: at, Values: []*float64{f(gc), f(100)}})
	}
	s.Resources = []result.Resources{pid42, pid43, self}
	s.Metrics = m
	return s
}

// Jumps names the two stretches, each with what coincided with it, and nothing else.
func TestJumps(t *testing.T) {
	got := summary.Jumps(jumpRun())
	want := []summary.Jump{
		{StartS: 3, EndS: 5, What: "p99 latency up to 50.0ms (median interval 1.00ms)", Coincided: []string{"pid 42: CPU 95% of one core (median 10%)"}},
		{StartS: 7, EndS: 8, What: "failed requests up to 40% (median interval 0%)", Coincided: []string{"go_gc_pause_seconds_total rose to 0.3/s (median 0)"}},
	}
	if !slices.EqualFunc(got, want, func(a, b summary.Jump) bool {
		return a.StartS == b.StartS && a.EndS == b.EndS && a.What == b.What && slices.Equal(a.Coincided, b.Coincided)
	}) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

// A target's RSS that grows across a stretch coincides with it; the generator falling behind in it
// does too.
func TestJumpsRSSAndGenerator(t *testing.T) {
	s := jumpRun()
	s.Resources[1].Samples[3].RSS = 230 << 20 // pid 43: 200 MiB before second 3, 230 MiB at its end
	s.Resources[1].Samples[4].RSS = 230 << 20
	s.Resources[2].SendLagP99[4] = 40 // beyond the bound of 10 ms
	got := summary.Jumps(s)
	want := []string{"pid 42: CPU 95% of one core (median 10%)", "pid 43: RSS grew from 200.0 MiB to 230.0 MiB", "the generator fell behind: send lag p99 40.0ms, beyond its bound 10.0ms"}
	if len(got) != 2 || !slices.Equal(got[0].Coincided, want) {
		t.Errorf("got %+v\nwant the first with %q", got, want)
	}
}
