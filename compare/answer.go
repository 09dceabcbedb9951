package compare

import (
	"math"
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
			m := Metric{Name: name + " " + stat, Unit: "count", Better: LowerIsBetter, phrase: name + " " + stat}
			for i, s := range runs {
				v, ok := answerStat(s.AnswerMetrics, name, stat)
				if !ok {
					if m.Missing == nil {
						m.Missing = make([]bool, len(runs))
					}
					m.Missing[i] = true
				}
				m.Values = append(m.Values, v)
			}
			for i, v := range m.Values {
				if m.missing(i) || m.missing(0) {
					m.Ratios = append(m.Ratios, math.NaN())
					continue
				}
				m.Ratios = append(m.Ratios, Ratio(v, m.Values[0]))
			}
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
