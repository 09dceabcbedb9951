package report

import (
	"encoding/csv"
	"io"
	"math"
	"strconv"

	"github.com/rpcbench/rpcbench/compare"
	"github.com/rpcbench/rpcbench/summary"
)

// csvHead are the columns of every CSV report; the stage, ratio and resource columns follow.
var csvHead = []string{"run", "start_s", "end_s", "endpoint", "sent", "ok", "errors", "rps", "p50_ms", "p90_ms", "p99_ms", "max_ms"}

// csvRatios are the comparison columns a CSV of several runs adds, the compare metrics they hold.
var csvRatios = []struct{ column, metric string }{
	{"rps_vs_first", "throughput"}, {"error_rate_vs_first", "error rate"}, {"p50_vs_first", "p50"}, {"p99_vs_first", "p99"},
}

// CSV writes the runs' time series, one row per interval and endpoint: the run's label, the
// interval's start and end (seconds from the measured start), the endpoint ("all" for every
// endpoint together), requests sent, ok and failed, answers per second, and latency p50, p90, p99
// and max in milliseconds. labels name the runs (see compare.New).
//
// After a run's intervals comes a row per check the run made of its answers (see
// summary.Check): endpoint "check: NAME", sent the answers the check judged, ok those it passed,
// errors those it failed, the other columns empty.
//
// When a run has per-stage figures (summary.Summary.Stages), every row has four more columns: kind
// ("interval", "stage" or "run"), the stage (of an interval: the stage it is assigned to), and
// latency avg and p95; a row of kind stage follows the intervals for each stage and endpoint, its
// start and end the stage's span and its sent the requests made in it.
//
// Several runs are compared too (see compare.New): the rows end with four more columns,
// rps_vs_first, error_rate_vs_first, p50_vs_first and p99_vs_first, empty on interval and stage
// rows; after the intervals, each run has a row of its whole run for all endpoints together and,
// when some run has several endpoints, one for each endpoint, with start_s and end_s empty, the
// same figures over the whole run, and their ratios to the same endpoint of the first run (empty
// where there is none: against a first run's 0, or an endpoint a run lacks).
//
// When a run was monitored, the columns go on with the target's resources and each sample is a row
// of its own (see resourceCSVCols): one table, the other rows with those columns empty. A
// monitored run with stages adds a row per stage and target, of kind stage, after the stage rows
// (see stageResourceCSVCols).
func CSV(w io.Writer, runs []*summary.Summary, labels []string) error {
	c := compare.New(runs, labels)
	names := c.Labels
	multi := len(runs) > 1
	staged := anyStages(runs)
	cw := csv.NewWriter(w)
	head := append([]string(nil), csvHead...)
	if staged {
		head = append(head, csvStageColumns...)
	}
	var empty []string // the ratio columns of a row without ratios
	if multi {
		for _, r := range csvRatios {
			head = append(head, r.column)
		}
		empty = make([]string, len(csvRatios))
	}
	extra := csvResourceCols(runs)
	lead := len(head)
	cw.Write(append(head, extra...))
	empty = append(empty, make([]string, len(extra))...) // the ratio and resource columns of other rows
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	u := func(v uint64) string { return strconv.FormatUint(v, 10) }
	for i, s := range runs {
		for _, p := range s.Timeline {
			ep := p.Endpoint
			if ep == "" {
				ep = "all"
			}
			row := []string{names[i], f(p.Start), f(p.End), ep, u(p.Sent), u(p.OK), u(p.Errors),
				strconv.FormatFloat(p.RPS, 'f', 1, 64), f(p.P50), f(p.P90), f(p.P99), f(p.Max)}
			if staged {
				row = append(row, csvIntervalStage(s, p)...)
			}
			cw.Write(append(row, empty...))
		}
		checksCSV(cw, names[i], &s.Stats, len(head)+len(extra), staged)
		answerMetricsCSV(cw, names[i], s, len(head)+len(extra), staged)
		csvStages(cw, names[i], s, empty)
		if extra != nil {
			csvResourceRows(cw, s, names[i], lead, len(extra))
		}
	}
	if multi {
		whole := func(i int, ep string, st *summary.Stats, ms []compare.Metric) {
			row := []string{names[i], "", "", ep, u(st.Requests.Sent), u(st.Requests.OK), u(st.Requests.Errors),
				strconv.FormatFloat(st.Throughput, 'f', 1, 64), f(st.Latency.P50), f(st.Latency.P90), f(st.Latency.P99), f(st.Latency.Max)}
			if staged {
				row = append(row, "run", "", f(st.Latency.Mean), f(st.Latency.P95))
			}
			for _, r := range csvRatios {
				m, _ := compare.Find(ms, r.metric)
				row = append(row, csvRatio(m, i))
			}
			cw.Write(append(row, make([]string, len(extra))...))
		}
		for i, s := range runs {
			whole(i, "all", &s.Stats, c.Metrics)
			for _, e := range c.Endpoints {
				for k := range s.Endpoints {
					if s.Endpoints[k].Name == e.Name {
						whole(i, e.Name, &s.Endpoints[k].Stats, e.Metrics)
					}
				}
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// csvRatio is run i's ratio on m with four significant digits, or "" when it has none.
func csvRatio(m compare.Metric, i int) string {
	if i >= len(m.Ratios) || math.IsNaN(m.Ratios[i]) || math.IsInf(m.Ratios[i], 0) {
		return ""
	}
	return strconv.FormatFloat(m.Ratios[i], 'g', 4, 64)
}
