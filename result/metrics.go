package result

import "slices"

// MetricMax is the largest value an answer metric records (the histograms' range: HistMax).
const MetricMax = HistMax

// MetricValue is what one answer held for one answer metric (check.Metric): its value, or
// Missing when the answer had no number in range at the metric's path. Name should be a string
// made once (the plan's), not per request.
type MetricValue struct {
	Name    string
	Value   int64
	Missing bool
}

// MetricCounts is one answer metric of an endpoint: the distribution of the values the answers
// held, as they gave them (the name says the unit), and how many answers held none.
type MetricCounts struct {
	Values  *Histogram
	Missing uint64
}

// metric returns the counts of the metric name, making them (and c.Metrics) on first use.
func (c *Counts) metric(name string) *MetricCounts {
	m := c.Metrics[name]
	if m == nil {
		if c.Metrics == nil {
			c.Metrics = map[string]*MetricCounts{}
		}
		m = &MetricCounts{Values: NewHistogram()}
		c.Metrics[name] = m
	}
	return m
}

// recordMetric adds v to c.Metrics.
func (c *Counts) recordMetric(v *MetricValue) {
	m := c.metric(v.Name)
	if v.Missing {
		m.Missing++
		return
	}
	_ = m.Values.RecordValue(min(max(v.Value, 0), MetricMax))
}

func (c *Counts) mergeMetrics(o *Counts) {
	for name, om := range o.Metrics {
		if om.Missing == 0 && om.Values.TotalCount() == 0 {
			continue
		}
		m := c.metric(name)
		m.Missing += om.Missing
		mergeHist(m.Values, om.Values)
	}
}

// resetMetrics empties the metrics of c, keeping their memory.
func (c *Counts) resetMetrics() {
	for _, m := range c.Metrics {
		m.Values.Reset()
		m.Missing = 0
	}
}

// MetricNames returns the names of the answer metrics that hold values or missing answers, sorted.
func (c *Counts) MetricNames() []string {
	var names []string
	for name, m := range c.Metrics {
		if m.Missing > 0 || m.Values.TotalCount() > 0 {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}
