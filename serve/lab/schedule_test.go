package lab

import (
	"testing"
	"time"
)

var origin = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func at(d time.Duration) time.Time { return origin.Add(d) }

// periodic is stalls of 1s every 10s from +10s.
var periodic = Schedule{Origin: origin, First: 10 * time.Second, Every: 10 * time.Second, Length: time.Second}

// single is one stall of 1s at +2s.
var single = Schedule{Origin: origin, First: 2 * time.Second, Length: time.Second}

func TestScheduleFinish(t *testing.T) {
	t.Parallel()
	ms, s := time.Millisecond, time.Second
	tests := []struct {
		name    string
		sched   Schedule
		arrive  time.Duration
		service time.Duration
		want    time.Duration
	}{
		{"no stalls", Schedule{Origin: origin}, 5 * s, 2 * ms, 5*s + 2*ms},
		{"before the first stall", periodic, 3 * s, 2 * ms, 3*s + 2*ms},
		{"work ends exactly at the stall's start", periodic, 10*s - 2*ms, 2 * ms, 10 * s},
		{"work crosses the stall's start (worked example)", periodic, 10*s - 500*time.Microsecond, 2 * ms, 11*s + 1500*time.Microsecond},
		{"arrives in the stall, no work (worked example)", periodic, 10*s + 200*ms, 0, 11 * s},
		{"arrives at the stall's start", periodic, 10 * s, ms, 11*s + ms},
		{"arrives at the stall's end: not stalled", periodic, 11 * s, ms, 11*s + ms},
		{"arrives in the 3rd stall", periodic, 30*s + 999*ms, 5 * ms, 31*s + 5*ms},
		{"work spans two stalls", periodic, 9 * s, 12 * s, 23 * s},
		{"work ends at the next stall's start", periodic, 9 * s, 10 * s, 20 * s},
		{"arrives before the origin", periodic, -5 * s, 16 * s, 12 * s},
		{"single: before", single, s, 500 * ms, s + 500*ms},
		{"single: crosses", single, s, 1500 * ms, 3*s + 500*ms},
		{"single: in it", single, 2*s + 10*ms, 10 * ms, 3*s + 10*ms},
		{"single: after", single, 4 * s, 10 * ms, 4*s + 10*ms},
		{"negative service is none", periodic, 10*s + 100*ms, -ms, 11 * s},
	}
	for _, tt := range tests {
		if got := tt.sched.Finish(at(tt.arrive), tt.service); !got.Equal(at(tt.want)) {
			t.Errorf("%s: Finish(+%v, %v) = +%v; want +%v", tt.name, tt.arrive, tt.service, got.Sub(origin), tt.want)
		}
	}
}

// finishSlow is Finish by walking the clock in steps of 1ns-resolution events: the reference
// against which the closed form is checked.
func finishSlow(s Schedule, arrive time.Time, service time.Duration) time.Time {
	t := arrive
	for {
		if w, ok := s.At(t); ok {
			t = w.End
			continue
		}
		// Next stall start after t.
		next := time.Time{}
		for _, w := range s.Windows(t, t.Add(service+1)) {
			if w.Start.After(t) {
				next = w.Start
				break
			}
		}
		if next.IsZero() || !t.Add(service).After(next) {
			return t.Add(service)
		}
		service -= next.Sub(t)
		t = next
	}
}

func TestScheduleFinishMatchesReference(t *testing.T) {
	t.Parallel()
	scheds := []Schedule{
		periodic, single,
		{Origin: origin, First: 7, Every: 10, Length: 3}, // tiny numbers to hit every boundary
		{Origin: origin, First: 0, Every: 5, Length: 4},
		{Origin: origin, First: 3, Length: 2},
	}
	r := newStream(1, 1)
	for _, s := range scheds {
		span := s.First + 4*s.Every + 3*s.Length
		for i := 0; i < 2000; i++ {
			arrive := time.Duration(r.float() * float64(span))
			service := time.Duration(r.float() * float64(span))
			if i < 50 { // every small pair exactly
				arrive, service = time.Duration(i%25), time.Duration(i/25*7)
			}
			got, want := s.Finish(at(arrive), service), finishSlow(s, at(arrive), service)
			if !got.Equal(want) {
				t.Fatalf("%+v: Finish(+%v, %v) = +%v; want +%v", s, arrive, service, got.Sub(origin), want.Sub(origin))
			}
		}
	}
}

func TestScheduleWindows(t *testing.T) {
	t.Parallel()
	s := time.Second
	tests := []struct {
		name     string
		sched    Schedule
		from, to time.Duration
		want     []time.Duration // starts
	}{
		{"none before the first", periodic, 0, 10 * s, nil},
		{"first two", periodic, 0, 20*s + 1, []time.Duration{10 * s, 20 * s}},
		{"overlapping the start of the range", periodic, 10*s + 999*time.Millisecond, 11 * s, []time.Duration{10 * s}},
		{"range begins at a stall's end", periodic, 11 * s, 20 * s, nil},
		{"a range inside a stall", periodic, 30*s + 1, 30*s + 2, []time.Duration{30 * s}},
		{"single in range", single, 0, time.Hour, []time.Duration{2 * s}},
		{"single after range", single, 0, 2 * s, nil},
		{"single before range", single, 3 * s, time.Hour, nil},
		{"empty range", periodic, 10 * s, 10 * s, nil},
		{"no stalls", Schedule{Origin: origin, Every: s}, 0, time.Hour, nil},
	}
	for _, tt := range tests {
		got := tt.sched.Windows(at(tt.from), at(tt.to))
		if len(got) != len(tt.want) {
			t.Errorf("%s: got %d windows %v; want starts %v", tt.name, len(got), got, tt.want)
			continue
		}
		for i, w := range got {
			if !w.Start.Equal(at(tt.want[i])) || w.End.Sub(w.Start) != tt.sched.Length {
				t.Errorf("%s: window %d = [+%v, +%v); want [+%v, +%v)", tt.name, i,
					w.Start.Sub(origin), w.End.Sub(origin), tt.want[i], tt.want[i]+tt.sched.Length)
			}
		}
	}
}

func TestScheduleAt(t *testing.T) {
	t.Parallel()
	s := time.Second
	tests := []struct {
		t      time.Duration
		wantOK bool
		start  time.Duration
	}{
		{0, false, 0},
		{10*s - 1, false, 0},
		{10 * s, true, 10 * s},
		{11*s - 1, true, 10 * s},
		{11 * s, false, 0},
		{40*s + 500*time.Millisecond, true, 40 * s},
	}
	for _, tt := range tests {
		w, ok := periodic.At(at(tt.t))
		if ok != tt.wantOK || (ok && !w.Start.Equal(at(tt.start))) {
			t.Errorf("At(+%v) = [+%v), %v; want [+%v), %v", tt.t, w.Start.Sub(origin), ok, tt.start, tt.wantOK)
		}
	}
}

func TestConfigSchedule(t *testing.T) {
	t.Parallel()
	s := time.Second
	tests := []struct {
		cfg  Config
		want Schedule
	}{
		{Config{}, Schedule{Origin: origin}},
		{Config{Stall: s, Every: 10 * s}, Schedule{Origin: origin, First: 10 * s, Every: 10 * s, Length: s}},
		{Config{Stall: s, Every: 10 * s, StallStart: 2 * s}, Schedule{Origin: origin, First: 2 * s, Every: 10 * s, Length: s}},
		{Config{Stall: s}, Schedule{Origin: origin, Length: s}},
	}
	for _, tt := range tests {
		if got := tt.cfg.schedule(origin); got != tt.want {
			t.Errorf("%+v.schedule() = %+v; want %+v", tt.cfg, got, tt.want)
		}
	}
}

func BenchmarkFinish(b *testing.B) {
	b.ReportAllocs()
	t := at(9*time.Second + 999*time.Millisecond)
	for b.Loop() {
		periodic.Finish(t, 2*time.Millisecond)
	}
}

// Stalled counts the stalls' time so far, worked by hand from the schedules above.
func TestScheduleStalled(t *testing.T) {
	t.Parallel()
	ms, s := time.Millisecond, time.Second
	for _, c := range []struct {
		sched Schedule
		at    time.Duration
		want  time.Duration
	}{
		{Schedule{Origin: origin}, 50 * s, 0},
		{periodic, 5 * s, 0},
		{periodic, 10 * s, 0},
		{periodic, 10*s + 500*ms, 500 * ms},
		{periodic, 11 * s, s},
		{periodic, 19 * s, s},
		{periodic, 20*s + 250*ms, s + 250*ms},
		{periodic, 35 * s, 3 * s},
		{periodic, -s, 0},
		{single, 2*s + 500*ms, 500 * ms},
		{single, 100 * s, s},
	} {
		if got := c.sched.Stalled(at(c.at)); got != c.want {
			t.Errorf("%+v at +%v: stalled %v; want %v", c.sched, c.at, got, c.want)
		}
	}
}
