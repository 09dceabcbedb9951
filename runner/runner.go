package runner

import (
	"context"
	"time"

	"github.com/rpcbench/rpcbench/engine"
	"github.com/rpcbench/rpcbench/output"
	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/subscribe"
	"github.com/rpcbench/rpcbench/summary"
)

// Options say how a run is watched and where its figures go. The zero value runs the plan with no
// output and nothing watched, and reports it with its secrets redacted.
type Options struct {
	// Outputs receive the run as it goes (output.Output); they are started before the first
	// request, in order, and stopped after the last, in order.
	Outputs output.Set
	// Watch is what is watched besides the load (the target's processes, its metrics, the
	// generator); nil: nothing.
	Watch *Watching
	// Profile captures the target's profiles over the measured window; nil: none.
	Profile *Profiling
	// Profiler runs a profiler command around the measured window; nil: none.
	Profiler *ProfilerCommand
	// Cut, when closed, ends the run at once (engine.WithCut); the setup phase too.
	Cut <-chan struct{}
	// Engine are options of the measured run beyond the plan: a start time (engine.WithStartAt),
	// a transport checked before the run (engine.WithTransport), observers.
	Engine []engine.Option
	// Version is the tool's version, for the summary and the result file.
	Version string
	// ShowSecrets keeps the plan's secrets in the summary and the outputs; otherwise they are
	// redacted (plan.Plan.Shown).
	ShowSecrets bool
	// StageRamps puts the ramps of a load with stages among the per-stage figures.
	StageRamps bool
	// Command is the command line that started the run, as the result file keeps it.
	Command []string
	// Labels name the run among others (scenario, target, step) for the outputs.
	Labels map[string]string
	// OnSummary, when set, is given the run's result and its summary, complete, before the outputs
	// stop (so that a report on a terminal does not wait for an output flushing to a slow
	// receiver).
	OnSummary func(*engine.Result, *summary.Summary)
	// OnSetup, when set, is told that the setup phase succeeded, before the measured run starts.
	OnSetup func(engine.SetupResult)
	// Warn, when set, receives what went wrong without stopping the run: a profile that could not
	// be written.
	Warn func(string)
}

// Outcome is a run that was done.
type Outcome struct {
	// Result is what the engine measured.
	Result *engine.Result
	// Summary is the run's figures with everything watched folded in, the plan in it redacted
	// unless Options.ShowSecrets.
	Summary *summary.Summary
	// OutputErr joins the outputs that failed at the end, each error prefixed with the output's
	// name; the figures stand.
	OutputErr error
}

// SetupError is the error of a run whose setup phase failed: nothing was measured.
type SetupError struct{ Err error }

func (e *SetupError) Error() string { return e.Err.Error() }
func (e *SetupError) Unwrap() error { return e.Err }

// OutputError is the error of a run one of whose outputs could not start: nothing was sent.
type OutputError struct{ Err error }

func (e *OutputError) Error() string { return e.Err.Error() }
func (e *OutputError) Unwrap() error { return e.Err }

// Run runs prep end to end: a pre-flight where its transport has one (gRPC: the connection, the
// method and each static body checked before anything is sent; a *PreflightError), its setup
// phase (a *SetupError when it fails), the outputs started (an
// *OutputError when one cannot), the watchers started, the measured run, then the summary — its
// timeline, per-stage figures, watched resources and notes — and the outputs stopped with it. An
// interrupted run (ctx cancelled, Cut closed) is an Outcome whose Result says Interrupted: every
// output still receives what was measured. Any other error says the run could not start; the
// outputs are then stopped with nothing, and keep no file that holds no run. A plan's JSON-RPC
// subscriptions (plan.Subscribe) run beside its calls, timed per message, into the summary's
// Subscriptions; a plan of subscriptions and no calls (plan.Plan.SubscriptionsOnly) runs them
// alone for its length, through the same outputs, with a Result of no requests.
func Run(ctx context.Context, prep *plan.Prepared, o Options) (*Outcome, error) {
	np := prep.Plan
	warn := o.Warn
	if warn == nil {
		warn = func(string) {}
	}
	cut := []engine.Option{}
	if o.Cut != nil {
		cut = append(cut, engine.WithCut(o.Cut))
	}
	checked, closeTransport, err := preflight(ctx, prep)
	if err != nil {
		return nil, err
	}
	defer closeTransport()
	if prep.Setup != nil {
		sr, err := engine.Setup(ctx, prep, cut...)
		if err != nil {
			return nil, &SetupError{err}
		}
		if o.OnSetup != nil {
			o.OnSetup(sr)
		}
	}
	// the endpoints' names as every output shows them: a name made of a URL keeps no secret of it
	shown := np.Shown(o.ShowSecrets)
	names := make([]string, len(shown.Endpoints))
	for i, e := range shown.Endpoints {
		names[i] = e.Name
	}
	run := output.Run{Plan: shown, Endpoints: names, Command: o.Command, Labels: o.Labels, Version: o.Version, Started: time.Now()}
	var live *subscribe.Live
	if np.Subscribe != nil {
		live = &subscribe.Live{}
		run.Subscriptions = live.Counts
	}
	if err := o.Outputs.Start(run); err != nil {
		return nil, &OutputError{err}
	}
	var tl summary.Timeline
	stages := summary.NewStages(np.Load, names, o.StageRamps)
	opts := []engine.Option{engine.WithObserver(func(t *engine.Tick) { tl.Add(t.Interval, names); stages.Add(t.Interval) })}
	// the watch takes its last samples at the last tick before the outputs see that tick, so that
	// those that take samples (output.ResourceObserver) get them with it
	opts = append(opts, o.Watch.options()...)
	opts = append(opts, o.Outputs.Options()...)
	opts = append(opts, cut...)
	opts = append(opts, checked...)
	opts = append(opts, o.Engine...)
	var observers []output.ResourceObserver
	for _, out := range o.Outputs {
		if ro, ok := out.(output.ResourceObserver); ok {
			observers = append(observers, ro)
		}
	}
	o.Watch.start(np, observers)
	o.Profile.start(np)
	o.Profiler.start(np)
	var res *engine.Result
	var subs *subscriptions
	if np.SubscriptionsOnly() {
		ticks := []engine.Observer{o.Watch.end}
		for _, out := range o.Outputs {
			ticks = append(ticks, out.Tick)
		}
		res, subs, err = runAlone(ctx, np, live, o.Cut, ticks)
	} else {
		subs = startSubscriptions(ctx, np, live, o.Cut)
		res, err = engine.RunPrepared(ctx, prep, opts...)
	}
	if err != nil {
		subs.finish(nil, warn)
		o.Watch.stop(nil, time.Time{})
		o.Profile.stop(nil, warn)
		o.Profiler.stop(nil, warn)
		o.Outputs.Stop(nil, nil) //nolint:errcheck // the run did not happen: its error is the one to tell
		return nil, err
	}
	s := summary.New(summary.Run{Plan: res.Plan.Shown(o.ShowSecrets), Version: o.Version, Trailer: res.Trailer}, res.Total)
	s.SetTimeline(tl.Points)
	subs.finish(s, warn)
	s.Stages = stages.Results()
	o.Watch.stop(s, res.MeasuredStart)
	s.SetStageResources()
	o.Profile.stop(s, warn)
	o.Profiler.stop(s, warn)
	if o.OnSummary != nil {
		o.OnSummary(res, s)
	}
	return &Outcome{Result: res, Summary: s, OutputErr: o.Outputs.Stop(res, s)}, nil
}
