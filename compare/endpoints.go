package compare

import (
	"encoding/json"
	"math"

	"github.com/rpcbench/rpcbench/summary"
)

// Endpoint is one endpoint's figures across the runs, matched by name: its answers per second,
// error rate, p50 and p99, each with its ratio to the same endpoint of the first run.
type Endpoint struct {
	Name    string   `json:"name"`
	Metrics []Metric `json:"metrics"`
}

// endpoints compares the runs endpoint by endpoint on figures, when some run has more than one (a run of one
// endpoint has no other figures than its totals). The endpoints come in the order of the first run
// that has them; a run without an endpoint has it Missing.
func endpoints(runs []*summary.Summary, figures []figure) []Endpoint {
	several := false
	for _, s := range runs {
		several = several || len(s.Endpoints) > 1
	}
	if !several {
		return nil
	}
	var names []string
	seen := map[string]bool{}
	for _, s := range runs {
		for _, e := range s.Endpoints {
			if !seen[e.Name] {
				seen[e.Name] = true
				names = append(names, e.Name)
			}
		}
	}
	out := make([]Endpoint, 0, len(names))
	for _, name := range names {
		stats := make([]*summary.Stats, len(runs))
		for i, s := range runs {
			for k := range s.Endpoints {
				if s.Endpoints[k].Name == name {
					stats[i] = &s.Endpoints[k].Stats
					break
				}
			}
		}
		ep := Endpoint{Name: name}
		for _, f := range figures {
			ep.Metrics = append(ep.Metrics, metricOf(f, stats))
		}
		out = append(out, ep)
	}
	return out
}

// figure is one figure of a run or an endpoint that a comparison shows.
type figure struct {
	name, unit, phrase string
	better             Direction
	of                 func(*summary.Stats) float64
	ofRun              func(*summary.Summary) float64 // a figure of a whole run only (of is nil)
}

// judged returns f, not judged unless judge: the throughput of runs not all of the closed model.
func (f figure) judged(judge bool) figure {
	if !judge {
		f.better = NotJudged
	}
	return f
}

var (
	throughput = figure{"throughput", "req/s", "requests/s", HigherIsBetter, func(st *summary.Stats) float64 { return st.Throughput }, nil}
	errorRate  = figure{"error rate", "%", "error rate", LowerIsBetter, func(st *summary.Stats) float64 {
		if st.Requests.Attempted() == 0 {
			return 0
		}
		return 100 * float64(st.Requests.Errors) / float64(st.Requests.Attempted())
	}, nil}
	// achievedShare is the open model's successful answers per second as a share of its intended
	// rate (as the SLO objective rate judges it): what the target did with the rate asked for.
	achievedShare = figure{name: "achieved/intended", unit: "%", phrase: "achieved/intended", better: HigherIsBetter,
		ofRun: func(s *summary.Summary) float64 {
			if s.IntendedRate == 0 {
				return 0
			}
			return 100 * s.Achieved() / s.IntendedRate
		}}
	p50 = figure{"p50", "ms", "p50", LowerIsBetter, func(st *summary.Stats) float64 { return st.Latency.P50 }, nil}
	p99 = figure{"p99", "ms", "p99", LowerIsBetter, func(st *summary.Stats) float64 { return st.Latency.P99 }, nil}
)

// metricOf makes the metric of f over stats, one per run; a nil entry is a run without the figure.
func metricOf(f figure, stats []*summary.Stats) Metric {
	return partialMetric(Metric{Name: f.name, Unit: f.unit, Better: f.better, phrase: f.phrase}, len(stats), func(i int) (float64, bool) {
		if stats[i] == nil {
			return 0, false
		}
		return f.of(stats[i]), true
	})
}

// missing reports whether run i lacks the figure (an endpoint it did not have).
func (m Metric) missing(i int) bool { return m.Missing != nil && m.Missing[i] }

// Find returns the metric of ms named name ("throughput", "p99"), and whether there is one.
func Find(ms []Metric, name string) (Metric, bool) {
	for _, m := range ms {
		if m.Name == name {
			return m, true
		}
	}
	return Metric{}, false
}

// MarshalJSON writes m with its direction as "higher", "lower" (which way is better) or "not
// judged" (a figure the inputs set), a ratio
// that has no meaning (against a first run's 0, or a run without the figure) as null, and a
// value a run does not have as null.
func (m Metric) MarshalJSON() ([]byte, error) {
	better := m.Better.word()
	values := make([]*float64, len(m.Values))
	ratios := make([]*float64, len(m.Ratios))
	for i := range m.Values {
		if !m.missing(i) {
			values[i] = &m.Values[i]
		}
	}
	for i := range m.Ratios {
		if !math.IsNaN(m.Ratios[i]) && !math.IsInf(m.Ratios[i], 0) {
			ratios[i] = &m.Ratios[i]
		}
	}
	return json.Marshal(struct {
		Name   string     `json:"name"`
		Unit   string     `json:"unit"`
		Better string     `json:"better"`
		Values []*float64 `json:"values"`
		Ratios []*float64 `json:"ratios"`
	}{m.Name, m.Unit, better, values, ratios})
}

// partialMetric is the figure m (its name, unit, direction and phrase) of n runs that some may
// lack: of(i) is run i's value, ok=false when it has none (then its value is 0 and it is missing,
// with a NaN ratio, as are all ratios when the first run lacks it).
func partialMetric(m Metric, n int, of func(i int) (float64, bool)) Metric {
	for i := range n {
		v, ok := of(i)
		if !ok {
			v = 0
			if m.Missing == nil {
				m.Missing = make([]bool, n)
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
	return m
}
