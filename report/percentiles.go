package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rpcbench/rpcbench/summary"
)

// Options choose what the tables of a report show and what its runs are called. The zero value
// shows the defaults.
type Options struct {
	// Percentiles are the latency columns of the per-endpoint tables (text, Markdown, HTML) and of
	// the Markdown latency table, each one of 50, 75, 90, 95, 99, 99.9 and 99.99; nil: 50, 90, 95,
	// 99 and 99.9. Max always follows them.
	Percentiles []float64
	// Stats are the figures of the tables that compare several runs, in total and per endpoint, in
	// text, Markdown and JSON (CSV and HTML keep their columns):
	// names of plan.StatNames ("p95", "mean", "stdev", "requests", "rps"); nil: the default figures
	// (see compare.New).
	Stats []string
	// Labels name the runs where several are shown together (a file name, "before", a host), in
	// the order of the runs; a missing or empty one is "run N" (see compare.New).
	Labels []string
}

// percentileNames are the percentiles a Summary holds, by the name a user writes.
var percentileNames = []string{"50", "75", "90", "95", "99", "99.9", "99.99"}

func (o Options) percentiles() []float64 {
	if len(o.Percentiles) == 0 {
		return []float64{50, 90, 95, 99, 99.9}
	}
	return o.Percentiles
}

// ParsePercentiles reads a list such as "50,90,95,99,99.9" for Options.Percentiles.
func ParsePercentiles(s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		q, err := strconv.ParseFloat(strings.TrimPrefix(f, "p"), 64)
		if err != nil || pctOf(&summary.Percentiles{}, q) < 0 {
			return nil, fmt.Errorf("%q is not a percentile a report holds; want a comma-separated list of %s", f, strings.Join(percentileNames, ", "))
		}
		out = append(out, q)
	}
	return out, nil
}

// pctOf returns percentile q of p, or -1 when p holds no such percentile.
func pctOf(p *summary.Percentiles, q float64) float64 {
	switch q {
	case 50:
		return p.P50
	case 75:
		return p.P75
	case 90:
		return p.P90
	case 95:
		return p.P95
	case 99:
		return p.P99
	case 99.9:
		return p.P999
	case 99.99:
		return p.P9999
	}
	return -1
}

// pctNames returns the column names of qs: p50, p99.9 ….
func pctNames(qs []float64) []string {
	names := make([]string, len(qs))
	for i, q := range qs {
		names[i] = "p" + strconv.FormatFloat(q, 'f', -1, 64)
	}
	return names
}

// pctCells returns percentiles qs of p, then the max, formatted.
func pctCells(p *summary.Percentiles, qs []float64) []string {
	cells := make([]string, 0, len(qs)+1)
	for _, q := range qs {
		cells = append(cells, fmtMs(pctOf(p, q)))
	}
	return append(cells, fmtMs(p.Max))
}
