package report

import (
	"encoding/csv"
	"io"
	"strconv"

	"github.com/rpcbench/rpcbench/compare"
	"github.com/rpcbench/rpcbench/summary"
)

// CSV writes the runs' time series, one row per interval and endpoint: the run's label, the
// interval's start and end (seconds from the measured start), the endpoint ("all" for every
// endpoint together), requests sent, ok and failed, answers per second, and latency p50, p90, p99
// and max in milliseconds. labels name the runs (see compare.New). When a run was monitored, the
// columns go on with the target's resources and each sample is a row of its own (see
// resourceCSVCols): one table, the interval rows with those columns empty.
func CSV(w io.Writer, runs []*summary.Summary, labels []string) error {
	names := compare.New(runs, labels).Labels
	cw := csv.NewWriter(w)
	head := []string{"run", "start_s", "end_s", "endpoint", "sent", "ok", "errors", "rps", "p50_ms", "p90_ms", "p99_ms", "max_ms"}
	extra := csvResourceCols(runs)
	cw.Write(append(head, extra...))
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	u := func(v uint64) string { return strconv.FormatUint(v, 10) }
	for i, s := range runs {
		for _, p := range s.Timeline {
			ep := p.Endpoint
			if ep == "" {
				ep = "all"
			}
			cw.Write(append([]string{names[i], f(p.Start), f(p.End), ep, u(p.Sent), u(p.OK), u(p.Errors),
				strconv.FormatFloat(p.RPS, 'f', 1, 64), f(p.P50), f(p.P90), f(p.P99), f(p.Max)}, make([]string, len(extra))...))
		}
		if extra != nil {
			csvResourceRows(cw, s, names[i], len(head))
		}
	}
	cw.Flush()
	return cw.Error()
}
