package jsondiff

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
)

// Tolerance lets two numbers at the paths it matches differ by a bound: by at most Abs, or by at
// most Rel times the larger of their magnitudes (0.05 for 5 %). The numbers may be written as
// JSON numbers, hex quantities ("0x3b9aca00") or decimal strings, as Compare reads integers.
// Build it with ParseTolerance.
type Tolerance struct {
	Path Pattern
	// Rel is true for a relative bound, Bound a share of the larger magnitude; else Bound is
	// absolute.
	Rel   bool
	Bound *big.Rat
	text  string
}

// ParseTolerance reads PATH=N (absolute: result.gasPrice=1000000000, result.x=0.001) or PATH=N%
// (relative: result.gasPrice=5%). The bound is a decimal of 0 or more.
func ParseTolerance(s string) (Tolerance, error) {
	path, bound, ok := strings.Cut(s, "=")
	if !ok {
		return Tolerance{}, fmt.Errorf("%q: want PATH=N (absolute) or PATH=N%% (relative), e.g. result.gasPrice=5%%", s)
	}
	p, err := ParsePattern(path)
	if err != nil {
		return Tolerance{}, err
	}
	t := Tolerance{Path: p, text: strings.TrimSpace(s)}
	num := strings.TrimSpace(bound)
	if t.Rel = strings.HasSuffix(num, "%"); t.Rel {
		num = strings.TrimSpace(strings.TrimSuffix(num, "%"))
	}
	r, ok := new(big.Rat).SetString(num)
	if !ok || strings.ContainsAny(num, "/xX") || r.Sign() < 0 {
		return Tolerance{}, fmt.Errorf("%q: the bound %q is not a decimal of 0 or more; want e.g. 0.001 or 5%%", s, bound)
	}
	if t.Rel {
		r.Quo(r, big.NewRat(100, 1))
	}
	t.Bound = r
	return t, nil
}

// String is the tolerance as ParseTolerance read it.
func (t Tolerance) String() string { return t.text }

// within reports whether a and b are numbers whose difference is within t.
func (t Tolerance) within(a, b any) bool {
	x, okA := number(a)
	y, okB := number(b)
	if !okA || !okB {
		return false
	}
	d := new(big.Rat).Sub(x, y)
	d.Abs(d)
	bound := t.Bound
	if t.Rel {
		m := new(big.Rat).Abs(x)
		if ay := new(big.Rat).Abs(y); ay.Cmp(m) > 0 {
			m = ay
		}
		bound = m.Mul(m, t.Bound)
	}
	return d.Cmp(bound) <= 0
}

// number reads v as a number: a JSON number (integer or not), a hex quantity or a decimal
// integer string.
func number(v any) (*big.Rat, bool) {
	if n, ok := v.(json.Number); ok && len(n) <= maxIntDigits {
		return new(big.Rat).SetString(string(n))
	}
	i, ok := integer(v)
	if !ok {
		return nil, false
	}
	return new(big.Rat).SetInt(i), true
}

// tolerated reports whether the scalars a and b at p differ within the first tolerance matching p.
func (c *comparer) tolerated(p Path, a, b any) bool {
	for _, t := range c.o.Tolerance {
		if t.Path.Match(p) {
			return t.within(a, b)
		}
	}
	return false
}
