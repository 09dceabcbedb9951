package runner

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/rpcbench/rpcbench/engine"
	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/subscribe"
	"github.com/rpcbench/rpcbench/summary"
)

// subscriptions is a plan's subscriptions running beside its calls.
type subscriptions struct {
	labels []string // of the parts, by the stages of the calls
	stages []int    // the stage each part is, 0 for the warm-up
	cancel context.CancelFunc
	done   chan struct{}
	res    *subscribe.Result
	err    error
}

// untilCancelled is the hold of subscriptions beside calls: they end when the calls end.
const untilCancelled = 100 * 365 * 24 * time.Hour

// startSubscriptions starts p's subscriptions, if it has some, beside the calls the runner sends, counting them in live as they go
// (a closed cut stops the wait for their unsubscribe answers);
// finish ends them. Nil when p has none.
func startSubscriptions(ctx context.Context, p plan.Plan, live *subscribe.Live, cut <-chan struct{}) *subscriptions {
	if p.Subscribe == nil {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	r := &subscriptions{cancel: cancel, done: make(chan struct{})}
	cfg := subscribe.ConfigOf(p, untilCancelled)
	cfg.Marks, r.labels, r.stages = subscribe.StageMarks(p.Load)
	cfg.Live, cfg.Cut = live, cut
	go func() {
		defer close(r.done)
		r.res, r.err = subscribe.Run(ctx, cfg)
	}()
	return r
}

// finish ends the subscriptions (the calls are over: they unsubscribe) and puts their figures
// into s.
func (r *subscriptions) finish(s *summary.Summary, warn func(string)) {
	if r == nil {
		return
	}
	r.cancel()
	<-r.done
	if r.err != nil {
		warn(fmt.Sprintf("--subscribe: %v", r.err))
		return
	}
	if s != nil {
		s.Subscriptions = r.res.Summary()
		for i := range s.Subscriptions.Parts {
			s.Subscriptions.Parts[i].Label, s.Subscriptions.Parts[i].Stage = r.labels[i], r.stages[i]
		}
	}
}

// runAlone runs the subscriptions of p, a plan of subscriptions and no calls
// (plan.Plan.SubscriptionsOnly), in place of the engine, for p's length (its warm-up and measured
// length; the default duration without one), counting them in live as they go. Every interval of
// p, and once more at the end (Final), each of ticks gets a tick with no requests in it. The
// Result has no requests: its trailer says when the run started, how long it lasted and whether
// it was interrupted (ctx ended or cut closed before the hold was over: a cut during the wait for
// the unsubscribe answers ends that wait, and the run, at once, but the hold was whole); finish puts the subscriptions' figures into the
// summary. The error is about the subscriptions' configuration only.
func runAlone(ctx context.Context, p plan.Plan, live *subscribe.Live, cut <-chan struct{}, ticks []engine.Observer) (*engine.Result, *subscriptions, error) {
	hold := p.Load.Warmup + p.Load.MeasuredLength()
	if hold <= 0 {
		hold = plan.DefaultDuration
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cutDone := make(chan struct{})
	go func() {
		defer close(cutDone)
		select {
		case <-cut: // a nil cut never closes
			cancel()
		case <-ctx.Done():
		}
	}()
	cfg := subscribe.ConfigOf(p, hold)
	cfg.Live, cfg.Cut = live, cut
	r := &subscriptions{cancel: cancel, done: make(chan struct{})}
	start := time.Now()
	go func() {
		defer close(r.done)
		r.res, r.err = subscribe.Run(ctx, cfg)
	}()
	tick := func(final bool) {
		el := time.Since(start)
		t := &engine.Tick{Interval: &result.Interval{Start: el, End: el}, Elapsed: el, Planned: hold, Final: final}
		for _, f := range ticks {
			f(t)
		}
	}
	every := time.NewTicker(p.Load.Interval)
	defer every.Stop()
	for running := true; running; {
		select {
		case <-every.C:
			tick(false)
		case <-r.done:
			running = false
		}
	}
	cancel()
	<-cutDone
	if r.err != nil {
		return nil, nil, r.err
	}
	tick(true)
	res := &engine.Result{Plan: p, Total: result.NewInterval(len(p.Endpoints))}
	res.MeasuredStart, res.Elapsed, res.Procs = start, time.Since(start), runtime.GOMAXPROCS(0)
	res.Interrupted = r.res.Interrupted
	return res, r, nil
}
