package compare

import (
	"math"
	"sort"
)

// RankTest is the result of a two-sided Mann–Whitney U test (the Wilcoxon rank-sum test) of two
// samples: whether one tends to hold larger values than the other, with no assumption on the shape
// of their distributions. It is plain data; the zero value is a test of no samples (P 1).
type RankTest struct {
	N1 int `json:"n1"` // the samples' sizes
	N2 int `json:"n2"`
	// U is U of the first sample: the number of pairs (x, y) with x > y, ties counting one half.
	// It lies between 0 and N1·N2; N1·N2/2 is what equal distributions give on average.
	U float64 `json:"u"`
	// P is the two-sided p-value: how often samples of one distribution would give a U at least
	// as far from N1·N2/2 as this one.
	P float64 `json:"p"`
	// Exact says P comes from the exact distribution of U given the ties (samples of at most 25
	// values each): the share of all splits of the pooled values into groups of N1 and N2 whose U
	// is as far from N1·N2/2. Otherwise P comes from the normal approximation with the tie
	// correction and a continuity correction of ½.
	Exact bool `json:"exact"`
	// MinP is the smallest P samples of these sizes could give (both samples apart, no ties):
	// when it is not below the significance level, the test cannot tell anything.
	MinP float64 `json:"min_p"`
}

// exactLimit is the largest size of both samples for which MannWhitney counts the exact
// distribution (C(50, 25) ≈ 1.3e14 splits: counts below 2^53 stay exact in a float64).
const exactLimit = 25

// MannWhitney tests whether x and y come from one distribution (two-sided Mann–Whitney U). Ties
// get the mean of their ranks. With both samples of at most 25 values P is exact (the ties taken
// as they are); otherwise it comes from the normal approximation with the tie correction. Either
// sample empty, or every value equal: P is 1.
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
	ranks2, first := midranks(x, y)
	var r2, tieSum float64 // twice the rank sum of x; Σ(t³−t) over groups of ties
	for i, r := range ranks2 {
		if first[i] {
			r2 += float64(r)
		}
	}
	for i := 0; i < len(ranks2); {
		j := i
		for j < len(ranks2) && ranks2[j] == ranks2[i] {
			j++
		}
		if g := float64(j - i); g > 1 {
			tieSum += g*g*g - g
		}
		i = j
	}
	t.U = r2/2 - float64(n1*(n1+1))/2
	n := float64(n1 + n2)
	prod := float64(n1) * float64(n2)
	if n1 <= exactLimit && n2 <= exactLimit {
		counts := rankSumCounts(ranks2, n1)
		// twice the mean rank sum is n1(n+1): P counts the splits at least as far from it
		mid := int64(n1) * int64(n1+n2+1)
		far := abs64(int64(r2) - mid)
		total, tail := 0.0, 0.0
		for s, c := range counts {
			total += c
			if abs64(int64(s)-mid) >= far {
				tail += c
			}
		}
		t.P, t.Exact = math.Min(1, tail/total), true
		t.MinP = math.Min(1, 2/binomial(n1+n2, n1))
		return t
	}
	mean := prod / 2
	sd := math.Sqrt(prod / 12 * ((n + 1) - tieSum/(n*(n-1))))
	t.MinP = normalP(prod, mean, math.Sqrt(prod/12*(n+1)))
	t.P = normalP(t.U, mean, sd)
	return t
}

// midranks ranks the pooled values of x and y, ties getting the mean of their ranks, and returns
// twice each rank (an integer) in ascending order with whether the value came from x.
func midranks(x, y []float64) (ranks2 []int, first []bool) {
	type obs struct {
		v     float64
		first bool
	}
	all := make([]obs, 0, len(x)+len(y))
	for _, v := range x {
		all = append(all, obs{v, true})
	}
	for _, v := range y {
		all = append(all, obs{v, false})
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].v < all[j].v })
	ranks2, first = make([]int, len(all)), make([]bool, len(all))
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].v == all[i].v {
			j++
		}
		for k := i; k < j; k++ {
			ranks2[k], first[k] = i+1+j, all[k].first // 2 × the mean of ranks i+1 … j
		}
		i = j
	}
	return ranks2, first
}

// rankSumCounts returns, for each s, how many ways of choosing k of the scores sum to s: the
// distribution of twice the first sample's rank sum over all splits of the pooled values, ties
// included. It is the knapsack recurrence c[j][s] += c[j−1][s−score], one score at a time.
func rankSumCounts(scores []int, k int) []float64 {
	maxSum := 0
	for _, s := range scores {
		maxSum += s
	}
	c := make([][]float64, k+1)
	for j := range c {
		c[j] = make([]float64, maxSum+1)
	}
	c[0][0] = 1
	for i, sc := range scores {
		for j := min(i+1, k); j >= 1; j-- { // downwards: each score is chosen at most once
			prev, cur := c[j-1], c[j]
			for s := maxSum; s >= sc; s-- {
				cur[s] += prev[s-sc]
			}
		}
	}
	return c[k]
}

// binomial returns C(n, k) as a float64.
func binomial(n, k int) float64 {
	r := 1.0
	for i := 1; i <= k; i++ {
		r = r * float64(n-k+i) / float64(i)
	}
	return math.Round(r)
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
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
