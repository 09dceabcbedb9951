package summary

import (
	"encoding/json"
	"time"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/result"
)

// Stage is the figures of one stage of a load with stages (plan.Load.Stages): a row of the
// per-stage tables. Its figures are exact: they come from the HDR histograms and counters of the
// run's intervals assigned to the stage (see StageOf), merged.
type Stage struct {
	// Index numbers the stage as --stages lists it, from 1.
	Index int `json:"stage"`
	// Ramp is true when the level moves during the stage (From ≠ To); a ramp is reported only when
	// asked for (see NewStages).
	Ramp bool `json:"ramp,omitempty"`
	// From and To are the level at the stage's start and end: arrivals per second in the open
	// model, connections in the closed model.
	From float64 `json:"from"`
	To   float64 `json:"to"`
	// StartS and EndS are the stage's planned span, in seconds from the measured start.
	StartS float64 `json:"start_s"`
	EndS   float64 `json:"end_s"`
	// Intervals counts the intervals assigned to the stage; MeasuredS is their total length, the
	// time RPS is over.
	Intervals int     `json:"intervals"`
	MeasuredS float64 `json:"measured_s"`
	StageFigures
	// Endpoints are the stage's figures per endpoint, when the run has more than one.
	Endpoints []StageFigures `json:"endpoints,omitempty"`
	// Resources are what each monitored target spent in the stage (see SetStageResources).
	Resources []StageResource `json:"resources,omitempty"`
}

// StageFigures are the figures of a stage, for one endpoint or all together.
type StageFigures struct {
	// Endpoint names the endpoint; "" for all endpoints together.
	Endpoint string `json:"endpoint,omitempty"`
	// Requests counts the requests made (sent, or failed before sending) that ended in the stage's
	// intervals; OK those that succeeded, Errors the rest.
	Requests uint64 `json:"requests"`
	OK       uint64 `json:"ok"`
	Errors   uint64 `json:"errors"`
	// RPS is answers per second over the stage's measured time.
	RPS float64 `json:"rps"`
	// Latency is from the intended send time, in milliseconds.
	Latency Percentiles `json:"latency_ms"`
}

// stageSpan is one stage of a load on the measured timeline.
type stageSpan struct {
	index      int
	start, end time.Duration
	from, to   float64
}

func (s stageSpan) ramp() bool { return s.from != s.to }

// stageSpans places the stages of l on the measured timeline (offsets from the end of the
// warm-up). The level starts at 0, or after a warm-up at the first stage's target, which the
// warm-up held. Stages of zero length (steps) take no time and get no span.
func stageSpans(l plan.Load) []stageSpan {
	var out []stageSpan
	var t time.Duration
	level := 0.0
	if l.Warmup > 0 && len(l.Stages) > 0 {
		level = l.Stages[0].Target
	}
	for i, st := range l.Stages {
		if st.Duration > 0 {
			out = append(out, stageSpan{index: i + 1, start: t, end: t + st.Duration, from: level, to: st.Target})
		}
		t += st.Duration
		level = st.Target
	}
	return out
}

// StageOf returns the index (from 1, as --stages lists them) of the stage of l that the interval
// from start to end (offsets from the measured start) is assigned to, and false when it is assigned
// to none (l has no stages). An interval belongs to the stage that holds its midpoint, so every
// interval counts once, in the stage where it spent most of its time: an interval straddling a
// boundary goes whole to the side holding more of it (the later stage on a tie). An interval whose
// midpoint is past the last stage (the drain after the last send) belongs to the last stage.
func StageOf(l plan.Load, start, end time.Duration) (int, bool) {
	spans := stageSpans(l)
	i := spanOf(spans, start, end)
	if i < 0 {
		return 0, false
	}
	return spans[i].index, true
}

// spanOf returns the position in spans of the span an interval is assigned to (see StageOf); -1
// for none.
func spanOf(spans []stageSpan, start, end time.Duration) int {
	if len(spans) == 0 {
		return -1
	}
	mid := start + (end-start)/2
	for i, s := range spans {
		if mid < s.end {
			return i
		}
	}
	return len(spans) - 1
}

// Stages folds the intervals of a run with stages into per-stage figures. Make it with NewStages,
// give it every measured interval with Add, and read the rows with Results. A nil *Stages (a run
// without stages) takes intervals and has no rows. Its memory is a latency histogram per stage
// and endpoint with answers, whatever the run's length. Not safe for concurrent use.
type Stages struct {
	spans []stageSpan
	names []string
	ramps bool
	acc   []stageAcc // by span
}

// stageAcc accumulates one stage.
type stageAcc struct {
	intervals int
	measured  time.Duration
	total     stageCounts
	endpoints []stageCounts
}

// stageCounts are the counters and latency histogram of one stage and endpoint.
type stageCounts struct {
	attempted, completed, ok uint64
	latency                  *result.Histogram // nil until an answer came
}

func (c *stageCounts) add(o *result.Counts) {
	c.attempted += o.Attempted()
	c.completed += o.Completed
	c.ok += o.OK
	if o.Latency.TotalCount() > 0 {
		if c.latency == nil {
			c.latency = result.NewHistogram()
		}
		c.latency.Merge(o.Latency)
	}
}

func (c *stageCounts) figures(name string, measured time.Duration) StageFigures {
	f := StageFigures{Endpoint: name, Requests: c.attempted, OK: c.ok, Errors: c.attempted - min(c.ok, c.attempted)}
	if sec := measured.Seconds(); sec > 0 {
		f.RPS = float64(c.completed) / sec
	}
	if c.latency != nil {
		f.Latency = percentiles(c.latency)
	}
	return f
}

// NewStages returns the collector of the per-stage figures of a run of load l, whose endpoints
// are named names; nil when l has no stages. Ramps (stages whose level moves) are left out, their
// intervals uncounted, unless ramps is true: the figures of a step are those of its level alone.
func NewStages(l plan.Load, names []string, ramps bool) *Stages {
	spans := stageSpans(l)
	if len(spans) == 0 {
		return nil
	}
	return &Stages{spans: spans, names: names, ramps: ramps, acc: make([]stageAcc, len(spans))}
}

// StagesOf is NewStages for the run of a result file, from the plan in its header; nil when the
// plan has no stages or cannot be read (OfFile says so).
func StagesOf(f *result.File, ramps bool) *Stages {
	var p plan.Plan
	if len(f.Header.Config) == 0 || json.Unmarshal(f.Header.Config, &p) != nil {
		return nil
	}
	return NewStages(p.Load, f.Header.Endpoints, ramps)
}

// Add adds a measured interval to the stage it is assigned to (see StageOf). Intervals of no
// length (the warm-up's) are skipped.
func (s *Stages) Add(iv *result.Interval) {
	if s == nil || iv.End <= iv.Start {
		return
	}
	i := spanOf(s.spans, iv.Start, iv.End)
	if i < 0 || s.spans[i].ramp() && !s.ramps {
		return
	}
	a := &s.acc[i]
	a.intervals++
	a.measured += iv.End - iv.Start
	for len(a.endpoints) < len(iv.Endpoints) {
		a.endpoints = append(a.endpoints, stageCounts{})
	}
	for k, c := range iv.Endpoints {
		a.total.add(c)
		a.endpoints[k].add(c)
	}
}

// Results returns a row per stage that was measured (ramps only when asked for), in the order of
// the stages; nil for a nil Stages.
func (s *Stages) Results() []Stage {
	if s == nil {
		return nil
	}
	var out []Stage
	for i, sp := range s.spans {
		a := &s.acc[i]
		if a.intervals == 0 {
			continue
		}
		st := Stage{
			Index: sp.index, Ramp: sp.ramp(), From: sp.from, To: sp.to,
			StartS: sp.start.Seconds(), EndS: sp.end.Seconds(),
			Intervals: a.intervals, MeasuredS: a.measured.Seconds(),
			StageFigures: a.total.figures("", a.measured),
		}
		if len(a.endpoints) > 1 {
			for k := range a.endpoints {
				name := ""
				if k < len(s.names) {
					name = s.names[k]
				}
				st.Endpoints = append(st.Endpoints, a.endpoints[k].figures(name, a.measured))
			}
		}
		out = append(out, st)
	}
	return out
}

// HasRamps reports whether l has a stage whose level moves (see Stage.Ramp).
func HasRamps(l plan.Load) bool {
	for _, s := range stageSpans(l) {
		if s.ramp() {
			return true
		}
	}
	return false
}
