// Package capacity searches the highest arrival rate at which a service still meets a
// service-level objective: it runs a plan's requests at one constant rate after another — rising
// geometrically until a step fails, then bisecting between the last rate that passed and the first
// that failed — each step with a warm-up outside its figures and a measured window, judged against
// the SLO. A step that collapses (most requests failing, or latency far past the objective) is cut
// short. It is built on engine: each step is what `rpcbench run --rate R` would run.
package capacity

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"time"

	"github.com/rpcbench/rpcbench/engine"
	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/summary"
)

// Defaults of the zero Config fields.
const (
	DefaultStart     = 100.0
	DefaultMax       = 1e6
	DefaultFactor    = 2.0
	DefaultPrecision = 0.05
	DefaultStep      = 10 * time.Second
	DefaultWarmup    = 2 * time.Second
	DefaultMaxSteps  = 30
	// collapseErrors is the share of failed requests in one interval that cuts a step short.
	collapseErrors = 0.5
	// collapseLatency is how many times the loosest latency objective an interval's p50 may reach
	// before the step is cut short.
	collapseLatency = 10.0
)

// Config says what to search.
type Config struct {
	// Plan gives the requests (endpoints, templates, calls, checks, files) and the HTTP settings;
	// its load is replaced at each step by an open-model rate. Its Load.Connections, when set,
	// caps the connections (and requests in flight) of each step.
	Plan plan.Plan
	// SLO is what a step must meet to pass. Required unless Judge is given.
	SLO plan.SLO
	// Judge, when set, decides in place of the SLO whether a step passed, and says why not (e.g.
	// calibration: did the generator keep up?).
	Judge func(*summary.Summary) (pass bool, why string)
	// Start is the first rate tried, per second; default DefaultStart.
	Start float64
	// Max is the highest rate tried; default DefaultMax. A service that meets the SLO at Max has
	// a capacity of at least Max.
	Max float64
	// Factor is the ratio of one rising step's rate to the previous one's; default 2.
	Factor float64
	// Precision ends the bisection when the failing rate is within this share above the passing
	// one (0.05: 5 %); default DefaultPrecision.
	Precision float64
	// Step is the measured length of each step; Warmup is sent first, at the step's rate, outside
	// its figures. Defaults DefaultStep and DefaultWarmup.
	Step, Warmup time.Duration
	// MaxSteps bounds the number of steps; default DefaultMaxSteps.
	MaxSteps int
	// Files reads the files the plan names (engine.WithFiles); nil: the operating system's.
	Files fs.FS
	// Version is the tool version recorded in each step's summary.
	Version string
	// ShowSecrets keeps the secrets of the plan in the steps' summaries; otherwise they are
	// REDACTED (plan.Plan.Shown), as in every report of rpcbench.
	ShowSecrets bool
	// OnStep, when set, is called after each step, in order (e.g. for a progress line).
	OnStep func(Step)
	// Run runs one step's plan, prepared, calling observe with each of its ticks (as
	// engine.WithObserver does), and returns its summary; nil: engine.RunPrepared. observe judges
	// whether the step collapses and, if it does, cancels ctx. Tests replace Run with a model of a
	// service.
	Run func(ctx context.Context, prep *plan.Prepared, observe engine.Observer) (*summary.Summary, error)
}

// Step is one rate tried.
type Step struct {
	// Rate is the intended arrival rate, per second.
	Rate float64 `json:"rate"`
	// Summary is the step's measured figures.
	Summary *summary.Summary `json:"-"`
	// SLO is the step judged against the objective; nil when Config.Judge judged it.
	SLO *summary.SLOResults `json:"slo"`
	// Why says why Config.Judge failed the step.
	Why string `json:"why,omitempty"`
	// Pass is true when the step met every objective.
	Pass bool `json:"pass"`
	// Collapsed is true when the step was cut short: most requests failing, or latency far past
	// the objective.
	Collapsed bool `json:"collapsed,omitempty"`
	// Phase is "rise" for the geometric steps and "bisect" for the steps between.
	Phase string `json:"phase"`
	// Interrupted is true for a step that an interruption cut short: its figures are kept, but
	// it is not judged.
	Interrupted bool `json:"interrupted,omitempty"`
}

// Result is the outcome of a search.
type Result struct {
	// Steps are the steps in the order they ran.
	Steps []Step
	// Best is the highest rate that passed, nil when none did (even the lowest rate tried failed).
	Best *Step
	// FirstFail is the lowest rate that failed, 0 when none did (the service met the SLO at Max).
	FirstFail float64
	// AtMax is true when the search stopped at Max with every step passing.
	AtMax bool
	// Interrupted is true when ctx ended the search: the steps so far are kept.
	Interrupted bool
}

// Search runs the search of c. It returns an error when the search cannot start (no SLO, an
// invalid plan, a file that cannot be read, a failing setup phase); what happens at each rate is
// data in the Result, and an interrupted search returns the steps it finished.
func Search(ctx context.Context, c Config) (*Result, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	c = c.withDefaults()
	base := c.Plan
	base.Load = plan.Load{Model: plan.Open, Rate: c.Start, Duration: c.Step, Warmup: c.Warmup,
		Connections: c.Plan.Load.Connections, Interval: c.Plan.Load.Interval, Grace: 100 * time.Millisecond}
	prep, err := plan.Prepare(base, c.Files)
	if err != nil {
		return nil, err
	}
	if prep.Setup != nil && c.Run == nil {
		if _, err := engine.Setup(ctx, prep); err != nil {
			return nil, err
		}
	}
	s := &search{c: c, prep: prep, res: &Result{}}
	s.run(ctx)
	for i := range s.res.Steps {
		if st := &s.res.Steps[i]; st.Pass && (s.res.Best == nil || st.Rate > s.res.Best.Rate) {
			s.res.Best = st
		}
	}
	return s.res, nil
}

func (c Config) withDefaults() Config {
	if c.Start == 0 {
		c.Start = DefaultStart
	}
	if c.Max == 0 {
		c.Max = DefaultMax
	}
	if c.Factor == 0 {
		c.Factor = DefaultFactor
	}
	if c.Precision == 0 {
		c.Precision = DefaultPrecision
	}
	if c.Step == 0 {
		c.Step = DefaultStep
	}
	if c.Warmup == 0 {
		c.Warmup = DefaultWarmup
	}
	if c.Warmup < 0 {
		c.Warmup = 0
	}
	if c.MaxSteps == 0 {
		c.MaxSteps = DefaultMaxSteps
	}
	return c
}

// Validate says what is wrong with c (its zero fields taking their defaults), or returns nil. It
// does not look at the plan: Search prepares it (plan.Prepare) and says what is wrong with it.
func (c Config) Validate() error {
	c = c.withDefaults()
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf("capacity: "+format, a...)) }
	if len(c.SLO) == 0 && c.Judge == nil {
		bad("no SLO: give the objective the rate must meet, e.g. p99<50ms,errors<1%%")
	}
	if !(c.Start > 0) || math.IsInf(c.Start, 0) {
		bad("start rate %v: want a rate above 0", c.Start)
	}
	if !(c.Max >= c.Start) || math.IsInf(c.Max, 0) {
		bad("max rate %v: want a rate at or above the start rate, %v", c.Max, c.Start)
	}
	if !(c.Factor > 1) || c.Factor > 100 {
		bad("factor %v: want a ratio above 1 and at most 100", c.Factor)
	}
	if !(c.Precision > 0) || c.Precision >= 1 {
		bad("precision %v: want a share above 0 and below 1 (e.g. 0.05)", c.Precision)
	}
	if c.Step < 10*time.Millisecond {
		bad("step %v: want at least 10ms", c.Step)
	}
	if c.MaxSteps < 1 {
		bad("max steps %d: want 1 or more", c.MaxSteps)
	}
	return errors.Join(errs...)
}

// search is the state of one Search.
type search struct {
	c    Config
	prep *plan.Prepared
	res  *Result
}

// run rises from Start by Factor until a step fails (or Max passes), then bisects.
func (s *search) run(ctx context.Context) {
	lo, hi := 0.0, 0.0 // highest passing, lowest failing rate; 0: none yet
	rate := s.c.Start
	for {
		st, ok := s.step(ctx, rate, "rise")
		if !ok {
			return
		}
		if !st.Pass {
			hi = rate
			break
		}
		lo = rate
		if rate >= s.c.Max {
			s.res.AtMax = true
			return
		}
		rate = math.Min(rate*s.c.Factor, s.c.Max)
	}
	if lo == 0 { // the first step failed: fall by Factor until one passes
		for rate = hi / s.c.Factor; rate >= 0.01; rate /= s.c.Factor {
			st, ok := s.step(ctx, rate, "rise")
			if !ok {
				return
			}
			if st.Pass {
				lo = rate
				break
			}
			hi = rate
		}
		if lo == 0 {
			return
		}
	}
	for hi/lo-1 > s.c.Precision {
		mid := math.Sqrt(lo * hi) // the geometric middle: rates span orders of magnitude
		st, ok := s.step(ctx, mid, "bisect")
		if !ok {
			return
		}
		if st.Pass {
			lo = mid
		} else {
			hi = mid
		}
	}
}

// step runs one rate and records it; ok is false when the search must stop (interrupted, or out
// of steps).
func (s *search) step(ctx context.Context, rate float64, phase string) (Step, bool) {
	if len(s.res.Steps) >= s.c.MaxSteps || ctx.Err() != nil {
		s.res.Interrupted = ctx.Err() != nil
		return Step{}, false
	}
	p := *s.prep
	p.Plan.Load.Rate = rate
	sum, collapsed, err := s.runStep(ctx, &p)
	if err != nil {
		s.res.Interrupted = true
		return Step{}, false
	}
	st := Step{Rate: rate, Summary: sum, Collapsed: collapsed, Phase: phase}
	pass := true
	if s.c.Judge != nil {
		pass, st.Why = s.c.Judge(sum)
	} else {
		st.SLO = summary.JudgeSLO(sum, s.c.SLO)
		pass = st.SLO.Pass
	}
	if ctx.Err() != nil { // interrupted in the step: keep what it measured, judge nothing by it
		st.Interrupted = true
		s.res.Steps = append(s.res.Steps, st)
		s.res.Interrupted = true
		return st, false
	}
	st.Pass = pass && !collapsed
	s.res.Steps = append(s.res.Steps, st)
	if !st.Pass && (s.res.FirstFail == 0 || rate < s.res.FirstFail) {
		s.res.FirstFail = rate
	}
	if s.c.OnStep != nil {
		s.c.OnStep(st)
	}
	return st, true
}

// runStep runs one step, cutting it short when it collapses.
func (s *search) runStep(ctx context.Context, prep *plan.Prepared) (*summary.Summary, bool, error) {
	run := s.c.Run
	if run == nil {
		run = s.runEngine
	}
	stepCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	collapsed := false
	limit := s.latencyLimit()
	watch := result.NewCounts()
	sum, err := run(stepCtx, prep, func(t *engine.Tick) {
		if t.Warmup || collapsed || t.Interval == nil {
			return
		}
		if collapses(t.Interval.TotalInto(watch), limit) {
			collapsed = true
			cancel()
		}
	})
	if err != nil {
		return nil, false, err
	}
	return sum, collapsed, nil
}

// runEngine is the Run of a Config that has none: the engine against the service.
func (s *search) runEngine(ctx context.Context, prep *plan.Prepared, observe engine.Observer) (*summary.Summary, error) {
	res, err := engine.RunPrepared(ctx, prep, engine.WithObserver(observe))
	if err != nil {
		return nil, err
	}
	return summary.New(summary.Run{Plan: res.Plan.Shown(s.c.ShowSecrets), Version: s.c.Version, Trailer: res.Trailer}, res.Total), nil
}

// collapses reports whether one interval's counts, c, cut its step short: more than collapseErrors
// of the requests that ended in it failed, or its median latency passed limit (0: no limit). Each
// request ends once, as ok or failed; an answer with a failing status is both Completed and failed,
// so Completed is not part of the share.
func collapses(c *result.Counts, limit time.Duration) bool {
	ended := c.OK + c.Failed()
	failing := ended > 10 && float64(c.Failed()) > collapseErrors*float64(ended)
	slow := limit > 0 && c.Latency.TotalCount() > 10 && time.Duration(c.Latency.ValueAtQuantile(50))*time.Microsecond > limit
	return failing || slow
}

// latencyLimit is collapseLatency times the loosest latency objective: an interval whose median
// passes it cannot end in a step that meets the objective. 0 when the SLO has no latency objective.
func (s *search) latencyLimit() time.Duration {
	loosest := 0.0
	for _, o := range s.c.SLO {
		if o.IsLatency() {
			loosest = math.Max(loosest, o.Threshold)
		}
	}
	return time.Duration(loosest * collapseLatency * float64(time.Millisecond))
}
