package compare

import (
	"slices"

	"github.com/rpcbench/rpcbench/summary"
)

// addAnswerMetrics appends to c.Metrics, for every answer metric some run read (in the order the
// runs first name them), a figure per statistic of stats ("p50", "mean"; names of
// plan.StatNames that are not rps, requests or errors): "NAME STAT", in the answers' own unit,
// lower is better, missing for a run that did not read it.
func (c *Comparison) addAnswerMetrics(runs []*summary.Summary, stats []string) {
	var names []string
	for _, s := range runs {
		for _, m := range s.AnswerMetrics {
			if !slices.Contains(names, m.Name) {
				names = append(names, m.Name)
			}
		}
	}
	for _, name := range names {
		for _, stat := range stats {
			if _, ok := (summary.Percentiles{}).Stat(stat); !ok {
				continue
			}
			m := partialMetric(Metric{Name: name + " " + stat, Unit: "count", Better: LowerIsBetter, phrase: name + " " + stat}, len(runs), func(i int) (float64, bool) {
				return answerStat(runs[i].AnswerMetrics, name, stat)
			})
			c.Metrics = append(c.Metrics, m)
		}
	}
}

// answerStat returns the statistic stat of the answer metric name among ms.
func answerStat(ms []summary.AnswerMetric, name, stat string) (float64, bool) {
	for _, m := range ms {
		if m.Name == name && m.Values != nil {
			return m.Values.Stat(stat)
		}
	}
	return 0, false
}
