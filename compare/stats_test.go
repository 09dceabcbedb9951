package compare

import (
	"math"
	"testing"
)

func seq(from, to, step float64) []float64 {
	var out []float64
	for v := from; v <= to; v += step {
		out = append(out, v)
	}
	return out
}

// Each row's U and P were computed by hand or, for the exact rows, by counting every split of the
// pooled values into two groups (a permutation count independent of the recurrence used here).
func TestMannWhitney(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		x, y  []float64
		u, p  float64
		exact bool
	}{
		// every x below every y: 1 split of 20 gives U 0, 1 gives U 9
		{"three apart", []float64{1, 2, 3}, []float64{4, 5, 6}, 0, 2.0 / 20, true},
		{"three apart, reversed", []float64{4, 5, 6}, []float64{1, 2, 3}, 9, 2.0 / 20, true},
		// 2 of C(10,5) = 252 splits are as extreme
		{"five apart", seq(1, 5, 1), seq(6, 10, 1), 0, 2.0 / 252, true},
		// interleaved: U = 10 of 20, the centre: every split is as extreme
		{"interleaved", []float64{1, 4, 6, 9}, []float64{2, 3, 5, 7, 8}, 10, 1, true},
		// each x beats only the 9 of y: U = 6; 60 of C(13,6) = 1716 splits are as extreme
		{"six and seven", []float64{10, 12, 15, 11, 14, 13}, []float64{16, 9, 18, 20, 17, 19, 21}, 6, 60.0 / 1716, true},
		// ties: ranks 1, 3, 3, 5.5 for x, R1 = 12.5, U = 2.5; of the 70 splits of the pooled
		// values, 14 give a U at least 5.5 from the mean 8 (counted one by one)
		{"ties", []float64{1, 2, 2, 3}, []float64{2, 3, 4, 5}, 2.5, 14.0 / 70, true},
		// two groups of four ties: only the 2 splits that keep the groups whole are as extreme
		{"tied groups", []float64{0, 0, 0, 0}, []float64{1, 1, 1, 1}, 0, 2.0 / 70, true},
		// 30 against 30 apart: U 0, mean 450, σ = √(900/12·61) = 67.638; z = 449.5/σ = 6.6457
		{"thirty apart", seq(1, 30, 1), seq(31, 60, 1), 0, 3.019859359162151e-11, false},
		// odd against even: U = 435 (each odd 2k+1 beats k evens), z = 14.5/67.638
		{"odd and even", seq(1, 59, 2), seq(2, 60, 2), 435, 0.8302552839111963, false},
		// 1…30 against 11…40: 190 pairs above, 20 ties, U = 200; Σ(t³−t) = 20·6 = 120
		{"shifted by ten", seq(1, 30, 1), seq(11, 40, 1), 200, 0.00022448380595775665, false},
		{"all equal", []float64{5, 5, 5}, []float64{5, 5, 5, 5}, 6, 1, true},
		// 30 against 30 with three ties, normal: mean 450; σ² = 900/12·(61 − (27−3)/3540)
		{"thirty with ties", append(seq(1, 27, 1), 28, 28, 28), seq(31, 60, 1), 0, 3.012295606683313e-11, false},
		{"empty", nil, []float64{1}, 0, 1, false},
	}
	for _, tc := range tests {
		got := MannWhitney(tc.x, tc.y)
		if got.U != tc.u {
			t.Errorf("%s: got U %v; want %v", tc.name, got.U, tc.u)
		}
		if math.Abs(got.P-tc.p) > 1e-9*math.Max(tc.p, 1e-3) {
			t.Errorf("%s: got P %.12g; want %.12g", tc.name, got.P, tc.p)
		}
		if got.Exact != tc.exact {
			t.Errorf("%s: got Exact %v; want %v", tc.name, got.Exact, tc.exact)
		}
	}
}

// The smallest P samples can give says when a test cannot tell: 3 against 3 never gets below 0.1.
func TestMannWhitneyMinP(t *testing.T) {
	t.Parallel()
	tests := []struct {
		n1, n2 int
		want   float64
	}{
		{3, 3, 2.0 / 20},
		{5, 5, 2.0 / 252},
		{1, 1, 1},
	}
	for _, tc := range tests {
		x, y := seq(1, float64(tc.n1), 1), seq(100, float64(99+tc.n2), 1)
		if got := MannWhitney(x, y).MinP; math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%d against %d: got MinP %v; want %v", tc.n1, tc.n2, got, tc.want)
		}
	}
}

// The distribution of twice the rank sum of 4 of ranks 1…10 sums to C(10, 4) and is symmetric.
func TestRankSumCounts(t *testing.T) {
	t.Parallel()
	scores := []int{2, 4, 6, 8, 10, 12, 14, 16, 18, 20}
	d := rankSumCounts(scores, 4)
	total, lo, hi := 0.0, 2*(1+2+3+4), 2*(7+8+9+10)
	for s, c := range d {
		total += c
		if c != 0 && (s < lo || s > hi) {
			t.Errorf("got %v splits of doubled rank sum %d; want none outside %d…%d", c, s, lo, hi)
		}
		if m := lo + hi - s; m >= 0 && m < len(d) && c != d[m] {
			t.Errorf("f(%d) = %v, f(%d) = %v; want them equal", s, c, m, d[m])
		}
	}
	if total != 210 { // C(10, 4)
		t.Errorf("got %v splits; want 210", total)
	}
}
