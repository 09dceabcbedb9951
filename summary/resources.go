package summary

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
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
}

// GeneratorNote says, from the generator's own resources, whether it was the bottleneck: some
// interval used at least SaturationPercent of its CPUs, or its per-interval send lag p99 kept
// growing (the mean of the last third of the intervals above 10 ms and twice the first third's).
// It returns "" when neither holds.
func GeneratorNote(r result.Resources) string {
	cores := r.Cores
	if cores <= 0 {
		cores = 1
	}
	cpu := r.Summary.CPUPercent
	busy := cpu.Samples > 0 && cpu.Peak >= SaturationPercent*cores
	first, last, growing := lagTrend(r.SendLagP99)
	var why string
	switch {
	case busy && growing:
		why = fmt.Sprintf("its CPU reached %.0f%% of one core with %s (avg %.0f%%) and its send lag p99 grew from %s to %s",
			cpu.Peak, cpuWord(cores), cpu.Avg, FormatMs(first), FormatMs(last))
	case busy:
		why = fmt.Sprintf("its CPU reached %.0f%% of one core with %s (avg %.0f%%)", cpu.Peak, cpuWord(cores), cpu.Avg)
	case growing:
		why = fmt.Sprintf("its send lag p99 grew from %s in the first third of the run to %s in the last", FormatMs(first), FormatMs(last))
	default:
		return ""
	}
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

// maxPIDsShown is how many PIDs ProcessesText names before saying how many more there are.
const maxPIDsShown = 8

// ProcessesText says how many processes the monitor counted of r and which: "1 (pid 4242)",
// "3 (pids 11,12,13)", "2–3 (pids 11,12 at the start; changed 2×, at 1.0s, 2.0s)", "whole cgroup"
// for a cgroup read as a whole; "—" when nothing says.
func ProcessesText(r result.Resources) string {
	lo, hi := r.Summary.ProcsMin, r.Summary.ProcsMax
	if len(r.PIDs) == 0 && r.PIDChangesTotal == 0 && lo == 1 && hi == 1 {
		return "whole cgroup" // counted processes without a PID: the cgroup's own reading
	}
	if hi == 0 && len(r.Samples) > 0 { // a file from before procs_min and procs_max, or none ran
		lo, hi = r.Samples[0].Procs, r.Samples[0].Procs
		for _, x := range r.Samples {
			lo, hi = min(lo, x.Procs), max(hi, x.Procs)
		}
	}
	if hi == 0 && len(r.Samples) == 0 {
		return "—"
	}
	n := strconv.Itoa(hi)
	if lo != hi {
		n = strconv.Itoa(lo) + "–" + n
	}
	var what []string
	if len(r.PIDs) > 0 {
		w := "pid "
		if len(r.PIDs) > 1 {
			w = "pids "
		}
		w += joinInts(r.PIDs[:min(len(r.PIDs), maxPIDsShown)], ",")
		if len(r.PIDs) > maxPIDsShown {
			w += fmt.Sprintf(" and %d more", len(r.PIDs)-maxPIDsShown)
		}
		if r.PIDChangesTotal > 0 {
			w += " at the start"
		}
		what = append(what, w)
	}
	if r.PIDChangesTotal > 0 {
		var at []string
		for _, c := range r.PIDChanges[:min(len(r.PIDChanges), 3)] {
			at = append(at, secondsText(c.At))
		}
		w := fmt.Sprintf("changed %d×, at %s", r.PIDChangesTotal, strings.Join(at, ", "))
		if r.PIDChangesTotal > len(at) {
			w += ", …"
		}
		what = append(what, w)
	}
	if len(what) == 0 {
		return n
	}
	return n + " (" + strings.Join(what, "; ") + ")"
}

// PIDChangesText says, for a target whose processes changed during the run, each change kept:
// "at 1.0s started 4243, 3 processes; at 2.0s exited 4242, 2 processes", and how many more there
// were; "" when the set never changed.
func PIDChangesText(r result.Resources) string {
	if r.PIDChangesTotal == 0 {
		return ""
	}
	var parts []string
	for _, c := range r.PIDChanges {
		p := "at " + secondsText(c.At)
		if len(c.Started) > 0 {
			p += " started " + joinInts(c.Started, ",")
		}
		if len(c.Exited) > 0 {
			if len(c.Started) > 0 {
				p += ","
			}
			p += " exited " + joinInts(c.Exited, ",")
		}
		parts = append(parts, p+", "+plural(c.Procs, "process", "processes"))
	}
	s := fmt.Sprintf("the processes of %s changed %s: %s", r.Target, plural(r.PIDChangesTotal, "time", "times"), strings.Join(parts, "; "))
	if more := r.PIDChangesTotal - len(r.PIDChanges); more > 0 {
		s += fmt.Sprintf("; and %s more", plural(more, "change", "changes"))
	}
	return s
}

// PIDsAt returns the PIDs r counted at at (from the measured start), replaying its changes from
// the first sample's PIDs; ok is false when the changes kept do not reach that far, or r has no
// PIDs (a cgroup, an older file).
func PIDsAt(r result.Resources, at time.Duration) (pids []int, ok bool) {
	if len(r.PIDs) == 0 && r.PIDChangesTotal == 0 {
		return nil, false
	}
	set := map[int]bool{}
	for _, p := range r.PIDs {
		set[p] = true
	}
	if n := len(r.PIDChanges); r.PIDChangesTotal > n && (n == 0 || at > r.PIDChanges[n-1].At) {
		return nil, false // a change beyond the kept ones may have come before at
	}
	for _, c := range r.PIDChanges {
		if c.At > at {
			break
		}
		for _, p := range c.Started {
			set[p] = true
		}
		for _, p := range c.Exited {
			delete(set, p)
		}
	}
	for p := range set {
		pids = append(pids, p)
	}
	slices.Sort(pids)
	return pids, true
}

// plural writes n and the noun's form for it: "1 process", "3 processes".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

func joinInts(xs []int, sep string) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, sep)
}

func secondsText(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + "s" }

// NetScopeOf says whose bytes r's network figures are: "host-wide", "netns-wide", or "" when it
// has none. A file from before the scope was recorded read the namespace too.
func NetScopeOf(r result.Resources) string {
	switch {
	case r.Summary.NetScope != "":
		return r.Summary.NetScope
	case r.Summary.NetRx.Samples > 0 || r.Summary.NetTx.Samples > 0:
		return "netns-wide"
	}
	return ""
}
