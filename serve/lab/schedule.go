package lab

import (
	"math"
	"time"
)

// Window is one stall: requests are frozen from Start (inclusive) to End (exclusive).
type Window struct {
	Start, End time.Time
}

// Schedule is the stall schedule of a Server: stall k covers
// [Origin+First+k·Every, Origin+First+k·Every+Length) for k = 0, 1, 2, … — or only k = 0 when
// Every is 0. It is pure arithmetic on the times it is given; it reads no clock.
//
// Length must be below Every when Every is above 0 (New checks this); otherwise the stalls would
// be back to back and Finish says the work never ends (the largest time it can return).
//
// The zero value has no stalls (Length 0). A Schedule is a plain value, safe for concurrent use.
type Schedule struct {
	Origin time.Time     // the server's start
	First  time.Duration // offset of the first stall from Origin
	Every  time.Duration // period of the stalls; 0: a single stall
	Length time.Duration // length of each stall; 0: none
}

// start returns the offset of stall k from Origin.
func (s Schedule) start(k int64) time.Duration { return s.First + time.Duration(k)*s.Every }

// stallAt returns the index of the stall holding offset rel, if any.
func (s Schedule) stallAt(rel time.Duration) (int64, bool) {
	if s.Length <= 0 || rel < s.First {
		return 0, false
	}
	var k int64
	if s.Every > 0 {
		k = int64((rel - s.First) / s.Every)
	}
	return k, rel < s.start(k)+s.Length
}

// At returns the stall that holds instant t, if any.
func (s Schedule) At(t time.Time) (Window, bool) {
	k, ok := s.stallAt(t.Sub(s.Origin))
	if !ok {
		return Window{}, false
	}
	return s.window(k), true
}

func (s Schedule) window(k int64) Window {
	st := s.Origin.Add(s.start(k))
	return Window{Start: st, End: st.Add(s.Length)}
}

// Windows returns the stalls that overlap [from, to), in order.
func (s Schedule) Windows(from, to time.Time) []Window {
	if s.Length <= 0 || !to.After(from) {
		return nil
	}
	lo, hi := from.Sub(s.Origin), to.Sub(s.Origin)
	// Stall k overlaps when start(k)+Length > lo and start(k) < hi.
	var k int64
	if x := lo - s.First - s.Length; x >= 0 {
		if s.Every == 0 {
			return nil
		}
		k = int64(x/s.Every) + 1
	}
	var ws []Window
	for ; s.start(k) < hi; k++ {
		ws = append(ws, s.window(k))
		if s.Every == 0 {
			break
		}
	}
	return ws
}

// Finish returns when a request that arrives at instant arrive and needs service time of work is
// done: the service time runs only outside stalls, as a program's work does around a
// stop-the-world pause. A request that arrives in a stall starts after it; one whose work reaches
// the start of a stall waits the stall out and then does the rest. Work that ends exactly at a
// stall's start is done before it.
//
// Worked example: stalls of 1s every 10s from Origin+10s. A request arriving at +9.9995s with 2ms
// of work does 0.5ms, is frozen from +10s to +11s, and finishes at +11.0015s. A request arriving at
// +10.2s with no work finishes at +11s.
func (s Schedule) Finish(arrive time.Time, service time.Duration) time.Time {
	if service < 0 {
		service = 0
	}
	if s.Length <= 0 {
		return arrive.Add(service)
	}
	t := arrive.Sub(s.Origin)
	if k, ok := s.stallAt(t); ok {
		t = s.start(k) + s.Length
	}
	// t is now outside every stall. Find the next stall to start after t.
	var next int64
	switch {
	case t < s.First:
		next = 0
	case s.Every == 0:
		return s.Origin.Add(t + service)
	default:
		next = int64((t-s.First)/s.Every) + 1
	}
	startNext := s.start(next)
	if t+service <= startNext {
		return s.Origin.Add(t + service)
	}
	rem := service - (startNext - t)
	end := startNext + s.Length
	if s.Every == 0 {
		return s.Origin.Add(end + rem)
	}
	// From the end of a stall, each period offers gap = Every-Length of work before the next
	// stall; the work finishes in gap m (0-based) with m = ceil(rem/gap)-1.
	gap := s.Every - s.Length
	if gap <= 0 { // stalls back to back: the work never finishes
		return s.Origin.Add(time.Duration(math.MaxInt64))
	}
	m := (rem - 1) / gap
	return s.Origin.Add(end + m*s.Every + (rem - m*gap))
}

// Stalled returns how long the stalls have lasted from Origin to instant t: the server's pause
// time so far, as a garbage collector's pause counter (go_gc_*, jvm_gc_*) counts it.
func (s Schedule) Stalled(t time.Time) time.Duration {
	rel := t.Sub(s.Origin)
	if s.Length <= 0 || rel <= s.First {
		return 0
	}
	var k int64 // the last stall begun by rel
	if s.Every > 0 {
		k = int64((rel - s.First) / s.Every)
	}
	return time.Duration(k)*s.Length + min(rel-s.start(k), s.Length)
}
