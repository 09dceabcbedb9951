package compare

import (
	"math"
	"sort"
)

// RankTest is the result of a two-sided Mann–Whitney U test (the Wilcoxon rank-sum test) of two
// samples: whether one tends to hold larger values than the other, with no assumption on the shape
// of their distributions. It is plain data; the zero value is a test of no samples (P 1).
type RankTest struct {
	N1, N2 int // the samples' sizes
	// U is U of the first sample: the number of pairs (x, y) with x > y, ties counting one half.
	// It lies between 0 and N1·N2; N1·N2/2 is what equal distributions give on average.
	U float64 `json:"u"`
	// P is the two-sided p-value: how often samples of one distribution would give a U at least
	// as far from N1·N2/2 as this one.
	P float64 `json:"p"`
	// Exact says P comes from the exact distribution of U (small samples without ties); otherwise
	// from the normal approximation with the tie correction and a continuity correction of ½.
	Exact bool `json:"exact"`
	// MinP is the smallest P samples of these sizes could give (both samples apart, no ties):
	// when it is above the significance level, the test cannot tell anything.
	MinP float64 `json:"min_p"`
}

// exactLimit is the largest size of both samples for which MannWhitney computes the exact
// distribution of U (C(50, 25) ≈ 1.3e14 arrangements fit a float64 exactly enough).
const exactLimit = 25

// MannWhitney tests whether x and y come from one distribution (two-sided Mann–Whitney U). Ties
// get the mean of their ranks. With no ties and both samples of at most 25 values P is exact;
// otherwise it comes from the normal approximation with the tie correction. Either sample empty,
// or every value equal: P is 1.
//
// A worked example: x = {1, 2, 3}, y = {4, 5, 6}. Every x is below every y, so U = 0. Of the
// C(6, 3) = 20 equally likely ways to split six ranks into two groups of three, one gives U = 0
// and one U = 9, the two extremes: P = 2/20 = 0.1.
func MannWhitney(x, y []float64) RankTest {
	n1, n2 := len(x), len(y)
	t := RankTest{N1: n1, N2: n2, P: 1, MinP: 1}
	if n1 == 0 || n2 == 0 {
		return t
	}
	type obs struct {
		v     float64
		first bool
	}
	all := make([]obs, 0, n1+n2)
	for _, v := range x {
		all = append(all, obs{v, true})
	}
	for _, v := range y {
		all = append(all, obs{v, false})
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].v < all[j].v })
	var r1, tieSum float64 // rank sum of x; Σ(t³−t) over groups of ties
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].v == all[i].v {
			j++
		}
		rank := float64(i+1+j) / 2 // the mean of ranks i+1 … j
		for k := i; k < j; k++ {
			if all[k].first {
				r1 += rank
			}
		}
		if g := float64(j - i); g > 1 {
			tieSum += g*g*g - g
		}
		i = j
	}
	t.U = r1 - float64(n1*(n1+1))/2
	small := n1 <= exactLimit && n2 <= exactLimit
	if small {
		counts := uDistribution(n1, n2)
		total := 0.0
		for _, c := range counts {
			total += c
		}
		t.MinP = math.Min(1, 2*counts[0]/total)
		if tieSum == 0 {
			u := int(t.U)
			lo, hi := 0.0, 0.0 // P(U ≤ u), P(U ≥ u)
			for k, c := range counts {
				if k <= u {
					lo += c
				}
				if k >= u {
					hi += c
				}
			}
			t.P, t.Exact = math.Min(1, 2*math.Min(lo, hi)/total), true
			return t
		}
	}
	n := float64(n1 + n2)
	prod := float64(n1) * float64(n2)
	mean := prod / 2
	sd := math.Sqrt(prod / 12 * ((n + 1) - tieSum/(n*(n-1))))
	if !small {
		t.MinP = normalP(prod, mean, math.Sqrt(prod/12*(n+1)))
	}
	t.P = normalP(t.U, mean, sd)
	return t
}

// normalP is the two-sided p-value of u under a normal distribution of the given mean and standard
// deviation, with a continuity correction of ½ toward the mean; 1 when sd is 0.
func normalP(u, mean, sd float64) float64 {
	if sd == 0 {
		return 1
	}
	d := math.Max(math.Abs(u-mean)-0.5, 0)
	return math.Min(1, math.Erfc(d/sd/math.Sqrt2))
}

// uDistribution returns how many of the C(n1+n2, n1) arrangements of two samples without ties give
// each U from 0 to n1·n2, by the recurrence f(m, n, u) = f(m−1, n, u−n) + f(m, n−1, u): the largest
// value belongs either to the first sample (beating all n of the second) or to the second.
func uDistribution(n1, n2 int) []float64 {
	// f[n][u] for the current m, n from 0 to n2
	f := make([][]float64, n2+1)
	for n := range f {
		f[n] = []float64{1} // m = 0: one arrangement, U = 0
	}
	for m := 1; m <= n1; m++ {
		g := make([][]float64, n2+1)
		g[0] = []float64{1} // n = 0: one arrangement, U = 0
		for n := 1; n <= n2; n++ {
			row := make([]float64, m*n+1)
			for u, c := range f[n] { // the largest is the first sample's: U grows by n
				row[u+n] += c
			}
			for u, c := range g[n-1] { // the largest is the second sample's
				row[u] += c
			}
			g[n] = row
		}
		f = g
	}
	return f[n2]
}
