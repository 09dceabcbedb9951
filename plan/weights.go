package plan

import "math/rand/v2"

// aliasTable picks index k with probability weight[k]/sum(weights) in constant time (Vose's alias
// method): draw a column i uniformly, keep it with probability prob[i], else take alias[i]. Built
// once; immutable and safe for concurrent use (each caller brings its own generator).
type aliasTable struct {
	prob  []float64
	alias []int
}

// newAliasTable builds the table of weights, which must be positive.
func newAliasTable(weights []float64) *aliasTable {
	n := len(weights)
	t := &aliasTable{prob: make([]float64, n), alias: make([]int, n)}
	// scale by the largest weight first, so that huge weights cannot overflow the sum
	var top, sum float64
	for _, w := range weights {
		top = max(top, w)
	}
	for _, w := range weights {
		sum += w / top
	}
	scaled := make([]float64, n)
	var small, large []int
	for i, w := range weights {
		scaled[i] = w / top * float64(n) / sum
		if scaled[i] < 1 {
			small = append(small, i)
		} else {
			large = append(large, i)
		}
	}
	for len(small) > 0 && len(large) > 0 {
		s, l := small[len(small)-1], large[len(large)-1]
		small = small[:len(small)-1]
		t.prob[s], t.alias[s] = scaled[s], l
		scaled[l] -= 1 - scaled[s]
		if scaled[l] < 1 {
			large = large[:len(large)-1]
			small = append(small, l)
		}
	}
	// what is left is 1 up to rounding
	for _, i := range large {
		t.prob[i], t.alias[i] = 1, i
	}
	for _, i := range small {
		t.prob[i], t.alias[i] = 1, i
	}
	return t
}

// pick returns an index drawn with r.
func (t *aliasTable) pick(r *rand.Rand) int {
	i := r.IntN(len(t.prob))
	if r.Float64() < t.prob[i] {
		return i
	}
	return t.alias[i]
}
