package compare

import (
	"math"

	"github.com/rpcbench/rpcbench/summary"
)

// DefaultAlpha is the significance level NewDelta uses when given 0: a difference is larger than
// the runs' noise when a rank test of their interval values gives P below it.
const DefaultAlpha = 0.05

// Change is one figure of two runs: each run's value, the difference, and whether the difference
// is larger than the runs' own noise, as told by a rank test of the figure's per-interval values.
// It is plain data.
type Change struct {
	Name   string    `json:"name"` // "throughput", "p99"
	Unit   string    `json:"unit"` // "req/s", "ms", "%"
	Better Direction `json:"-"`
	Base   float64   `json:"base"`
	New    float64   `json:"new"`
	// Diff is New − Base in Unit (percentage points for the error rate).
	Diff float64 `json:"diff"`
	// Rel is Diff/Base: +0.1 is 10% more; NaN when Base is 0.
	Rel float64 `json:"-"`
	// Test is the Mann–Whitney U test of the two runs' values of the figure interval by interval;
	// nil when the runs have no per-interval values of it (p99.9, send lag).
	Test *RankTest `json:"test,omitempty"`
	// Significant says Test.P is below the Delta's Alpha: the difference is beyond the noise.
	Significant bool `json:"significant"`
	// TooFew says the runs have too few intervals for the test to tell anything at the level
	// asked: even runs wholly apart would not be significant (Test.MinP ≥ alpha).
	TooFew bool `json:"too_few,omitempty"`
	// Samples are how many interval values of each run went into Test.
	Samples [2]int `json:"samples"`
}

// Worse reports whether the new run is worse than the base on the figure (by any amount, noise or
// not): higher for a figure where lower is better, and the other way round.
func (c Change) Worse() bool {
	switch c.Better {
	case LowerIsBetter:
		return c.Diff > 0
	case HigherIsBetter:
		return c.Diff < 0
	}
	return false
}

// Verdict says in a word or two what the change is: "worse" or "better" when it is beyond the
// noise, "within noise" when it is not, "same" when there is no difference, "not tested" when the
// runs have no per-interval values of the figure, "too few intervals" when they have too few, and
// "not judged" for a figure the inputs set (the open model's throughput).
func (c Change) Verdict() string {
	switch {
	case c.Diff == 0:
		return "same"
	case c.Better == NotJudged:
		return "not judged"
	case c.Test == nil:
		return "not tested"
	case c.TooFew:
		return "too few intervals"
	case !c.Significant:
		return "within noise"
	case c.Worse():
		return "worse"
	}
	return "better"
}

// EndpointDelta is the changes of one endpoint, matched by name, when some run has several.
type EndpointDelta struct {
	Name    string   `json:"name"`
	Changes []Change `json:"changes"`
}

// Delta is two runs compared figure by figure, the first being the base: the totals and, when
// some run has several endpoints, each endpoint present in both. It is plain data.
type Delta struct {
	Labels [2]string `json:"labels"`
	// Settings are the runs' inputs, never judged; InputsNote says which differ, "" when none.
	Settings   []Setting `json:"settings"`
	InputsNote string    `json:"inputs_note,omitempty"`
	// Alpha is the significance level of the tests.
	Alpha float64 `json:"alpha"`
	// Method names the test: "mann-whitney-u".
	Method    string          `json:"method"`
	Changes   []Change        `json:"changes"`
	Endpoints []EndpointDelta `json:"endpoints,omitempty"`
	// Warnings are the runs' (summary.Summary.Warnings), each after its run's label: figures that
	// cannot all be true.
	Warnings []string `json:"warnings,omitempty"`
}

// NewDelta compares next with base figure by figure (the figures of New) and tests each difference
// against the noise of the runs: the per-interval values of the figure in each run's Timeline
// (throughput, error rate, p50, p90, p99, max of each interval) go through a two-sided
// Mann–Whitney U test at level alpha (DefaultAlpha when 0). labels name the runs as in New.
func NewDelta(base, next *summary.Summary, labels []string, alpha float64) *Delta {
	if alpha <= 0 {
		alpha = DefaultAlpha
	}
	c := New([]*summary.Summary{base, next}, labels)
	d := &Delta{Labels: [2]string{c.Labels[0], c.Labels[1]}, Settings: c.Settings, InputsNote: c.InputsNote, Alpha: alpha, Method: "mann-whitney-u"}
	for i, s := range []*summary.Summary{base, next} {
		for _, m := range s.Warnings {
			d.Warnings = append(d.Warnings, d.Labels[i]+": "+m)
		}
	}
	d.Changes = changes(c.Metrics, base, next, "", alpha)
	for _, e := range c.Endpoints {
		if m, ok := Find(e.Metrics, throughput.name); ok && m.Missing != nil {
			continue // not in both runs: nothing to take a difference of
		}
		d.Endpoints = append(d.Endpoints, EndpointDelta{e.Name, changes(e.Metrics, base, next, e.Name, alpha)})
	}
	return d
}

// Find returns the change named name ("throughput", "p99"), and whether there is one.
func (d *Delta) Find(name string) (Change, bool) {
	for _, c := range d.Changes {
		if c.Name == name {
			return c, true
		}
	}
	return Change{}, false
}

// changes makes the change of each metric between its two runs, tested on the points of the two
// runs' timelines that belong to endpoint ("" for the totals).
func changes(ms []Metric, a, b *summary.Summary, endpoint string, alpha float64) []Change {
	out := make([]Change, 0, len(ms))
	for _, m := range ms {
		c := Change{Name: m.Name, Unit: m.Unit, Better: m.Better, Base: m.Values[0], New: m.Values[1]}
		c.Diff = c.New - c.Base
		c.Rel = math.NaN()
		if c.Base != 0 {
			c.Rel = c.Diff / c.Base
		}
		if m.missing(0) || m.missing(1) {
			continue // a figure one run has not (achieved/intended of a closed-model run)
		}
		if of, ok := intervalFigures[m.Name]; ok {
			x, y := samples(a, endpoint, of), samples(b, endpoint, of)
			t := MannWhitney(x, y)
			c.Test, c.Samples = &t, [2]int{len(x), len(y)}
			c.Significant, c.TooFew = t.P < alpha, t.MinP >= alpha
		}
		out = append(out, c)
	}
	return out
}

// intervalFigure is a figure of one interval of run s; ok=false when the interval has no value of it
// (no answers for a latency, no requests for an error rate).
type intervalFigure func(s *summary.Summary, p summary.Point) (v float64, ok bool)

func latencyOf(f func(p summary.Point) float64) intervalFigure {
	return func(_ *summary.Summary, p summary.Point) (float64, bool) { return f(p), p.Max > 0 }
}

// intervalFigures are the figures a Timeline holds interval by interval, by metric name.
var intervalFigures = map[string]intervalFigure{
	throughput.name: func(_ *summary.Summary, p summary.Point) (float64, bool) { return p.RPS, true },
	// of a constant rate only: with stages the intended rate of an interval is not in the timeline
	achievedShare.name: func(s *summary.Summary, p summary.Point) (float64, bool) {
		if s.IntendedRate == 0 || len(s.Config.Load.Stages) > 0 {
			return 0, false
		}
		return 100 * p.RPS / s.IntendedRate, true
	},
	errorRate.name: func(_ *summary.Summary, p summary.Point) (float64, bool) {
		n := p.OK + p.Errors
		if n == 0 {
			return 0, false
		}
		return 100 * float64(p.Errors) / float64(n), true
	},
	"p50": latencyOf(func(p summary.Point) float64 { return p.P50 }),
	"p90": latencyOf(func(p summary.Point) float64 { return p.P90 }),
	"p99": latencyOf(func(p summary.Point) float64 { return p.P99 }),
	"max": latencyOf(func(p summary.Point) float64 { return p.Max }),
}

// samples returns the values of figure of in the points of endpoint of run s.
func samples(s *summary.Summary, endpoint string, of intervalFigure) []float64 {
	var out []float64
	for _, p := range s.Timeline {
		if p.Endpoint != endpoint || p.End <= p.Start {
			continue
		}
		if v, ok := of(s, p); ok {
			out = append(out, v)
		}
	}
	return out
}
