package output

import (
	"errors"
	"fmt"
	"time"

	"github.com/rpcbench/rpcbench/engine"
	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/summary"
)

// Run describes a run to its outputs as they start.
type Run struct {
	// Plan is the plan as it runs, defaults filled in, as the outputs show it: its secrets
	// redacted unless the user asked for them.
	Plan plan.Plan
	// Endpoints are the names of the plan's endpoints, in its order (an Interval's order).
	Endpoints []string
	// Command is the command line that started the run, redacted as Plan is; nil for a library run.
	Command []string
	// Labels name the run among others: scenario, target, step of a plan file's run; empty for one
	// run on its own.
	Labels map[string]string
	// Version is the tool's version.
	Version string
	// Started is when the outputs were started, a moment before the first request.
	Started time.Time
	// Subscriptions, when the run has JSON-RPC subscriptions beside its calls, counts them so far
	// (safe to call from Tick); nil without.
	Subscriptions func() summary.SubscriptionCounts
}

// Output receives one run as it goes. Start is called once before the first request; Tick at every
// interval of the run (warm-up ticks included, marked Warmup, and a last one marked Final), on the
// engine's collector goroutine — keep it quick, never block on the network; Stop once after the
// last tick with the run's result and its summary, complete with the watched resources. When the
// run could not start after Start, Stop gets nil for both: the output closes what it opened and
// keeps no file that holds no run.
//
// An Output serves one run; Start, Tick and Stop are not called concurrently with each other.
type Output interface {
	// Name says which output it is in messages: the flag that asked for it (--out), or a word.
	Name() string
	Start(r Run) error
	Tick(t *engine.Tick)
	Stop(res *engine.Result, s *summary.Summary) error
}

// RequestLogger is an Output that also receives every measured request (engine.RequestLog).
type RequestLogger interface {
	Output
	RequestLog() engine.RequestLog
}

// Set is the outputs of one run, started and stopped together.
type Set []Output

// Start starts every output in order. When one fails, those already started are stopped with nil
// (the run did not happen) and the error names the output that failed.
func (s Set) Start(r Run) error {
	for i, o := range s {
		if err := o.Start(r); err != nil {
			s[:i].Stop(nil, nil) //nolint:errcheck // the run did not happen; the first error is the one to tell
			return fmt.Errorf("%s: %w", o.Name(), err)
		}
	}
	return nil
}

// Options returns the engine options that feed the outputs: an observer per output, and the
// request log of those that keep one.
func (s Set) Options() []engine.Option {
	var opts []engine.Option
	for _, o := range s {
		opts = append(opts, engine.WithObserver(o.Tick))
		if l, ok := o.(RequestLogger); ok {
			opts = append(opts, engine.WithRequestLog(l.RequestLog()))
		}
	}
	return opts
}

// Stop stops every output in order, each even when another failed; the error joins the failures,
// each prefixed with its output's name.
func (s Set) Stop(res *engine.Result, sum *summary.Summary) error {
	var errs []error
	for _, o := range s {
		if err := o.Stop(res, sum); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", o.Name(), err))
		}
	}
	return errors.Join(errs...)
}
