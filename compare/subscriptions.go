package compare

import (
	"github.com/rpcbench/rpcbench/summary"
)

// addOptional appends to c.Metrics the figure name of each run, of(s) giving its value and
// whether the run has it (see partialMetric).
func (c *Comparison) addOptional(runs []*summary.Summary, name, unit string, better Direction, of func(*summary.Summary) (float64, bool)) {
	c.Metrics = append(c.Metrics, partialMetric(Metric{Name: name, Unit: unit, Better: better, phrase: name}, len(runs), func(i int) (float64, bool) { return of(runs[i]) }))
}

// addSubscriptionMetrics appends to c.Metrics, when some run had JSON-RPC subscriptions
// (summary.Subscriptions), their figures side by side: subscriptions opened (higher is better),
// notifications received (not judged: the node's events set them), gaps, the p99 of the time to
// the subscription's id and to its first notification, the p50 and p99 of the delivery latency,
// the p99 of the fan-out spread and of the lag behind a reference connection (lower is better). A
// run lacks a figure it has no value of: no subscriptions, no sequence or block number to count
// gaps by, nothing stamped, no event received twice, no reference.
func (c *Comparison) addSubscriptionMetrics(runs []*summary.Summary) {
	some := false
	for _, s := range runs {
		some = some || s.Subscriptions != nil
	}
	if !some {
		return
	}
	count := func(f func(*summary.Subscriptions) (float64, bool)) func(*summary.Summary) (float64, bool) {
		return func(s *summary.Summary) (float64, bool) {
			if s.Subscriptions == nil {
				return 0, false
			}
			return f(s.Subscriptions)
		}
	}
	pct := func(p func(*summary.Subscriptions) *summary.Percentiles, stat string) func(*summary.Summary) (float64, bool) {
		return count(func(u *summary.Subscriptions) (float64, bool) {
			if q := p(u); q != nil {
				return q.Stat(stat)
			}
			return 0, false
		})
	}
	c.addOptional(runs, "subscriptions opened", "count", HigherIsBetter, count(func(u *summary.Subscriptions) (float64, bool) { return float64(u.Opened), true }))
	c.addOptional(runs, "notifications", "count", NotJudged, count(func(u *summary.Subscriptions) (float64, bool) { return float64(u.Messages), true }))
	c.addOptional(runs, "notification gaps", "count", LowerIsBetter, count(func(u *summary.Subscriptions) (float64, bool) { return float64(u.Gaps), u.GapsBy != "" }))
	c.addOptional(runs, "time to id p99", "ms", LowerIsBetter, pct(func(u *summary.Subscriptions) *summary.Percentiles { return u.TimeToID }, "p99"))
	c.addOptional(runs, "time to first p99", "ms", LowerIsBetter, pct(func(u *summary.Subscriptions) *summary.Percentiles { return u.TimeToFirst }, "p99"))
	c.addOptional(runs, "delivery p50", "ms", LowerIsBetter, pct(func(u *summary.Subscriptions) *summary.Percentiles { return u.Delivery }, "p50"))
	c.addOptional(runs, "delivery p99", "ms", LowerIsBetter, pct(func(u *summary.Subscriptions) *summary.Percentiles { return u.Delivery }, "p99"))
	c.addOptional(runs, "fan-out spread p99", "ms", LowerIsBetter, pct(func(u *summary.Subscriptions) *summary.Percentiles { return u.Spread }, "p99"))
	c.addOptional(runs, "reference lag p99", "ms", LowerIsBetter, pct(func(u *summary.Subscriptions) *summary.Percentiles {
		if u.Reference == nil {
			return nil
		}
		return u.Reference.Lag
	}, "p99"))
}
