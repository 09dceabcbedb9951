package schedule

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// Schedule says when arrival i (counting from 0) is due, as an offset from the start of the run.
// ok is false when there are no more arrivals: i and every later one are past the end.
// Implementations are pure functions of i and safe for concurrent use.
type Schedule interface {
	At(i uint64) (due time.Duration, ok bool)
}

// Stage is one leg of a Profile: over Duration the level moves linearly from the previous stage's
// Target (or the profile's start level) to Target. A zero Duration is a step: the level jumps.
type Stage struct {
	Duration time.Duration
	Target   float64
}

// Profile is a level over time that moves linearly from stage to stage: arrivals per second for the
// open model, connections for the closed model. As a Schedule it spaces arrivals so that their
// density follows the level. The zero value has no stages and no arrivals. A Profile is immutable
// once made and safe for concurrent use.
type Profile struct {
	segs    []segment
	forever bool // the last level holds for ever (a count-limited run)
}

type segment struct {
	start, dur float64 // seconds
	from, to   float64 // level at the start and at the end
	before     float64 // arrivals due before the segment's start
}

// Constant returns a profile that holds level for d; d = 0 holds it for ever.
func Constant(level float64, d time.Duration) (*Profile, error) {
	if d == 0 {
		p, err := NewProfile(level, nil)
		if err != nil {
			return nil, err
		}
		p.forever = true
		return p, nil
	}
	return NewProfile(level, []Stage{{Duration: d, Target: level}})
}

// NewProfile returns the profile that starts at level start and follows stages. Levels must be
// finite and non-negative, durations non-negative.
func NewProfile(start float64, stages []Stage) (*Profile, error) {
	p := &Profile{}
	var errs []error
	if !(start >= 0) || math.IsInf(start, 0) {
		errs = append(errs, fmt.Errorf("schedule: start level %v: want a finite number ≥ 0", start))
	}
	t, level, n := 0.0, start, 0.0
	for k, s := range stages {
		if s.Duration < 0 {
			errs = append(errs, fmt.Errorf("schedule: stage %d: duration %v is negative", k+1, s.Duration))
			continue
		}
		if !(s.Target >= 0) || math.IsInf(s.Target, 0) {
			errs = append(errs, fmt.Errorf("schedule: stage %d: target %v: want a finite number ≥ 0", k+1, s.Target))
			continue
		}
		d := s.Duration.Seconds()
		if d > 0 {
			p.segs = append(p.segs, segment{start: t, dur: d, from: level, to: s.Target, before: n})
			n += (level + s.Target) / 2 * d
		}
		t += d
		level = s.Target
	}
	if len(p.segs) == 0 {
		// keep the start level so that a for-ever profile and Level know it
		p.segs = append(p.segs, segment{start: t, dur: 0, from: level, to: level, before: n})
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return p, nil
}

// End returns the profile's length; 0 for a profile that holds its last level for ever.
func (p *Profile) End() time.Duration {
	if p.forever || len(p.segs) == 0 {
		return 0
	}
	last := p.segs[len(p.segs)-1]
	return seconds(last.start + last.dur)
}

// Level returns the level at offset t: linear inside a stage, the last target after the end.
func (p *Profile) Level(t time.Duration) float64 {
	if len(p.segs) == 0 {
		return 0
	}
	x := t.Seconds()
	for _, s := range p.segs {
		if x < s.start+s.dur {
			if x <= s.start {
				return s.from
			}
			return s.from + (s.to-s.from)*(x-s.start)/s.dur
		}
	}
	return p.segs[len(p.segs)-1].to
}

// Above returns the first offset at or after from at which the level is above level, and false
// when it never is again. The closed model uses it to wake connection k when the level rises past
// k, instead of polling.
func (p *Profile) Above(level float64, from time.Duration) (time.Duration, bool) {
	x := from.Seconds()
	for _, s := range p.segs {
		end := s.start + s.dur
		if end <= x && s.dur > 0 {
			continue
		}
		at := max(x, s.start)
		if p.levelAt(s, at) > level {
			return seconds(at), true
		}
		if s.to > level && s.to != s.from {
			// rising through level inside the segment: solve from + (to−from)·τ/dur = level
			tau := (level - s.from) / (s.to - s.from) * s.dur
			return max(seconds(s.start+tau)+time.Microsecond, from), true
		}
	}
	if n := len(p.segs); n > 0 && p.segs[n-1].to > level {
		last := p.segs[n-1]
		return max(seconds(last.start+last.dur), from), true
	}
	return 0, false
}

func (p *Profile) levelAt(s segment, x float64) float64 {
	if s.dur == 0 || x >= s.start+s.dur {
		return s.to
	}
	return s.from + (s.to-s.from)*(x-s.start)/s.dur
}

// Arrivals returns the expected number of arrivals before offset t: the integral of the level from
// 0 to t (for a for-ever profile the last level keeps counting).
func (p *Profile) Arrivals(t time.Duration) float64 {
	if len(p.segs) == 0 || t <= 0 {
		return 0
	}
	x := t.Seconds()
	for _, s := range p.segs {
		if x < s.start+s.dur {
			tau := x - s.start
			return s.before + s.from*tau + (s.to-s.from)/s.dur*tau*tau/2
		}
	}
	last := p.segs[len(p.segs)-1]
	total := last.before + (last.from+last.to)/2*last.dur
	if p.forever {
		total += last.to * (x - last.start - last.dur)
	}
	return total
}

// Count returns how many arrivals are due strictly before offset t: arrival i is due at the instant
// the integral of the level reaches i, so the count is ⌈Arrivals(t)⌉ (never more than the profile
// has).
func (p *Profile) Count(t time.Duration) uint64 {
	a := p.Arrivals(t)
	// the tolerance absorbs rounding in the integral (1000/s for 2 s is 2000, not 2000.0000000002)
	return uint64(math.Ceil(a - 1e-9))
}

// At implements Schedule. Arrival i is due at the t where the integral of the level reaches i.
// Inside a stage that starts at s with level r0, moves to r1 over D and has N0 arrivals before it,
// the integral is N(τ) = N0 + r0·τ + a·τ²/2 with a = (r1−r0)/D, so for k = i − N0
//
//	τ = 2k / (r0 + √(r0² + 2·a·k))
//
// (the root of a·τ²/2 + r0·τ − k = 0 written to stay exact when a is 0 or small, and valid when
// the rate falls). Worked example: a ramp from 0 to 100/s over 10 s has N(τ) = 5τ², so arrival
// 5 is due at 1 s and arrival 500 at 10 s — √(i/5) — and the formula gives 2·5/(0+√(2·10·5)) = 1 s.
func (p *Profile) At(i uint64) (time.Duration, bool) {
	k := float64(i)
	for idx, s := range p.segs {
		in := (s.from + s.to) / 2 * s.dur // arrivals inside the segment
		if k < s.before+in {
			k -= s.before
			if k <= 0 {
				return seconds(s.start), true
			}
			a := (s.to - s.from) / s.dur // in > 0, so dur > 0
			den := s.from + math.Sqrt(max(s.from*s.from+2*a*k, 0))
			return seconds(s.start + 2*k/den), true
		}
		if idx == len(p.segs)-1 && p.forever && s.to > 0 {
			// past the last stage of a for-ever profile: the last level holds
			k -= s.before + in
			return seconds(s.start + s.dur + k/s.to), true
		}
	}
	return 0, false
}

func seconds(s float64) time.Duration { return time.Duration(math.Round(s * 1e9)) }

// Limit caps a schedule at n arrivals.
type Limit struct {
	S Schedule
	N uint64
}

// At implements Schedule.
func (l Limit) At(i uint64) (time.Duration, bool) {
	if i >= l.N {
		return 0, false
	}
	return l.S.At(i)
}
