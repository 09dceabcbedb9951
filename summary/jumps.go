package summary

import (
	"fmt"
	"slices"
	"time"
)

// Jump is a stretch of the run's timeline where latency or errors jumped, and what the watched
// signals did at the same time: a coincidence, not a cause.
type Jump struct {
	StartS float64 `json:"start_s"` // from the measured start
	EndS   float64 `json:"end_s"`
	// What says what jumped: the p99 latency and the errors against their medians.
	What string `json:"what"`
	// Coincided names what the watched signals did in the same stretch: a target's CPU that rose,
	// its RSS that grew, a scraped metric (GC pauses: go_gc_*, jvm_gc_*, or any series the user
	// named) that rose, the generator falling behind. Empty: none of them did.
	Coincided []string `json:"coincided"`
}

// The thresholds of Jumps.
const (
	// JumpFactor is how many times its median an interval's p99 latency, or a signal, must reach
	// to jump.
	JumpFactor = 3
	// JumpFloorMs is the least rise over the median, in ms, of a p99 that jumps: a p99 of 0.3 ms
	// after 0.1 ms is noise.
	JumpFloorMs = 1
	// JumpErrorShare is the least rise of an interval's share of failed requests over the median
	// share that jumps: 5 percentage points.
	JumpErrorShare = 0.05
	// CPURise is the least rise of a target's CPU over its median, in percent of one core, that
	// coincides.
	CPURise = 20
	// RSSGrowth is the least growth of a target's RSS across a jump that coincides: 10 % and 8 MiB.
	RSSGrowth, RSSGrowthBytes = 0.10, 8 << 20
)

// Jumps finds the stretches of the run's timeline (all endpoints together) where the p99 latency
// reached JumpFactor times its median interval's (and JumpFloorMs above it), or the share of failed
// requests rose JumpErrorShare above its median, consecutive intervals joined; and for each, what
// coincided among the watched signals, each against its own median over the run:
//   - a watched target's CPU that rose to JumpFactor times its median and CPURise above it;
//   - its RSS that grew by RSSGrowth and RSSGrowthBytes from before the stretch to its end;
//   - a scraped metric (--monitor-metrics: GC pauses such as go_gc_* or jvm_gc_*, or any series
//     the user named; a counter's value is its increase per second) that rose to JumpFactor times
//     its median (any rise above 0 from a median of 0);
//   - the generator: its send lag p99 beyond its bound, or its CPU saturated.
//
// A signal's sample coincides when the interval it covers overlaps the stretch.
func Jumps(s *Summary) []Jump {
	var pts []Point
	for _, p := range s.Timeline {
		if p.Endpoint == "" {
			pts = append(pts, p)
		}
	}
	if len(pts) < 3 {
		return nil // no median to jump from
	}
	p99s := make([]float64, len(pts))
	shares := make([]float64, len(pts))
	for i, p := range pts {
		p99s[i] = p.P99
		if n := p.OK + p.Errors; n > 0 {
			shares[i] = float64(p.Errors) / float64(n)
		}
	}
	medP99, medShare := median(p99s), median(shares)
	var out []Jump
	for i := 0; i < len(pts); {
		if !jumped(pts[i], p99s[i], shares[i], medP99, medShare) {
			i++
			continue
		}
		j := i
		peak, peakShare := p99s[i], shares[i]
		for j+1 < len(pts) && jumped(pts[j+1], p99s[j+1], shares[j+1], medP99, medShare) {
			j++
			peak, peakShare = max(peak, p99s[j]), max(peakShare, shares[j])
		}
		jp := Jump{StartS: pts[i].Start, EndS: pts[j].End, Coincided: []string{}}
		var what []string
		if peak >= JumpFactor*medP99 && peak >= medP99+JumpFloorMs {
			what = append(what, fmt.Sprintf("p99 latency up to %s (median interval %s)", FormatMs(peak), FormatMs(medP99)))
		}
		if peakShare >= medShare+JumpErrorShare {
			what = append(what, fmt.Sprintf("failed requests up to %.0f%% (median interval %.0f%%)", 100*peakShare, 100*medShare))
		}
		jp.What = joinAnd(what)
		jp.Coincided = append(jp.Coincided, s.coincided(jp.StartS, jp.EndS, i, j)...)
		out = append(out, jp)
		i = j + 1
	}
	return out
}

func jumped(p Point, p99, share, medP99, medShare float64) bool {
	return p99 >= JumpFactor*medP99 && p99 >= medP99+JumpFloorMs || share >= medShare+JumpErrorShare
}

// coincided names the watched signals that jumped in [from, to] s; first and last are the
// stretch's intervals in the timeline (the generator's send lag is kept per interval).
func (s *Summary) coincided(from, to float64, first, last int) []string {
	var out []string
	overlaps := func(at, interval time.Duration) bool {
		end := at.Seconds()
		return end > from && end-interval.Seconds() < to
	}
	for _, r := range s.Resources {
		var cpus []float64
		for _, x := range r.Samples {
			if x.Interval > 0 {
				cpus = append(cpus, x.CPUPercent)
			}
		}
		med := median(cpus)
		peak := -1.0
		var before, atEnd uint64
		for _, x := range r.Samples {
			if x.Interval > 0 && overlaps(x.At, x.Interval) {
				peak = max(peak, x.CPUPercent)
			}
			if x.At.Seconds() <= from {
				before = x.RSS
			}
			if x.At.Seconds()-x.Interval.Seconds() < to {
				atEnd = x.RSS
			}
		}
		switch {
		case r.Self && peak >= SaturationPercent*max(r.Cores, 1):
			out = append(out, fmt.Sprintf("the generator's CPU at %.0f%% of one core, saturating the %g CPUs it could use", peak, r.Cores))
		case !r.Self && peak >= 0 && peak >= JumpFactor*med && peak >= med+CPURise:
			out = append(out, fmt.Sprintf("%s: CPU %.0f%% of one core (median %.0f%%)", r.Target, peak, med))
		}
		if !r.Self && before > 0 && atEnd >= before+RSSGrowthBytes && float64(atEnd) >= float64(before)*(1+RSSGrowth) {
			out = append(out, fmt.Sprintf("%s: RSS grew from %s to %s", r.Target, mib(before), mib(atEnd)))
		}
		if r.Self && len(r.SendLagP99) > last {
			bound := lagBound(s.Config.Load)
			if lag := slices.Max(r.SendLagP99[first : last+1]); lag > float64(bound.Microseconds())/1000 {
				out = append(out, fmt.Sprintf("the generator fell behind: send lag p99 %s, beyond its bound %s", FormatMs(lag), FormatMs(float64(bound.Microseconds())/1000)))
			}
		}
	}
	if m := s.Metrics; m != nil {
		for k, name := range m.Series {
			var all []float64
			peak, seen := 0.0, false
			var prev time.Duration
			for _, x := range m.Samples {
				if k < len(x.Values) && x.Values[k] != nil {
					v := *x.Values[k]
					all = append(all, v)
					if x.At.Seconds() > from && prev.Seconds() < to {
						peak, seen = max(peak, v), true
					}
				}
				prev = x.At
			}
			med := median(all)
			if seen && peak > 0 && peak >= JumpFactor*med {
				unit := ""
				if k < len(m.Types) && m.Types[k] == "counter" {
					unit = "/s"
				}
				out = append(out, fmt.Sprintf("%s rose to %s%s (median %s)", name, trimG(peak), unit, trimG(med)))
			}
		}
	}
	return out
}

// median returns the median of v (the mean of the middle two of an even count); 0 for none.
func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	c := slices.Clone(v)
	slices.Sort(c)
	if n := len(c); n%2 == 1 {
		return c[n/2]
	} else {
		return (c[n/2-1] + c[n/2]) / 2
	}
}

func trimG(v float64) string { return fmt.Sprintf("%.4g", v) }

func joinAnd(s []string) string {
	switch len(s) {
	case 0:
		return ""
	case 1:
		return s[0]
	}
	return fmt.Sprintf("%s and %s", s[0], s[1])
}

func mib(b uint64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }
