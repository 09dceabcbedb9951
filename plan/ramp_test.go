package plan

import (
	"math"
	"testing"
	"time"
)

// Steps with ramp_from: previous ramp each step from the step before's level (0 before the
// first); without it the ramp holds the step's own level, as before.
func TestStepsRampFromPrevious(t *testing.T) {
	t.Parallel()
	s := Scenario{Steps: []float64{50, 100, 200, 500}, Step: 5 * time.Minute, Ramp: time.Minute, RampFrom: RampFromPrevious}
	for k, want := range []float64{0, 50, 100, 200} {
		l := s.PlanFor(BenchTarget{URL: "http://127.0.0.1:1/"}, k, "").Load
		if l.WarmupFrom == nil || *l.WarmupFrom != want || l.Warmup != time.Minute || l.Connections != int(s.Steps[k]) {
			t.Errorf("step %d: warm-up %v from %v to %d connections; want 1m from %v to %v", k+1, l.Warmup, l.WarmupFrom, l.Connections, want, s.Steps[k])
		}
		if d, ok := s.Length(k); !ok || d != 6*time.Minute {
			t.Errorf("step %d lasts %v (%v); want 6m0s, ramp and step", k+1, d, ok)
		}
	}
	if got, want := s.Describe(1, false), "closed model, 100 connections, 1m0s warm-up rising from 50 connections, 5m0s measured"; got != want {
		t.Errorf("step 2: %q; want %q", got, want)
	}
	s.RampFrom = ""
	if l := s.PlanFor(BenchTarget{URL: "http://127.0.0.1:1/"}, 1, "").Load; l.WarmupFrom != nil {
		t.Errorf("without ramp_from: warm-up from %v; want none (held at the step's level)", *l.WarmupFrom)
	}
}

// A warm-up from a level ramps linearly to the run's first level, then holds it (or follows the
// stages); the arrivals of an open-model ramp are the area under it.
func TestWarmupFromProfile(t *testing.T) {
	t.Parallel()
	from := 100.0
	open := Load{Model: Open, Rate: 300, Warmup: 10 * time.Second, Duration: 5 * time.Second, WarmupFrom: &from}
	prof, err := open.Profile()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		at   time.Duration
		want float64
	}{{0, 100}, {5 * time.Second, 200}, {10 * time.Second, 300}, {12 * time.Second, 300}} {
		if got := prof.Level(c.at); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("open: level at %v %v; want %v", c.at, got, c.want)
		}
	}
	// (100 + 300) / 2 × 10 s in the ramp, 300 × 5 s after it
	if got := prof.Count(10 * time.Second); got != 2000 {
		t.Errorf("open: %d arrivals in the ramp; want 2000", got)
	}
	if got := prof.End(); got != 15*time.Second {
		t.Errorf("open: ends at %v; want 15s", got)
	}
	zero := 0.0
	closed := Load{Model: Closed, Connections: 40, Warmup: 4 * time.Second, Duration: time.Second, WarmupFrom: &zero}
	if prof, err = closed.Profile(); err != nil {
		t.Fatal(err)
	}
	if got := prof.Level(time.Second); got != 10 {
		t.Errorf("closed: level 1 s into a 4 s ramp from 0 to 40: %v; want 10", got)
	}
}
