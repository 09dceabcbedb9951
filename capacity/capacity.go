// Package capacity searches the highest arrival rate at which a service still meets a
// service-level objective: it runs a plan's requests at one constant rate after another — rising
// geometrically until a step fails, then bisecting between the last rate that passed and the first
// that failed — each step with a warm-up outside its figures and a measured window long enough for
// the percentiles it is judged on. A step that collapses (most requests failing, or latency far
// past the objective) is cut short. One step decides nothing at the edge: the search then repeats
// the rates at both ends of its range until each end has Confirmations runs that all agree, and
// answers with the range between them. It is built on engine: each step is what
// `rpcbench run --rate R` would run.
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
	"github.com/rpcbench/rpcbench/runner"
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
	DefaultMaxSteps  = 40
	// DefaultConfirmations is how many runs at one rate must all pass (or all fail) for the
	// rate to end the answer's range.
	DefaultConfirmations = 3
	// maxLengthening bounds how many times Step a step is lengthened to hold those answers.
	maxLengthening = 10
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
	// Step is the measured length of each step; default DefaultStep.
	Step time.Duration
	// Warmup is sent first, at the step's rate, outside its figures; nil: DefaultWarmup, a zero:
	// none (plan.Wait makes one).
	Warmup *time.Duration
	// MaxSteps bounds the number of steps, repeats included; default DefaultMaxSteps.
	MaxSteps int
	// Confirmations is how many runs at one rate must all pass for it to be the answer's lower
	// end (the max sustainable rate), or all fail for it to be its upper end; default
	// DefaultConfirmations. 1: a single step decides.
	Confirmations int
	// Files reads the files the plan names (engine.WithFiles); nil: the operating system's.
	Files fs.FS
	// Version is the tool version recorded in each step's summary.
	Version string
	// ShowSecrets keeps the secrets of the plan in the steps' summaries; otherwise they are
	// REDACTED (plan.Plan.Shown), as in every report of rpcbench.
	ShowSecrets bool
	// OnStep, when set, is called after each step, in order (e.g. for a progress line).
	OnStep func(Step)
	// Prepared is the search's plan as Prepare made it, when it was prepared before (to tell its
	// mistakes early); nil: Search prepares it.
	Prepared *plan.Prepared
	// Options, when set, gives each step's run its outputs and what it watches (runner.Options;
	// its Version, ShowSecrets and Cut are this Config's). Called before each step.
	Options func() runner.Options
	// OutputFailed, when set, is told of a step's outputs that failed at its end (the figures
	// stand); nil: a note of the step's summary.
	OutputFailed func(error)
	// Cut, when closed, cuts the step in progress at once (engine.WithCut).
	Cut <-chan struct{}
	// Run runs one step's plan, prepared, calling observe with each of its ticks (as
	// engine.WithObserver does), and returns its summary; nil: runner.Run with Options. observe
	// judges whether the step collapses and, if it does, cancels ctx. Tests replace Run with a
	// model of a service.
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
	// Phase is "rise" for the geometric steps, "bisect" for the steps between and "confirm" for
	// the repeats of a rate already run.
	Phase string `json:"phase"`
	// FewSamples is true when the step had fewer answers than the latency percentiles it is
	// judged on need (see Config.Step): it passed or failed on them, but confirms nothing.
	FewSamples bool `json:"few_samples,omitempty"`
	// Answers is how many answers the step had; Needed how many its latency percentiles need
	// (0: it is judged on no percentile).
	Answers uint64 `json:"answers"`
	Needed  uint64 `json:"needed,omitempty"`
	// Interrupted is true for a step that an interruption cut short: its figures are kept, but
	// it is not judged.
	Interrupted bool `json:"interrupted,omitempty"`
}

// Result is the outcome of a search.
type Result struct {
	// Steps are the steps in the order they ran.
	Steps []Step
	// Best is the max sustainable rate: the highest rate of which Confirmations runs all passed
	// (with enough samples), below High; nil when no rate was so confirmed. Of its runs, Best is
	// the one with the highest p99.
	Best *Step
	// High is the lowest rate of which Confirmations runs all failed, above Best; 0 when none
	// was so confirmed. The capacity lies between Best's rate and High.
	High float64
	// FirstFail is the lowest rate at which a run failed, 0 when none did.
	FirstFail float64
	// AtMax is true when Max is the confirmed Best: the capacity may be higher.
	AtMax bool
	// Confirmations is the runs each end of the range needed (Config.Confirmations).
	Confirmations int
	// Interrupted is true when ctx ended the search: the steps so far are kept.
	Interrupted bool
	// Err says why a step could not run (an output that could not start, a server gone before
	// the step's pre-flight); the search stopped there, the steps before it are kept.
	Err error
}

// Search runs the search of c. It returns an error when the search cannot start (no SLO, an
// invalid plan, a file that cannot be read, a failing setup phase); what happens at each rate is
// data in the Result, and an interrupted search returns the steps it finished.
func Search(ctx context.Context, c Config) (*Result, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	c = c.withDefaults()
	prep := c.Prepared
	if prep == nil {
		var err error
		if prep, err = c.prepare(); err != nil {
			return nil, err
		}
	}
	if c.Run == nil { // what the first step's pre-flight would find, told before any step
		if err := runner.Preflight(ctx, prep); err != nil {
			return nil, err
		}
	}
	if prep.Setup != nil && c.Run == nil {
		var cut []engine.Option
		if c.Cut != nil {
			cut = append(cut, engine.WithCut(c.Cut))
		}
		if _, err := engine.Setup(ctx, prep, cut...); err != nil {
			return nil, err
		}
	}
	s := &search{c: c, prep: prep, res: &Result{Confirmations: c.Confirmations}, need: answersNeeded(c.SLO)}
	s.run(ctx)
	s.conclude()
	return s.res, nil
}

// Prepare prepares the plan of c's search (plan.Prepare) — its requests, at the first step's
// load — without sending anything; pass it back in Config.Prepared for Search to use.
func (c Config) Prepare() (*plan.Prepared, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return c.withDefaults().prepare()
}

func (c Config) prepare() (*plan.Prepared, error) {
	base := c.Plan
	base.Load = plan.Load{Model: plan.Open, Rate: c.Start, Duration: c.Step, Warmup: *c.Warmup,
		Connections: c.Plan.Load.Connections, Interval: c.Plan.Load.Interval, Grace: plan.Wait(100 * time.Millisecond)}
	return plan.Prepare(base, c.Files)
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
	if c.Warmup == nil {
		c.Warmup = plan.Wait(DefaultWarmup)
	}
	if c.MaxSteps == 0 {
		c.MaxSteps = DefaultMaxSteps
	}
	if c.Confirmations == 0 {
		c.Confirmations = DefaultConfirmations
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
	if c.Confirmations < 1 || c.Confirmations > 20 {
		bad("confirmations %d: want 1 to 20 runs", c.Confirmations)
	}
	return errors.Join(errs...)
}

// search is the state of one Search.
type search struct {
	c    Config
	prep *plan.Prepared
	res  *Result
	need uint64 // answers a step needs for the SLO's latency percentiles (answersNeeded)
}

// run rises from Start by Factor until a step fails (or Max passes), then bisects, then settles
// the two ends of the range.
func (s *search) run(ctx context.Context) {
	lo, hi, ok := s.bisect(ctx)
	if ok && lo > 0 {
		s.settle(ctx, lo, hi)
	}
}

// bisect is the search by single steps: it returns the highest rate that passed and the lowest
// that failed (0: none), ok false when the search must stop.
func (s *search) bisect(ctx context.Context) (lo, hi float64, ok bool) {
	rate := s.c.Start
	for {
		st, ok := s.step(ctx, rate, "rise")
		if !ok {
			return lo, hi, false
		}
		if !st.Pass {
			hi = rate
			break
		}
		lo = rate
		if rate >= s.c.Max {
			return lo, 0, true
		}
		rate = math.Min(rate*s.c.Factor, s.c.Max)
	}
	if lo == 0 { // the first step failed: fall by Factor until one passes
		for rate = hi / s.c.Factor; rate >= 0.01; rate /= s.c.Factor {
			st, ok := s.step(ctx, rate, "rise")
			if !ok {
				return lo, hi, false
			}
			if st.Pass {
				lo = rate
				break
			}
			hi = rate
		}
		if lo == 0 {
			return 0, hi, true
		}
	}
	for hi/lo-1 > s.c.Precision {
		mid := math.Sqrt(lo * hi) // the geometric middle: rates span orders of magnitude
		st, ok := s.step(ctx, mid, "bisect")
		if !ok {
			return lo, hi, false
		}
		if st.Pass {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo, hi, true
}

// settle repeats the ends of the range found by single steps, lo (passed) and hi (failed; 0:
// none, lo is Max), until each has Confirmations runs that agree. An end whose runs disagree is
// unsettled and inside the range: the lower end moves down, the upper end up, by a small step
// (below, above). While the
// settled ends are further apart than Precision, it bisects between them again — unless the
// middle was run already, its verdicts mixed.
func (s *search) settle(ctx context.Context, lo, hi float64) {
	for {
		var ok bool
		if lo, ok = s.end(ctx, lo, true, s.below); !ok {
			return
		}
		if hi, ok = s.end(ctx, hi, false, s.above); !ok {
			return
		}
		if lo == 0 || hi == 0 || hi/lo-1 <= s.c.Precision {
			return
		}
		mid := math.Sqrt(lo * hi)
		if _, runs := s.runsAt(mid, true); runs > 0 {
			return
		}
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

// end settles one end of the range: rate, confirmed (its runs all pass, or all fail), or moved by
// next while its runs disagree; 0 when no rate is left. ok is false when the search must stop.
func (s *search) end(ctx context.Context, rate float64, pass bool, next func(float64) float64) (float64, bool) {
	for rate > 0 {
		all, ok := s.confirm(ctx, rate, pass)
		if !ok || all {
			return rate, ok
		}
		rate = next(rate)
	}
	return 0, true
}

// confirm runs rate until it has Confirmations runs, or one of them disagrees with pass: all is
// true when every run agreed; ok is false when the search must stop.
func (s *search) confirm(ctx context.Context, rate float64, pass bool) (all, ok bool) {
	for {
		agree, runs := s.runsAt(rate, pass)
		switch {
		case agree < runs:
			return false, true
		case runs >= s.c.Confirmations:
			return true, true
		}
		phase := "confirm"
		if runs == 0 {
			phase = "rise"
		}
		if _, ok := s.step(ctx, rate, phase); !ok {
			return false, false
		}
	}
}

// runsAt counts the judged runs at rate, and those of them that confirm pass (a pass, or a
// failure): a run with too few answers confirms nothing, unless it collapsed.
func (s *search) runsAt(rate float64, pass bool) (agree, runs int) {
	for _, st := range s.res.Steps {
		if st.Rate != rate || st.Interrupted {
			continue
		}
		runs++
		if st.Pass == pass && (st.Collapsed || !st.FewSamples) {
			agree++
		}
	}
	return agree, runs
}

// below is the next rate under rate for the lower end: the highest run below it that passed,
// if it is within a step of 2·Precision, else a new rate that step below; 0 when the rate would
// be too low to hold the answers a step needs.
func (s *search) below(rate float64) float64 {
	next := rate / (1 + 2*s.c.Precision)
	for _, st := range s.res.Steps {
		if st.Pass && st.Rate < rate && st.Rate > next {
			next = st.Rate
		}
	}
	if next < 0.01 || float64(s.need) > next*maxLengthening*s.c.Step.Seconds() {
		return 0
	}
	return next
}

// above is the next rate over rate for the upper end: the lowest run above it that failed, if it
// is within a step of 2·Precision, else a new rate that step above, up to Max; 0 above Max.
func (s *search) above(rate float64) float64 {
	if rate >= s.c.Max {
		return 0
	}
	next := math.Min(rate*(1+2*s.c.Precision), s.c.Max)
	for _, st := range s.res.Steps {
		if !st.Pass && !st.Interrupted && st.Rate > rate && st.Rate < next {
			next = st.Rate
		}
	}
	return next
}

// conclude sets the result's range from the runs alone: High is the lowest rate whose
// Confirmations runs all failed, Best the highest below it whose runs all passed.
func (s *search) conclude() {
	r, k := s.res, s.c.Confirmations
	settled := func(rate float64, pass bool) bool {
		agree, runs := s.runsAt(rate, pass)
		return runs >= k && agree == runs
	}
	for _, st := range r.Steps {
		if !st.Interrupted && (r.High == 0 || st.Rate < r.High) && settled(st.Rate, false) {
			r.High = st.Rate
		}
	}
	for i := range r.Steps {
		st := &r.Steps[i]
		if st.Interrupted || r.High > 0 && st.Rate >= r.High || !settled(st.Rate, true) {
			continue
		}
		if r.Best == nil || st.Rate > r.Best.Rate || st.Rate == r.Best.Rate && st.Summary.Latency.P99 > r.Best.Summary.Latency.P99 {
			r.Best = st
		}
	}
	r.AtMax = r.Best != nil && r.High == 0 && r.Best.Rate >= s.c.Max
}

// step runs one rate and records it; ok is false when the search must stop (interrupted, or out
// of steps).
func (s *search) step(ctx context.Context, rate float64, phase string) (Step, bool) {
	if len(s.res.Steps) >= s.c.MaxSteps || ctx.Err() != nil {
		s.res.Interrupted = ctx.Err() != nil
		return Step{}, false
	}
	p := *s.prep
	p.Setup = nil // sent once, before the first step
	p.Plan.Load.Rate = rate
	p.Plan.Load.Duration = s.length(rate)
	sum, collapsed, err := s.runStep(ctx, &p)
	if err != nil {
		if ctx.Err() != nil {
			s.res.Interrupted = true
		} else {
			s.res.Err = err // the step could not run: the search stops, saying why
		}
		return Step{}, false
	}
	st := Step{Rate: rate, Summary: sum, Collapsed: collapsed, Phase: phase, Answers: sum.Requests.Completed, Needed: s.need}
	st.FewSamples = !collapsed && st.Answers < s.need
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

// percentileAnswers is how many answers a step needs for each latency percentile it is judged on:
// ten above the percentile (p99: 1,000 answers, p50: 20).
var percentileAnswers = map[string]uint64{"p50": 20, "p75": 40, "p90": 100, "p95": 200, "p99": 1000, "p999": 10000, "p9999": 100000}

// answersNeeded is the most answers the latency percentiles of slo need (percentileAnswers);
// 0 when it has none.
func answersNeeded(slo plan.SLO) uint64 {
	var n uint64
	for _, o := range slo {
		n = max(n, percentileAnswers[o.Metric])
	}
	return n
}

// length is the measured length of a step at rate: Step, or longer, up to maxLengthening times
// Step, for the step to hold the answers its percentiles need.
func (s *search) length(rate float64) time.Duration {
	d := time.Duration(math.Ceil(float64(s.need) / rate * float64(time.Second)))
	return min(max(d, s.c.Step), maxLengthening*s.c.Step)
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

// runEngine is the Run of a Config that has none: the runner against the service, with the step's
// Options. An output that failed at the end is a note of the step's summary: its figures stand.
func (s *search) runEngine(ctx context.Context, prep *plan.Prepared, observe engine.Observer) (*summary.Summary, error) {
	var o runner.Options
	if s.c.Options != nil {
		o = s.c.Options()
	}
	o.Version, o.ShowSecrets, o.Cut = s.c.Version, s.c.ShowSecrets, s.c.Cut
	o.Engine = append(o.Engine, engine.WithObserver(observe))
	run, err := runner.Run(ctx, prep, o)
	if err != nil {
		return nil, err
	}
	switch {
	case run.OutputErr != nil && s.c.OutputFailed != nil:
		s.c.OutputFailed(run.OutputErr)
	case run.OutputErr != nil:
		run.Summary.Notes = append(run.Summary.Notes, "an output of this step failed: "+run.OutputErr.Error())
	}
	return run.Summary, nil
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
