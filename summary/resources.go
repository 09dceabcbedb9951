package summary

import (
	"fmt"
	"time"

	"github.com/rpcbench/rpcbench/result"
)

// Thresholds of the note on a generator that was the bottleneck.
const (
	// SaturationPercent is the share of its CPUs (GOMAXPROCS) above which the generator, in some
	// interval, is said to have had no CPU to spare.
	SaturationPercent = 90
	// lagGrowth is how many times the send lag p99 of a run's last third must exceed its first
	// third's (and lagNote too) to be said to grow.
	lagGrowth = 2
)

// SetResources adds what the resource monitor saw during the run — one entry per target, the
// generator's own among them, and the target's Prometheus series — and the notes they call for:
// a generator that had no CPU to spare or whose send lag kept growing (its limit, not the
// server's), and sampling that stopped early. Call it after New (and SetTimeline).
func (s *Summary) SetResources(rs []result.Resources, m *result.Metrics) {
	s.Resources, s.Metrics = rs, m
	for _, r := range rs {
		if r.Error != "" {
			s.Notes = append(s.Notes, fmt.Sprintf("monitoring %s stopped early: %s; its figures cover the run until then", r.Target, r.Error))
		}
		if r.Self {
			if n := GeneratorNote(r); n != "" {
				s.Notes = append(s.Notes, n)
			}
		}
	}
	if m != nil && m.Error != "" {
		s.Notes = append(s.Notes, fmt.Sprintf("scraping the metrics of %s stopped early: %s", m.URL, m.Error))
	}
	s.Validity = Judge(s)
}

// GeneratorNote says, from the generator's own resources, whether it was the bottleneck: only
// when some interval used at least SaturationPercent of the CPUs it could use. A send lag p99
// that kept growing (the mean of the last third of the intervals above 10 ms and twice the first
// third's) without that gets a note that says so and what the CPU figures show — other processes
// on its CPUs, or its own CPU short of saturated — never "bottleneck": a busy machine or a slow
// target can delay an idle generator. It returns "" when neither holds.
func GeneratorNote(r result.Resources) string {
	cores := r.Cores
	if cores <= 0 {
		cores = 1
	}
	cpu := r.Summary.CPUPercent
	_, busy := saturated(r)
	first, last, growing := lagTrend(r.SendLagP99)
	grew := fmt.Sprintf("its send lag p99 grew from %s in the first third of the run to %s in the last", FormatMs(first), FormatMs(last))
	switch {
	case busy && growing:
		return bottleneck(fmt.Sprintf("its CPU reached %.0f%% of one core with %s (avg %.0f%%) and its send lag p99 grew from %s to %s",
			cpu.Peak, cpuWord(cores), cpu.Avg, FormatMs(first), FormatMs(last)))
	case busy:
		return bottleneck(fmt.Sprintf("its CPU reached %.0f%% of one core with %s (avg %.0f%%)", cpu.Peak, cpuWord(cores), cpu.Avg))
	case growing:
		msg := "requests went out later and later: " + grew
		if cpu.Samples > 0 {
			msg += fmt.Sprintf(", while the generator used at most %.0f%% of one core with %s, short of the %.0f%% that would saturate them", cpu.Peak, cpuWord(cores), SaturationPercent*cores)
		}
		if taken := cpuTaken(r); taken != "" {
			msg += "; " + taken
		}
		return msg
	}
	return ""
}

func bottleneck(why string) string {
	return "the load generator may have been the bottleneck: " + why +
		"; these figures may be its limit rather than the server's — give it more CPUs, another machine, or a lower rate before publishing them"
}

func cpuWord(cores float64) string {
	if cores == 1 {
		return "1 CPU to use"
	}
	return fmt.Sprintf("%g CPUs to use", cores)
}

// lagTrend compares the mean send lag p99 (ms) of the first and the last third of the intervals.
func lagTrend(lag []float64) (first, last float64, growing bool) {
	n := len(lag) / 3
	if n == 0 {
		return 0, 0, false
	}
	mean := func(xs []float64) float64 {
		sum := 0.0
		for _, x := range xs {
			sum += x
		}
		return sum / float64(len(xs))
	}
	first, last = mean(lag[:n]), mean(lag[len(lag)-n:])
	growing = last > float64(lagNote/time.Millisecond) && last > lagGrowth*first
	return first, last, growing
}
