package compare

import (
	"math"
	"strconv"
)

// Times says a ratio in words, as every comparison rpcbench prints says it: at or above 1,
// format(r) + "× " + above ("2.7× more requests/s", "2.10× longer"); below 1, the ratio turned
// over, format(1/r) + "× " + below ("11× less memory", "1.50× shorter"), or, when below is empty,
// the ratio as it is with above ("0.50× the p99"). format writes the figure: FormatRatio,
// SpokenRatio or a fixed number of decimals.
func Times(r float64, format func(float64) string, above, below string) string {
	if r < 1 && below != "" {
		return format(1/r) + "× " + below
	}
	return format(r) + "× " + above
}

// SpokenRatio writes a ratio of 1 or more as people say it: one decimal below 10 ("1.5", "2.7"),
// whole from 10 up ("11", "150").
func SpokenRatio(r float64) string {
	if r >= 10 {
		return strconv.FormatFloat(math.Round(r), 'f', 0, 64)
	}
	return strconv.FormatFloat(r, 'f', 1, 64)
}
