package report

import (
	"math"
	"testing"
)

// A series of more than PlotMaxPoints points keeps, in each slice of its time, its lowest and its
// highest: a lone spike stays, and so does the floor.
func TestThinKeepsSpikes(t *testing.T) {
	t.Parallel()
	const n = 10 * PlotMaxPoints
	ps := make([]PlotPoint, n)
	for i := range ps {
		ps[i] = PlotPoint{At: float64(i) / 1000, Ms: 1 + float64(i%7)/10}
	}
	ps[12345].Ms, ps[777].Ms = 250, 0.2 // one spike, one lowest
	got := thin(ps)
	if len(got) > PlotMaxPoints || len(got) < PlotMaxPoints/2 {
		t.Fatalf("%d points; want at most %d and one per slice at least", len(got), PlotMaxPoints)
	}
	hi, lo := 0.0, math.Inf(1)
	for _, p := range got {
		hi, lo = max(hi, p.Ms), min(lo, p.Ms)
	}
	if hi != 250 || lo != 0.2 {
		t.Errorf("highest %g, lowest %g; want the spike 250 and the floor 0.2 kept", hi, lo)
	}
	if few := ps[:PlotMaxPoints]; len(thin(few)) != PlotMaxPoints {
		t.Errorf("a series of %d points was thinned", PlotMaxPoints)
	}
}
