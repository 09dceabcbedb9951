package compare

import (
	"strconv"
	"testing"
)

func TestTimes(t *testing.T) {
	t.Parallel()
	twoDecimals := func(r float64) string { return strconv.FormatFloat(r, 'f', 2, 64) }
	for _, c := range []struct {
		r            float64
		format       func(float64) string
		above, below string
		want         string
	}{
		{3.21, FormatRatio, "more requests/s", "", "3.2× more requests/s"},
		{0.5, FormatRatio, "the p99", "", "0.50× the p99"},                         // no below: not turned over
		{1, twoDecimals, "longer", "shorter", "1.00× longer"},                      // 1 is "above"
		{2.1, twoDecimals, "longer", "shorter", "2.10× longer"},                    // 21/10
		{0.8, twoDecimals, "longer", "shorter", "1.25× shorter"},                   // 1/0.8 = 1.25
		{10.0 / 110, SpokenRatio, "more memory", "less memory", "11× less memory"}, // 110/10
		{2.7, SpokenRatio, "more memory", "less memory", "2.7× more memory"},
		{1.0 / 300, SpokenRatio, "more memory", "less memory", "300× less memory"},
	} {
		if got := Times(c.r, c.format, c.above, c.below); got != c.want {
			t.Errorf("Times(%v, %q, %q): got %q; want %q", c.r, c.above, c.below, got, c.want)
		}
	}
}

func TestSpokenRatio(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		r    float64
		want string
	}{{1.49, "1.5"}, {2.7, "2.7"}, {9.94, "9.9"}, {10, "10"}, {10.6, "11"}, {149.5, "150"}} {
		if got := SpokenRatio(c.r); got != c.want {
			t.Errorf("SpokenRatio(%v): got %q; want %q", c.r, got, c.want)
		}
	}
}
