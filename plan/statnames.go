package plan

import (
	"fmt"
	"slices"
	"strings"
)

// StatNames are the figures a side-by-side table can show, by the name a plan's stats: and
// --stats take: rps (answers per second), transfer/s (the bytes of the answers per second, wrk's
// Transfer/sec), requests (the total made), errors (the error rate), misses and miss-rate (the
// answers of a miss status, checks.miss: their count and share of the requests), then the
// latency's min, mean, stdev, percentiles and max (wrk's layout is mean, stdev, max).
var StatNames = []string{"rps", "transfer/s", "requests", "errors", "misses", "miss-rate", "min", "mean", "stdev", "p50", "p75", "p90", "p95", "p99", "p99.9", "p99.99", "max"}

// ParseStats checks a list of StatNames (a comma-separated text splits into several); nil for an
// empty list, which leaves the tables' default figures.
func ParseStats(list []string) ([]string, error) {
	var out []string
	for _, item := range list {
		for _, s := range strings.Split(item, ",") {
			s = strings.TrimSpace(s)
			if !slices.Contains(StatNames, s) {
				return nil, fmt.Errorf("%q is not a statistic a table shows; want some of %s", s, strings.Join(StatNames, ", "))
			}
			if slices.Contains(out, s) {
				return nil, fmt.Errorf("%q is given twice", s)
			}
			out = append(out, s)
		}
	}
	return out, nil
}
