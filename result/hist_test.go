package result

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// indexOf and valueAt are each other's inverse over every bucket of the range, and agree with
// hdrhistogram-go: a value recorded in a dense Histogram lands at index indexOf(value).
func TestIndexOfValueAt(t *testing.T) {
	t.Parallel()
	n := len(hdr.New(HistMin, HistMax, HistSigFigs).Export().Counts)
	for idx := range n {
		v := valueAt(int64(idx))
		if got := indexOf(v); got != idx {
			t.Fatalf("indexOf(valueAt(%d) = %d) = %d", idx, v, got)
		}
		if got := indexOf(highestEquivalent(v)); got != idx {
			t.Fatalf("indexOf(highestEquivalent(%d)) = %d; want %d", v, got, idx)
		}
		if got := indexOf(highestEquivalent(v) + 1); got != idx+1 {
			t.Fatalf("indexOf(highestEquivalent(%d)+1) = %d; want the next bucket, %d", v, got, idx+1)
		}
	}
	for _, v := range []int64{1, 2047, 2048, 4095, 4096, 1234567, HistMax} {
		h := hdr.New(HistMin, HistMax, HistSigFigs)
		h.RecordValue(v)
		counts := h.Export().Counts
		if counts[indexOf(v)] != 1 {
			t.Errorf("value %d: hdrhistogram-go counts it elsewhere than index %d", v, indexOf(v))
		}
	}
}

// The sparse and dense forms answer every query as hdrhistogram-go's Histogram does with the same
// values, merged across forms too.
func TestHistogramMatchesHdr(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(31, 32))
	shapes := map[string]func() int64{
		"log-normal around 2 ms": func() int64 { return int64(2000*math.Exp(rng.NormFloat64())) + 1 },
		"narrow":                 func() int64 { return 500 + rng.Int64N(20) },
		"wide":                   func() int64 { return 1 + rng.Int64N(HistMax) },
	}
	qs := []float64{0, 1, 25, 50, 75, 90, 99, 99.9, 99.99, 100}
	for name, next := range shapes {
		ref := hdr.New(HistMin, HistMax, HistSigFigs)
		parts := []*Histogram{NewHistogram(), newDenseHistogram(), NewHistogram(), newDenseHistogram()}
		for i := range 4000 {
			v := next()
			ref.RecordValue(v)
			parts[i%4].RecordValue(v)
		}
		// every form merged into every form: all hold the 4,000 values
		for _, into := range []*Histogram{NewHistogram(), newDenseHistogram()} {
			for _, p := range parts {
				into.Merge(p)
			}
			form := map[bool]string{true: "dense", false: "sparse"}[into.Dense()]
			if into.TotalCount() != ref.TotalCount() || into.Min() != ref.Min() || into.Max() != ref.Max() ||
				into.Mean() != ref.Mean() || into.StdDev() != ref.StdDev() {
				t.Errorf("%s, %s: count %d min %d max %d mean %v stdev %v; want %d %d %d %v %v", name, form,
					into.TotalCount(), into.Min(), into.Max(), into.Mean(), into.StdDev(),
					ref.TotalCount(), ref.Min(), ref.Max(), ref.Mean(), ref.StdDev())
			}
			for _, q := range qs {
				if got, want := into.ValueAtQuantile(q), ref.ValueAtQuantile(q); got != want {
					t.Errorf("%s, %s: p%v = %d; want %d", name, form, q, got, want)
				}
			}
			var want []hdr.Bar
			for _, b := range ref.Distribution() {
				if b.Count > 0 {
					want = append(want, b)
				}
			}
			got := into.Distribution()
			if len(got) != len(want) {
				t.Fatalf("%s, %s: %d bars; want %d", name, form, len(got), len(want))
			}
			for i := range got {
				if got[i] != want[i] {
					t.Errorf("%s, %s: bar %d is %+v; want %+v", name, form, i, got[i], want[i])
					break
				}
			}
			if !into.HDR().Equals(ref) {
				t.Errorf("%s, %s: HDR() differs from hdrhistogram-go's histogram of the same values", name, form)
			}
			if into.Equals(parts[0]) {
				t.Errorf("%s, %s: Equals a quarter of its values", name, form)
			}
			other := NewHistogram()
			if !into.Dense() {
				other = newDenseHistogram()
			}
			other.Merge(into)
			if !into.Equals(other) || !other.Equals(into) {
				t.Errorf("%s, %s: does not Equal its copy in the other form", name, form)
			}
			var a, b bytes.Buffer
			into.PercentilesPrint(&a, 5, 1000)
			ref.PercentilesPrint(&b, 5, 1000)
			if a.String() != b.String() {
				t.Errorf("%s, %s: PercentilesPrint differs", name, form)
			}
			into.Reset()
			if into.TotalCount() != 0 || into.Distribution() != nil {
				t.Errorf("%s, %s: not empty after Reset", name, form)
			}
		}
	}
}
