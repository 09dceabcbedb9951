package compare

import (
	"math"
	"strconv"

	"github.com/rpcbench/rpcbench/summary"
)

// Direction says which way a figure is better.
type Direction int

// The directions.
const (
	HigherIsBetter Direction = iota // throughput of the closed model, achieved/intended
	LowerIsBetter                   // latency, errors
	// NotJudged is a figure the runs' inputs set: the throughput of the open model, where the rate
	// is asked for. It is shown with its ratio, never called better or worse.
	NotJudged
)

// word is how JSON names d: which way the figure is better.
func (d Direction) word() string {
	switch d {
	case HigherIsBetter:
		return "higher"
	case LowerIsBetter:
		return "lower"
	}
	return "not judged"
}

// Metric is one figure across the runs. Values and Ratios are indexed by run; Ratios[i] is
// Values[i]/Values[0] (1 for the first run; NaN when the first run's value is 0). The zero value
// is a metric with no runs.
type Metric struct {
	Name   string // "throughput", "p99"
	Unit   string // "req/s", "ms", "%"
	Better Direction
	Values []float64
	Ratios []float64
	// Missing, when not nil, marks the runs that lack the figure (an endpoint a run did not have):
	// their Values are 0 and their Ratios NaN, as are every run's Ratios when the first run lacks it.
	Missing []bool
	// phrase names the figure in a sentence: "requests/s", "p99".
	phrase string
}

// Comparison is several runs side by side, the first being the baseline: the totals' Metrics and,
// when some run has several endpoints, each endpoint's. It is plain data, safe to share once made.
type Comparison struct {
	Labels []string `json:"labels"`
	// Settings are the runs' inputs side by side, never judged; InputsNote says which differ
	// ("compared at their own inputs: rate 1000/s vs 2000/s"), "" when none does.
	Settings   []Setting  `json:"settings"`
	InputsNote string     `json:"inputs_note,omitempty"`
	Metrics    []Metric   `json:"metrics"`
	Endpoints  []Endpoint `json:"endpoints,omitempty"`
}

// New compares runs against the first one, in total and, when some run has several endpoints,
// endpoint by endpoint (matched by name). labels name the runs (a file name, a host); missing ones
// become "run N".
func New(runs []*summary.Summary, labels []string) *Comparison {
	c := &Comparison{Labels: make([]string, len(runs))}
	for i := range runs {
		if i < len(labels) && labels[i] != "" {
			c.Labels[i] = labels[i]
		} else {
			c.Labels[i] = "run " + strconv.Itoa(i+1)
		}
	}
	add := func(name, unit, phrase string, better Direction, f func(*summary.Summary) float64) {
		m := Metric{Name: name, Unit: unit, Better: better, phrase: phrase}
		for _, s := range runs {
			m.Values = append(m.Values, f(s))
		}
		for _, v := range m.Values {
			m.Ratios = append(m.Ratios, Ratio(v, m.Values[0]))
		}
		c.Metrics = append(c.Metrics, m)
	}
	c.Settings = settings(runs)
	c.InputsNote = inputsNote(c.Settings)
	closed := allClosed(runs)
	tp := throughput.judged(closed)
	for _, f := range []figure{tp, errorRate} {
		add(f.name, f.unit, f.phrase, f.better, func(s *summary.Summary) float64 { return f.of(&s.Stats) })
	}
	if !closed { // the open model's throughput, judged against its own intended rate
		add(achievedShare.name, achievedShare.unit, achievedShare.phrase, achievedShare.better, achievedShare.ofRun)
		m := &c.Metrics[len(c.Metrics)-1]
		for i, s := range runs {
			if closedModel(s.Config.Load) || s.IntendedRate == 0 {
				if m.Missing == nil {
					m.Missing = make([]bool, len(runs))
				}
				m.Missing[i], m.Values[i] = true, 0
			}
		}
		for i := range m.Ratios {
			if m.missing(i) || m.missing(0) {
				m.Ratios[i] = math.NaN()
			}
		}
	}
	lat := []struct {
		name string
		f    func(p summary.Percentiles) float64
	}{
		{"p50", func(p summary.Percentiles) float64 { return p.P50 }},
		{"p90", func(p summary.Percentiles) float64 { return p.P90 }},
		{"p99", func(p summary.Percentiles) float64 { return p.P99 }},
		{"p99.9", func(p summary.Percentiles) float64 { return p.P999 }},
		{"max", func(p summary.Percentiles) float64 { return p.Max }},
	}
	for _, l := range lat {
		add(l.name, "ms", l.name, LowerIsBetter, func(s *summary.Summary) float64 { return l.f(s.Latency) })
	}
	add("send lag p99", "ms", "send lag p99", LowerIsBetter, func(s *summary.Summary) float64 { return s.SendLag.P99 })
	c.addAnswerMetrics(runs, []string{"p50", "p99"})
	c.addQUICMetrics(runs)
	c.addSubscriptionMetrics(runs)
	c.Endpoints = endpoints(runs, []figure{throughput.judged(closed), errorRate, p50, p99})
	return c
}

// Ratio returns v/base; NaN when base is 0 and v is not (no meaningful ratio), 1 when both are 0.
func Ratio(v, base float64) float64 {
	switch {
	case base == 0 && v == 0:
		return 1
	case base == 0:
		return math.NaN()
	}
	return v / base
}

// Improved reports whether run i is better than the first run on m (false when equal or unknown).
func (m Metric) Improved(i int) bool {
	r := m.Ratios[i]
	if math.IsNaN(r) {
		return false
	}
	switch m.Better {
	case HigherIsBetter:
		return r > 1
	case LowerIsBetter:
		return r < 1
	}
	return false
}

// Phrase says how run i compares with the first run on m: "3.2× more requests/s", "0.5× the p99",
// "same p99"; "n/a" when the first run's value is 0 or a run lacks the figure.
func (m Metric) Phrase(i int) string {
	r := m.Ratios[i]
	switch {
	case m.missing(i):
		return "n/a (not in this run)"
	case m.missing(0):
		return "n/a (not in the first run)"
	case math.IsNaN(r):
		return "n/a (first run: 0)"
	case SameRatio(r):
		return "same " + m.phrase
	case m.Better == HigherIsBetter && r > 1:
		return Times(r, FormatRatio, "more "+m.phrase, "")
	}
	return Times(r, FormatRatio, "the "+m.phrase, "")
}

// SameRatio reports whether FormatRatio shows r as 1: "1.0" or "1.00" (0.995 to 1.05), a ratio too
// close to 1 to call better or worse.
func SameRatio(r float64) bool {
	f := FormatRatio(r)
	return f == "1.0" || f == "1.00"
}

// FormatRatio formats a ratio with two significant digits, at least one decimal: "3.2", "0.50",
// "12.0", "150".
func FormatRatio(r float64) string {
	switch {
	case r >= 100:
		return strconv.FormatFloat(r, 'f', 0, 64)
	case r >= 1:
		return strconv.FormatFloat(r, 'f', 1, 64)
	case r >= 0.1:
		return strconv.FormatFloat(r, 'f', 2, 64)
	}
	return strconv.FormatFloat(r, 'g', 2, 64)
}
