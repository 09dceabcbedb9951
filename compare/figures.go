package compare

import (
	"github.com/rpcbench/rpcbench/summary"
)

// requests is the total of requests made (sent, and failed before sending).
var requests = figure{"requests", "count", "requests", HigherIsBetter, func(st *summary.Stats) float64 { return float64(st.Requests.Attempted()) }, nil}

// transfer is the bytes of the answers read per second (wrk's Transfer/sec): the bytes in over the
// run's elapsed time, which is the answers' count over their throughput.
var transfer = figure{"transfer/s", "B/s", "transfer/s", HigherIsBetter, func(st *summary.Stats) float64 {
	if st.Requests.Completed == 0 {
		return 0
	}
	return float64(st.Bytes.In) * st.Throughput / float64(st.Requests.Completed)
}, nil}

// misses and missRate are the answers of a miss status (checks.miss), and their share of the
// requests made: what the ids asked for made them, not the target, so they are not judged.
var (
	misses   = figure{"misses", "count", "misses", NotJudged, func(st *summary.Stats) float64 { return float64(st.Requests.Misses) }, nil}
	missRate = figure{"miss rate", "%", "miss rate", NotJudged, func(st *summary.Stats) float64 {
		if st.Requests.Attempted() == 0 {
			return 0
		}
		return 100 * float64(st.Requests.Misses) / float64(st.Requests.Attempted())
	}, nil}
)

// statFigure returns the figure of a plan.StatNames name; closed says whether the runs are all of
// the closed model (otherwise the throughput and the requests are their input, not judged).
func statFigure(name string, closed bool) figure {
	switch name {
	case "rps":
		return throughput.judged(closed)
	case "transfer/s":
		return transfer.judged(closed)
	case "requests":
		return requests.judged(closed)
	case "misses":
		return misses
	case "miss-rate":
		return missRate
	case "errors":
		return errorRate
	}
	return figure{name, "ms", name, LowerIsBetter, func(st *summary.Stats) float64 { v, _ := st.Latency.Stat(name); return v }, nil}
}

// NewStats is New with the figures of the totals and of each endpoint chosen: stats, names of
// plan.StatNames in the order to show them; nil or empty: New's figures.
func NewStats(runs []*summary.Summary, labels []string, stats []string) *Comparison {
	c := New(runs, labels)
	if len(stats) == 0 {
		return c
	}
	closed := allClosed(runs)
	figs := make([]figure, len(stats))
	for i, s := range stats {
		figs[i] = statFigure(s, closed)
	}
	all := make([]*summary.Stats, len(runs))
	for i, s := range runs {
		all[i] = &s.Stats
	}
	c.Metrics = c.Metrics[:0]
	for _, f := range figs {
		c.Metrics = append(c.Metrics, metricOf(f, all))
	}
	c.addAnswerMetrics(runs, stats)
	c.addQUICMetrics(runs)
	c.addSubscriptionMetrics(runs)
	c.Endpoints = endpoints(runs, figs)
	return c
}
