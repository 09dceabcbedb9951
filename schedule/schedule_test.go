package schedule

import (
	"math"
	"strings"
	"testing"
	"time"
)

func mustProfile(t *testing.T, start float64, stages ...Stage) *Profile {
	t.Helper()
	p, err := NewProfile(start, stages)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestAt(t *testing.T) {
	t.Parallel()
	c1000, err := Constant(1000, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	forever, err := Constant(10, 0)
	if err != nil {
		t.Fatal(err)
	}
	ramp := mustProfile(t, 0, Stage{10 * time.Second, 100})
	down := mustProfile(t, 100, Stage{10 * time.Second, 0})
	steps := mustProfile(t, 0, Stage{0, 10}, Stage{time.Second, 10}, Stage{0, 100}, Stage{time.Second, 100})
	tests := []struct {
		name string
		p    Schedule
		i    uint64
		want time.Duration
		ok   bool
	}{
		{"constant: first arrival at 0", c1000, 0, 0, true},
		{"constant: arrival 1 one period later", c1000, 1, time.Millisecond, true},
		{"constant: last arrival", c1000, 1999, 1999 * time.Millisecond, true},
		{"constant: past the end", c1000, 2000, 0, false},
		{"for ever: far arrivals keep coming", forever, 1_000_000, 100_000 * time.Second, true},
		{"ramp 0→100/s: N(τ)=5τ², arrival 5 at 1 s", ramp, 5, time.Second, true},
		{"ramp: arrival 125 at 5 s", ramp, 125, 5 * time.Second, true},
		{"ramp: arrival 499 just before 10 s", ramp, 499, seconds(math.Sqrt(499.0 / 5)), true},
		{"ramp: 500 arrivals in all", ramp, 500, 0, false},
		{"falling ramp 100→0/s: N(τ)=100τ−5τ², arrival 95 at 1 s", down, 95, time.Second, true},
		{"steps: first stage 10/s", steps, 9, 900 * time.Millisecond, true},
		{"steps: second stage starts at 1 s", steps, 10, time.Second, true},
		{"steps: 100/s in the second stage", steps, 60, 1500 * time.Millisecond, true},
		{"steps: 110 arrivals in all", steps, 110, 0, false},
		{"limit caps a for-ever profile", Limit{forever, 3}, 3, 0, false},
		{"limit keeps earlier arrivals", Limit{forever, 3}, 2, 200 * time.Millisecond, true},
	}
	for _, tt := range tests {
		got, ok := tt.p.At(tt.i)
		if ok != tt.ok || ok && absDiff(got, tt.want) > time.Microsecond {
			t.Errorf("%s: At(%d) = %v, %v; want %v, %v", tt.name, tt.i, got, ok, tt.want, tt.ok)
		}
	}
}

func absDiff(a, b time.Duration) time.Duration {
	if a > b {
		return a - b
	}
	return b - a
}

// The arrivals a stage sends are the integral of its level, whatever its shape.
func TestCountPerStage(t *testing.T) {
	t.Parallel()
	p := mustProfile(t, 0, Stage{30 * time.Second, 1000}, Stage{60 * time.Second, 5000}, Stage{30 * time.Second, 5000})
	wants := []struct {
		end  time.Duration
		want uint64
	}{
		{30 * time.Second, 15_000},   // 0→1000 over 30 s
		{90 * time.Second, 195_000},  // + 1000→5000 over 60 s = 180,000
		{120 * time.Second, 345_000}, // + 5000 for 30 s = 150,000
	}
	for _, w := range wants {
		if got := p.Count(w.end); got != w.want {
			t.Errorf("Count(%v) = %d; want %d", w.end, got, w.want)
		}
	}
	// At agrees with Count: the last arrival before each stage's end is due before it.
	var n uint64
	for {
		if _, ok := p.At(n); !ok {
			break
		}
		n++
	}
	if n != 345_000 {
		t.Errorf("At gives %d arrivals; want 345000", n)
	}
	if got := p.End(); got != 120*time.Second {
		t.Errorf("End() = %v; want 2m0s", got)
	}
}

// Due times never go backwards, however the stages are shaped.
func TestAtMonotonic(t *testing.T) {
	t.Parallel()
	p := mustProfile(t, 50, Stage{time.Second, 3000}, Stage{0, 0}, Stage{time.Second, 0}, Stage{2 * time.Second, 700}, Stage{time.Second, 1})
	var prev time.Duration
	for i := uint64(0); ; i++ {
		d, ok := p.At(i)
		if !ok {
			break
		}
		if d < prev {
			t.Fatalf("At(%d) = %v before At(%d) = %v", i, d, i-1, prev)
		}
		if d > p.End() {
			t.Fatalf("At(%d) = %v after the end %v", i, d, p.End())
		}
		prev = d
	}
}

func TestLevel(t *testing.T) {
	t.Parallel()
	p := mustProfile(t, 0, Stage{10 * time.Second, 100}, Stage{0, 20}, Stage{10 * time.Second, 20})
	tests := []struct {
		at   time.Duration
		want float64
	}{
		{0, 0},
		{5 * time.Second, 50},
		{10 * time.Second, 20}, // the step takes effect at its instant
		{15 * time.Second, 20},
		{time.Hour, 20}, // after the end: the last target
	}
	for _, tt := range tests {
		if got := p.Level(tt.at); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("Level(%v) = %v; want %v", tt.at, got, tt.want)
		}
	}
}

func TestNewProfileErrors(t *testing.T) {
	t.Parallel()
	_, err := NewProfile(-1, []Stage{{-time.Second, 5}, {time.Second, math.NaN()}})
	if err == nil {
		t.Fatal("NewProfile accepted a negative start, a negative duration and a NaN target")
	}
	for _, want := range []string{"start level -1", "stage 1: duration -1s is negative", "stage 2: target NaN"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

func BenchmarkAt(b *testing.B) {
	p, _ := NewProfile(0, []Stage{{30 * time.Second, 1000}, {60 * time.Second, 5000}, {30 * time.Second, 5000}})
	b.ReportAllocs()
	var i uint64
	for b.Loop() {
		if _, ok := p.At(i); !ok {
			i = 0
		}
		i++
	}
}

func TestAbove(t *testing.T) {
	t.Parallel()
	// 0 → 10 over 10 s, step down to 2, hold 5 s, then 2 → 8 over 6 s
	p := mustProfile(t, 0, Stage{10 * time.Second, 10}, Stage{0, 2}, Stage{5 * time.Second, 2}, Stage{6 * time.Second, 8})
	tests := []struct {
		name  string
		level float64
		from  time.Duration
		want  time.Duration
		ok    bool
	}{
		{"rising past 3 at 3 s", 3, 0, 3*time.Second + time.Microsecond, true},
		{"already above", 3, 5 * time.Second, 5 * time.Second, true},
		{"above 5 again only in the last ramp, at 18 s", 5, 11 * time.Second, 18*time.Second + time.Microsecond, true},
		{"never above 10 again", 10, 0, 0, false},
		{"below the held level", 1, 12 * time.Second, 12 * time.Second, true},
	}
	for _, tt := range tests {
		got, ok := p.Above(tt.level, tt.from)
		if ok != tt.ok || ok && absDiff(got, tt.want) > time.Microsecond {
			t.Errorf("%s: Above(%v, %v) = %v, %v; want %v, %v", tt.name, tt.level, tt.from, got, ok, tt.want, tt.ok)
		}
		if ok && p.Level(got) <= tt.level {
			t.Errorf("%s: Level(%v) = %v; want above %v", tt.name, got, p.Level(got), tt.level)
		}
	}
}
