package summary

import (
	"strings"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/result"
)

// clean is an open-model run at 1000/s for 10 s that kept up, with 10,000 latencies (enough for
// p99.99) and an idle machine; each case below changes one figure to its bound or just past it.
func clean() *Summary {
	h := result.NewHistogram()
	h.RecordValues(500, 10_000)
	return &Summary{
		Config:       plan.Plan{Load: plan.Load{Model: plan.Open, Rate: 1000}},
		SendingS:     10,
		SendSpanS:    10,
		IntendedRate: 1000,
		Stats: Stats{
			Requests:    Requests{Intended: 10_000, Sent: 10_000, Completed: 10_000, OK: 10_000},
			LatencyHist: h,
		},
		SendLag: LagStats{P50: 0.05, P99: 0.2, Max: 1},
		Resources: []result.Resources{{
			Target: "rpcbench (self)", Self: true, Cores: 2,
			Summary: result.ResourceSummary{Samples: 11, CPUPercent: result.ResourceStat{Avg: 20, Peak: 30, Samples: 10}},
			Host: &result.HostCPU{CPUs: 2, Online: 2,
				OthersPercent: result.ResourceStat{Avg: 5, Peak: 10, Samples: 10},
				StealPercent:  result.ResourceStat{Samples: 10},
				Running:       result.ResourceStat{Avg: 1, Peak: 2, Samples: 11}},
			GCPauses: &result.GCPauses{Count: 3, MaxLowMs: 0.45, MaxMs: 0.5},
		}},
	}
}

func self(s *Summary) *result.Resources { return &s.Resources[0] }

func TestJudge(t *testing.T) {
	t.Parallel()
	hist := func(n int64) *result.Histogram {
		h := result.NewHistogram()
		h.RecordValues(500, n)
		return h
	}
	tests := []struct {
		name   string
		change func(s *Summary)
		reason string // "" for a valid run
		caveat string // "" for none
		closed bool   // the run is closed-model
	}{
		{name: "clean", change: func(*Summary) {}},
		// the lag bound is slack + 10 ms: 10 ms is at it, 10.001 ms beyond
		{name: "lag at bound", change: func(s *Summary) { s.SendLag.P99 = 10 }},
		{name: "lag beyond bound", change: func(s *Summary) { s.SendLag.P99 = 10.001 },
			reason: "the generator fell behind: send lag p99 10.0ms, beyond its bound 10.0ms"},
		{name: "lag within slack + bound", change: func(s *Summary) { s.Config.Load.SendSlack = 5 * time.Millisecond; s.SendLag.P99 = 15 }},
		{name: "lag beyond slack + bound", change: func(s *Summary) { s.Config.Load.SendSlack = 5 * time.Millisecond; s.SendLag.P99 = 15.5 },
			reason: "send lag p99 15.5ms, beyond its bound 15.0ms (send slack 5.00ms + 10.0ms)"},
		{name: "dropped", change: func(s *Summary) { s.Requests.Dropped = 1; s.Requests.Sent-- },
			reason: "the generator fell behind: 1 of 10000 intended requests were never sent"},
		// 1% short of 1000/s is 990/s: 10,000 made in 10.1 s is 990.1/s, within it
		{name: "short within bound", change: func(s *Summary) { s.SendSpanS = 10.1 }},
		{name: "cut short", change: func(s *Summary) { s.Requests.Unknown = 500; s.Requests.Sent -= 500; s.SendSpanS = 10.2 },
			caveat: "the result file was cut short: 500 of 10000 intended requests have an unknown fate, so whether the generator kept up cannot be told"},
		// cut short, the sent requests' lag still tells: 250 ms is beyond the bound, and the busy
		// CPUs then say why, not that it "kept up"
		{name: "cut short and late", change: func(s *Summary) {
			s.Requests.Unknown = 500
			s.Requests.Sent -= 500
			s.SendLag.P99 = 250
			self(s).Host.OthersPercent.Peak = 150
		}, reason: "the generator fell behind: send lag p99 250.0ms, beyond its bound 10.0ms",
			caveat: "the result file was cut short"},
		{name: "short beyond bound", change: func(s *Summary) { s.SendSpanS = 10.2 },
			reason: "it sent 980.4/s of an intended 1000.0/s, more than 1% short"},
		// 2 CPUs: 180% of one core is 90% of them
		{name: "own CPU below saturation", change: func(s *Summary) { self(s).Summary.CPUPercent.Peak = 179.9 }},
		{name: "own CPU saturated", change: func(s *Summary) { self(s).Summary.CPUPercent.Peak = 180 },
			reason: "the generator's own CPU saturated: its busiest interval used 180% of one core with 2 CPUs to use (bound 180%, 90% of them; avg 20%)"},
		// 2 CPUs: others at 100% of one core is 50% of them
		{name: "others below bound", change: func(s *Summary) { self(s).Host.OthersPercent.Peak = 99.9 }},
		{name: "others at bound, generator kept up", change: func(s *Summary) { self(s).Host.OthersPercent.Peak = 100 },
			caveat: "other processes took the generator's CPU: other processes used up to 100% of one core on the 2 CPUs it runs on in one interval (avg 5%; bound 100%, 50% of them); the generator kept up (send lag p99 200µs, within its bound 10.0ms)"},
		{name: "others at bound, generator behind", change: func(s *Summary) { self(s).Host.OthersPercent.Peak = 100; s.SendLag.P99 = 30 },
			reason: "other processes took the generator's CPU: other processes used up to 100% of one core"},
		{name: "others, closed model", closed: true, change: func(s *Summary) { self(s).Host.OthersPercent.Peak = 150 },
			caveat: "it may have sent and read late, adding to the latency"},
		// the event loop times answers by the kernel's receive stamps: reading late moves nothing
		{name: "others at bound, event loop kept up", change: func(s *Summary) { self(s).Host.OthersPercent.Peak = 100; s.Sender = "event loop" },
			caveat: "(send lag p99 200µs, within its bound 10.0ms), and reading answers late does not move their times (the event loop times answers by the kernel's receive timestamps)"},
		{name: "others, closed model, event loop", closed: true, change: func(s *Summary) { self(s).Host.OthersPercent.Peak = 150; s.Sender = "event loop" },
			caveat: "it may have sent late (the event loop times answers by the kernel's receive timestamps: reading them late adds nothing)"},
		{name: "run queue beyond CPUs", change: func(s *Summary) { self(s).Host.OthersPercent.Peak = 100; self(s).Host.Running.Peak = 5 },
			caveat: "up to 5 tasks were runnable at once on the machine's 2 CPUs"},
		// steal: 10% of 2 CPUs is 20% of one core
		{name: "steal below bound", change: func(s *Summary) { self(s).Host.StealPercent.Peak = 19.9 }},
		{name: "steal at bound", change: func(s *Summary) { self(s).Host.StealPercent.Peak = 20 },
			caveat: "the hypervisor stole up to 20% of one core from them (avg 0%; bound 20%, 10% of them)"},
		// the longest pause in a bucket from 9.5 to 10.5 ms may have been under the bound
		{name: "GC pause may be below bound", change: func(s *Summary) { self(s).GCPauses.MaxLowMs, self(s).GCPauses.MaxMs = 9.5, 10.5 }},
		{name: "GC pause at bound", change: func(s *Summary) { self(s).GCPauses.MaxLowMs, self(s).GCPauses.MaxMs = 10, 11 },
			reason: "the generator's garbage collector paused it for 10.0ms to 11.0ms at the longest (3 pauses), reaching the bound 10.0ms"},
		{name: "9,999 latencies", change: func(s *Summary) { s.LatencyHist = hist(9_999) },
			reason: "too few samples for the percentiles shown: 9,999 latencies, and p99.99 needs 10,000"},
		{name: "999 latencies", change: func(s *Summary) { s.LatencyHist = hist(999) },
			reason: "999 latencies, and p99.9 needs 1,000, p99.99 needs 10,000"},
		{name: "1,000 latencies", change: func(s *Summary) { s.LatencyHist = hist(1_000) },
			reason: "1,000 latencies, and p99.99 needs 10,000"},
		{name: "no latencies", change: func(s *Summary) { s.LatencyHist = hist(0) },
			reason: "no latency was measured"},
		{name: "ports ran out", change: func(s *Summary) {
			s.ErrorMessages = []ErrorMessage{{Class: "other", Message: "dial tcp 127.0.0.1:8080: connect: cannot assign requested address", Count: 7}, {Class: "refused", Message: "connection refused", Count: 3}}
		}, reason: `the generator's machine ran out of local ports or file descriptors: 7 requests failed with "cannot assign requested address"`},
		{name: "files ran out", change: func(s *Summary) {
			s.ErrorMessages = []ErrorMessage{{Class: "other", Message: "dial tcp: socket: too many open files", Count: 2}}
		}, reason: `2 requests failed with "too many open files"`},
		{name: "other failures are the target's", change: func(s *Summary) {
			s.ErrorMessages = []ErrorMessage{{Class: "refused", Message: "connect: connection refused", Count: 9}}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := clean()
			if tc.closed {
				s.Config.Load = plan.Load{Model: plan.Closed, Connections: 4}
			}
			tc.change(s)
			v := Judge(s)
			if v.Valid != (tc.reason == "") {
				t.Errorf("valid %v; want %v: %+v", v.Valid, tc.reason == "", v)
			}
			if tc.reason != "" && !contains(v.Reasons, tc.reason) {
				t.Errorf("reasons %q; want one containing %q", v.Reasons, tc.reason)
			}
			if tc.caveat != "" && !contains(v.Caveats, tc.caveat) {
				t.Errorf("caveats %q; want one containing %q", v.Caveats, tc.caveat)
			}
			if tc.caveat == "" && len(v.Caveats) > 0 {
				t.Errorf("caveats %q; want none", v.Caveats)
			}
			if tc.reason == "" && tc.caveat == "" && (len(v.Reasons) > 0 || len(v.Caveats) > 0) {
				t.Errorf("got %+v; want a valid run without caveats", v)
			}
		})
	}
}

func contains(xs []string, sub string) bool {
	for _, x := range xs {
		if strings.Contains(x, sub) {
			return true
		}
	}
	return false
}

// A busy machine with an idle generator whose send lag grew is not "the generator was the
// bottleneck": the note says what the CPU figures show.
func TestGeneratorNoteIdleGenerator(t *testing.T) {
	t.Parallel()
	r := result.Resources{Self: true, Cores: 2,
		Summary:    result.ResourceSummary{Samples: 7, CPUPercent: result.ResourceStat{Avg: 0.5, Peak: 1, Samples: 6}},
		SendLagP99: []float64{1, 1, 5, 5, 20, 30}, // thirds: 1 ms, then 25 ms
		Host: &result.HostCPU{CPUs: 2, Online: 2,
			OthersPercent: result.ResourceStat{Avg: 150, Peak: 195, Samples: 6},
			StealPercent:  result.ResourceStat{Samples: 6}},
	}
	got := GeneratorNote(r)
	for _, want := range []string{
		"requests went out later and later: its send lag p99 grew from 1.00ms in the first third of the run to 25.0ms in the last",
		"while the generator used at most 1% of one core with 2 CPUs to use, short of the 180% that would saturate them",
		"other processes used up to 195% of one core on the 2 CPUs it runs on",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("got %q; want it to contain %q", got, want)
		}
	}
	if strings.Contains(got, "bottleneck") {
		t.Errorf("got %q; want no word of a bottleneck", got)
	}
}

// The verdict follows the resources added after New: a run judged valid without them is judged
// again with them (what `report run.rb` does with the file's resources lines).
func TestSetResourcesJudgesAgain(t *testing.T) {
	t.Parallel()
	s := clean()
	rs := s.Resources
	s.Resources = nil
	s.Validity = Judge(s)
	if !s.Validity.Valid {
		t.Fatalf("without resources: %+v; want valid", s.Validity)
	}
	rs[0].Summary.CPUPercent.Peak = 190 // of 2 CPUs: saturated
	s.SetResources(rs, nil)
	if s.Validity.Valid || !contains(s.Validity.Reasons, "the generator's own CPU saturated") {
		t.Errorf("with a saturated generator: %+v; want invalid, naming its CPU", s.Validity)
	}
}
