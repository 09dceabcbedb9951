package summary

import (
	"fmt"
	"math"
	"strings"
	"syscall"
	"time"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/result"
)

// Bounds of the validity verdict (see Judge).
const (
	// LagBound is how far beyond the send slack (--send-slack; 0 without one) the send lag p99 may
	// go before the generator is said to have fallen behind its schedule.
	LagBound = 10 * time.Millisecond
	// OthersPercent is the share of the CPUs the generator may run on that other processes may
	// take in an interval before it is said that they took its CPU.
	OthersPercent = 50
	// StealPercent is the share of those CPUs a hypervisor may steal in an interval before the
	// same is said.
	StealPercent = 10
	// GCPauseBound is the longest garbage-collection pause of the generator that leaves its send
	// times and its reading of answers to the schedule.
	GCPauseBound = 10 * time.Millisecond
)

// Validity is the verdict on whether a run measured the target rather than the generator or the
// machine. Valid is false when there is at least one reason; caveats leave it valid but must be
// read with the figures. Each reason and caveat gives the measured figure and its bound.
type Validity struct {
	Valid   bool     `json:"valid"`
	Reasons []string `json:"reasons"`
	Caveats []string `json:"caveats"`
}

// stampedAnswers says how the event loop times answers (Summary.Sender).
const stampedAnswers = "the event loop times answers by the kernel's receive timestamps"

// Judge returns the validity verdict on the figures of s, from these reasons:
//   - the generator fell behind its schedule (open model): intended requests never sent, a send
//     rate more than 1% below the intended one, or a send lag p99 beyond the send slack plus
//     LagBound; for a merged run, any generator that did;
//   - the generator's own CPU saturated: an interval of the self-monitor at or above
//     SaturationPercent of the CPUs it could use;
//   - other processes took the CPUs it runs on (OthersPercent of them, or StealPercent stolen, in
//     some interval): a reason when the generator fell behind, else a caveat, since it kept up;
//   - its garbage collector paused it for at least GCPauseBound (the lower edge of the runtime's
//     histogram bucket of the longest pause);
//   - too few latencies for the percentiles the reports show: p needs 100/(100−p) of them (p99
//     100, p99.9 1,000, p99.99 10,000), unless the run had no calls, only subscriptions
//     (plan.Plan.SubscriptionsOnly);
//   - requests failed because the machine ran out of local ports or file descriptors;
//   - the target answered from a process of this machine that no monitored target (by PID, with
//     the processes below, or by name) counted (see MarkListeners).
func Judge(s *Summary) Validity {
	v := Validity{Reasons: []string{}, Caveats: []string{}}
	behind := fellBehind(s)
	v.Reasons = append(v.Reasons, GeneratorLimits(s)...)
	if u := s.Requests.Unknown; u > 0 {
		v.Caveats = append(v.Caveats, fmt.Sprintf("the result file was cut short: %d of %d intended requests have an unknown fate, so whether the generator kept up cannot be told", u, s.Requests.Intended))
	}
	for _, r := range s.Resources {
		if !r.Self {
			continue
		}
		if taken := cpuTaken(r); taken != "" {
			switch {
			case len(behind) > 0:
				v.Reasons = append(v.Reasons, "other processes took the generator's CPU: "+taken)
			case s.Config.Load.Model == plan.Open && s.Requests.Unknown == 0:
				late := "but may have read answers late"
				if s.Sender != "" {
					late = "and reading answers late does not move their times (" + stampedAnswers + ")"
				}
				v.Caveats = append(v.Caveats, "other processes took the generator's CPU: "+taken+
					fmt.Sprintf("; the generator kept up (send lag p99 %s, within its bound %s), %s", FormatMs(s.SendLag.P99), FormatMs(ms(lagBound(s.Config.Load).Microseconds())), late))
			case s.Sender != "":
				v.Caveats = append(v.Caveats, "other processes took the generator's CPU: "+taken+"; it may have sent late ("+stampedAnswers+": reading them late adds nothing)")
			default:
				v.Caveats = append(v.Caveats, "other processes took the generator's CPU: "+taken+"; it may have sent and read late, adding to the latency")
			}
		}
		if g := r.GCPauses; g != nil && g.MaxLowMs >= float64(GCPauseBound)/float64(time.Millisecond) {
			v.Reasons = append(v.Reasons, fmt.Sprintf("the generator's garbage collector paused it for %s to %s at the longest (%d pauses), reaching the bound %s",
				FormatMs(g.MaxLowMs), FormatMs(g.MaxMs), g.Count, FormatMs(float64(GCPauseBound)/float64(time.Millisecond))))
		}
	}
	if why := fewSamples(s.LatencyHist); why != "" && !s.Config.SubscriptionsOnly() { // a run of subscriptions alone has no calls to time
		v.Reasons = append(v.Reasons, why)
	}
	if why := exhausted(s.ErrorMessages); why != "" {
		v.Reasons = append(v.Reasons, why)
	}
	if why, caveat := answeredElsewhere(s.Resources); why != "" {
		v.Reasons = append(v.Reasons, why)
	} else if caveat != "" {
		v.Caveats = append(v.Caveats, caveat)
	}
	v.Valid = len(v.Reasons) == 0
	return v
}

// GeneratorLimits returns the reasons of Judge that say the generator did not keep up on its own
// account: it fell behind its schedule, or its own CPU saturated. None: it kept up.
func GeneratorLimits(s *Summary) []string {
	out := fellBehind(s)
	for _, r := range s.Resources {
		if why, ok := saturated(r); ok && r.Self {
			out = append(out, "the generator's own CPU saturated: "+why)
		}
	}
	return out
}

// lagBound is the send lag p99 beyond which the generator fell behind under load l.
func lagBound(l plan.Load) time.Duration { return l.SendSlack + LagBound }

// fellBehind says how the generator fell behind its open-model schedule, if it did.
func fellBehind(s *Summary) []string {
	var out []string
	l := s.Config.Load
	if l.Model != plan.Open {
		return nil
	}
	cutShort := s.Requests.Unknown > 0 // the fate of some arrivals unknown: only the sent ones tell
	const pre = "the generator fell behind: "
	if d := s.Requests.Dropped; cutShort {
		// how many were never sent, and the send rate, cannot be told (see Judge's caveat)
	} else if d > 0 {
		out = append(out, fmt.Sprintf(pre+"%d of %d intended requests were never sent", d, s.Requests.Intended))
	} else if made, short := shortfall(s); short {
		out = append(out, fmt.Sprintf(pre+"it sent %.1f/s of an intended %.1f/s, more than %g%% short", made, s.IntendedRate, shortfallPct))
	}
	if bound := lagBound(l); s.Requests.Sent > 0 && s.SendLag.P99 > ms(bound.Microseconds()) {
		why := fmt.Sprintf(pre+"send lag p99 %s, beyond its bound %s", FormatMs(s.SendLag.P99), FormatMs(ms(bound.Microseconds())))
		if l.SendSlack > 0 {
			why += fmt.Sprintf(" (send slack %s + %s)", FormatMs(ms(l.SendSlack.Microseconds())), FormatMs(ms(LagBound.Microseconds())))
		}
		out = append(out, why)
	}
	for _, g := range s.Generators {
		if g.FellBehind {
			out = append(out, fmt.Sprintf("generator %s fell behind: %s", g.Name(), g.Why))
		}
	}
	return out
}

// shortfall returns the rate at which the open model's requests were made (sent, or failed before
// sending) and whether it fell more than shortfallPct short of the intended rate.
func shortfall(s *Summary) (float64, bool) {
	if s.SendSpanS <= 0 || s.IntendedRate <= 0 {
		return 0, false
	}
	made := float64(s.Requests.Attempted()) / s.SendSpanS
	return made, made < s.IntendedRate*(1-shortfallPct/100)
}

// saturated says whether some interval of the generator's own monitor used at least
// SaturationPercent of the CPUs it could use, and how much.
func saturated(r result.Resources) (string, bool) {
	cores := r.Cores
	if cores <= 0 {
		cores = 1
	}
	cpu := r.Summary.CPUPercent
	if cpu.Samples == 0 || cpu.Peak < SaturationPercent*cores {
		return "", false
	}
	return fmt.Sprintf("its busiest interval used %.0f%% of one core with %s (bound %.0f%%, %d%% of them; avg %.0f%%)",
		cpu.Peak, cpuWord(cores), SaturationPercent*cores, SaturationPercent, cpu.Avg), true
}

// cpuTaken says, when other processes or a hypervisor took at least their bound of the CPUs the
// generator could run on in some interval, how much; "" otherwise or when it was not read.
func cpuTaken(r result.Resources) string {
	h := r.Host
	if h == nil || h.CPUs <= 0 {
		return ""
	}
	n := float64(h.CPUs)
	others := h.OthersPercent.Samples > 0 && h.OthersPercent.Peak >= OthersPercent*n
	steal := h.StealPercent.Samples > 0 && h.StealPercent.Peak >= StealPercent*n
	if !others && !steal {
		return ""
	}
	var parts []string
	if others {
		parts = append(parts, fmt.Sprintf("other processes used up to %.0f%% of one core on the %s it runs on in one interval (avg %.0f%%; bound %.0f%%, %d%% of them)",
			h.OthersPercent.Peak, cpuCount(h.CPUs), h.OthersPercent.Avg, OthersPercent*n, OthersPercent))
	}
	if steal {
		parts = append(parts, fmt.Sprintf("the hypervisor stole up to %.0f%% of one core from them (avg %.0f%%; bound %.0f%%, %d%% of them)",
			h.StealPercent.Peak, h.StealPercent.Avg, StealPercent*n, StealPercent))
	}
	if rn := h.Running; rn.Samples > 0 && h.Online > 0 && rn.Peak > float64(h.Online) {
		parts = append(parts, fmt.Sprintf("up to %.0f tasks were runnable at once on the machine's %s", rn.Peak, cpuCount(h.Online)))
	}
	return strings.Join(parts, "; ")
}

func cpuCount(n int) string {
	if n == 1 {
		return "1 CPU"
	}
	return fmt.Sprintf("%d CPUs", n)
}

// shownPercentiles are the percentiles every report shows, with their names.
var shownPercentiles = []struct {
	name string
	q    float64
}{{"p50", 50}, {"p75", 75}, {"p90", 90}, {"p95", 95}, {"p99", 99}, {"p99.9", 99.9}, {"p99.99", 99.99}}

// SamplesFor is how many latencies a percentile q (0–100) needs before it says more than the
// maximum: 100/(100−q), so that at least one latency lies above it.
func SamplesFor(q float64) uint64 { return uint64(math.Round(100 / (100 - q))) }

// fewSamples names the shown percentiles that h holds too few latencies for.
func fewSamples(h *result.Histogram) string {
	if h == nil {
		return ""
	}
	n := uint64(h.TotalCount())
	if n == 0 {
		return "no latency was measured: no request was answered"
	}
	var need []string
	for _, p := range shownPercentiles {
		if k := SamplesFor(p.q); n < k {
			need = append(need, fmt.Sprintf("%s needs %s", p.name, thousands(k)))
		}
	}
	if len(need) == 0 {
		return ""
	}
	return fmt.Sprintf("too few samples for the percentiles shown: %s latencies, and %s", thousands(n), strings.Join(need, ", "))
}

// thousands writes n with commas between groups of three digits.
func thousands(n uint64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// exhaustion are the system errors that say the generator's machine ran out of local ports or file
// descriptors, rather than the target failing.
var exhaustion = []syscall.Errno{syscall.EADDRNOTAVAIL, syscall.EADDRINUSE, syscall.EMFILE, syscall.ENFILE}

// exhausted says how many requests failed because the machine ran out of ports or descriptors.
func exhausted(msgs []ErrorMessage) string {
	var n uint64
	seen := map[string]bool{}
	var which []string
	for _, m := range msgs {
		for _, e := range exhaustion {
			if text := e.Error(); strings.Contains(m.Message, text) {
				n += m.Count
				if !seen[text] {
					seen[text] = true
					which = append(which, fmt.Sprintf("%q", text))
				}
				break
			}
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("the generator's machine ran out of local ports or file descriptors: %d requests failed with %s; reuse connections, raise the open-files limit or widen the local port range",
		n, strings.Join(which, ", "))
}
