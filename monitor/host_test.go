package monitor

import (
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The host's figures of an interval: busy time of the CPUs less the target's own, and steal, each
// over the interval in percent of one core; the series keeps their averages over time and peaks.
func TestObserveHost(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	self := func(cpu time.Duration) []ProcReading {
		return []ProcReading{{PID: 1, Start: 1, CPU: cpu, IOKnown: true}}
	}
	host := func(busy, steal time.Duration, running uint64) *HostReading {
		return &HostReading{CPUs: 2, Busy: busy, Steal: steal, Running: running, Online: 4}
	}
	var s Sampler
	var ser Series
	x0 := s.Observe(t0, Snapshot{Procs: self(10 * time.Second), Host: host(100*time.Second, 5*time.Second, 3)})
	// 2 s: the target used 0.6 s (30%), its CPUs were busy 2.4 s (120%): others 90%; steal 0.2 s: 10%
	x1 := s.Observe(t0.Add(2*time.Second), Snapshot{Procs: self(10*time.Second + 600*time.Millisecond), Host: host(102400*time.Millisecond, 5200*time.Millisecond, 5)})
	// 1 s: the target used 0.5 s (50%), its CPUs 0.4 s: the counters' ticks disagree, others 0, not negative
	x2 := s.Observe(t0.Add(3*time.Second), Snapshot{Procs: self(11*time.Second + 100*time.Millisecond), Host: host(102800*time.Millisecond, 5200*time.Millisecond, 1)})
	if x0.Host == nil || x0.Host.OthersPercent != 0 || x0.Host.Running != 3 || x0.Host.CPUs != 2 || x0.Host.Online != 4 {
		t.Errorf("baseline host %+v; want 2 of 4 CPUs, 3 running, no rates", x0.Host)
	}
	if h := x1.Host; h == nil || !near(h.OthersPercent, 90) || !near(h.StealPercent, 10) || h.Running != 5 {
		t.Errorf("interval 1 host %+v; want others 90%%, steal 10%%, 5 running", x1.Host)
	}
	if h := x2.Host; h == nil || h.OthersPercent != 0 || h.StealPercent != 0 {
		t.Errorf("interval 2 host %+v; want others 0%%, steal 0%%", x2.Host)
	}
	// 1 s: 2.2 s busy on 2 CPUs (ticks counted past the sample's instant): others at most 200%
	var s2 Sampler
	s2.Observe(t0, Snapshot{Procs: self(0), Host: host(0, 0, 1)})
	if h := s2.Observe(t0.Add(time.Second), Snapshot{Procs: self(0), Host: host(2200*time.Millisecond, 2100*time.Millisecond, 1)}).Host; h.OthersPercent != 200 || h.StealPercent != 200 {
		t.Errorf("overfull interval host %+v; want others and steal at 200%% (2 CPUs)", h)
	}
	for _, x := range []Sample{x0, x1, x2} {
		ser.Add(x)
	}
	h := ser.Summary().Host
	// others: (90 × 2 s + 0 × 1 s) / 3 s = 60, peak 90; running (3 + 5 + 1) / 3 = 3, peak 5
	if h == nil || !near(h.Others.Avg, 60) || !near(h.Others.Peak, 90) || h.Others.Samples != 2 ||
		!near(h.Running.Avg, 3) || h.Running.Peak != 5 || h.CPUs != 2 || h.Online != 4 {
		t.Errorf("summary host %+v; want others avg 60 peak 90 over 2, running avg 3 peak 5, 2 of 4 CPUs", h)
	}
	// a target without host readings has no host figures
	var plain Series
	plain.Add(Sample{Time: t0})
	if plain.Summary().Host != nil {
		t.Errorf("got host figures for a target read without them")
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

func TestParseCPUMax(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct {
		text string
		want float64
	}{{"150000 100000\n", 1.5}, {"max 100000\n", 0}, {"garbage\n", 0}, {"-1 100000", 0}} {
		path := filepath.Join(dir, "cpu.max")
		if err := os.WriteFile(path, []byte(tc.text), 0o600); err != nil {
			t.Fatal(err)
		}
		if got := parseCPUMax(path); got != tc.want {
			t.Errorf("cpu.max %q: got %g CPUs; want %g", tc.text, got, tc.want)
		}
	}
	if got := parseCPUMax(filepath.Join(dir, "absent")); got != 0 {
		t.Errorf("no cpu.max: got %g; want 0", got)
	}
}

// The pauses since a reading are the histogram's new counts; the longest lies in the highest
// bucket that gained one, whose edges bound it.
func TestPausesSince(t *testing.T) {
	t.Parallel()
	inf := math.Inf(1)
	buckets := []float64{math.Inf(-1), 0.001, 0.002, 0.010, inf}
	before := pauseReading{counts: []uint64{0, 5, 1, 0}, buckets: buckets}
	after := pauseReading{counts: []uint64{0, 9, 3, 0}, buckets: buckets}
	if p := after.since(before); p.Count != 6 || p.MaxLow != 2*time.Millisecond || p.Max != 10*time.Millisecond {
		t.Errorf("got %+v; want 6 pauses, the longest in [2ms, 10ms)", p)
	}
	last := pauseReading{counts: []uint64{0, 9, 3, 1}, buckets: buckets}
	if p := last.since(after); p.Count != 1 || p.MaxLow != 10*time.Millisecond || p.Max != 10*time.Millisecond {
		t.Errorf("got %+v; want 1 pause of at least 10ms (the open bucket's lower edge)", p)
	}
	if p := after.since(after); p.Count != 0 || p.Max != 0 {
		t.Errorf("got %+v; want none", p)
	}
	if p := readPauses().since(pauseReading{}); p.Max < p.MaxLow {
		t.Errorf("this process's pauses %+v: the longest's upper edge below its lower", p)
	}
}
