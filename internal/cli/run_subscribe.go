package cli

import (
	"errors"
	"flag"
	"slices"
	"strings"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/plan/planfile"
	"github.com/rpcbench/rpcbench/report"
)

// subscribeFlags are the flags of `run` that open JSON-RPC subscriptions during the run, beside
// its calls or alone.
type subscribeFlags struct {
	call      string
	count     int
	rate      float64
	reference string
}

func (f *subscribeFlags) define(fs *flag.FlagSet) {
	fs.StringVar(&f.call, "subscribe", "", "open JSON-RPC subscriptions over WebSocket during the run, e.g. 'eth_subscribe [\"newHeads\"]' (`METHOD PARAMS`), each timed message by message; alone, or beside --jsonrpc calls")
	fs.IntVar(&f.count, "subscriptions", 0, "with --subscribe: `N` subscriptions, each on its own connection (default 1)")
	fs.StringVar(&f.reference, "subscribe-reference", "", "with --subscribe of newHeads: one more connection to `URL` (ws://) subscribes to newHeads, and each head the subscriptions receive is timed behind its receipt there")
	fs.Float64Var(&f.rate, "subscribe-rate", 0, "with --subscribe: open the subscriptions at `R` per second until --subscriptions are open (open model); default: all at once, held (closed)")
}

// apply puts the subscriptions into p, whose endpoint is set.
func (f *subscribeFlags) apply(p *plan.Plan) error {
	if f.call == "" {
		if f.count != 0 || f.rate != 0 || f.reference != "" {
			return usagef("--subscriptions, --subscribe-rate and --subscribe-reference go with --subscribe 'METHOD PARAMS'")
		}
		return nil
	}
	method, params, err := plan.ParseSubscribe(f.call)
	if err != nil {
		return usagef("--subscribe: %v", err)
	}
	s := &plan.Subscribe{Method: method, Params: params, Count: f.count, Rate: f.rate, Reference: f.reference}
	if f.reference != "" {
		if err := plan.CheckReference(f.reference, params); err != nil {
			return usagef("--subscribe-reference: %v", err)
		}
	}
	switch {
	case f.count < 0:
		return usagef("--subscriptions %d: want 1 or more", f.count)
	case f.count == 0:
		s.Count = 1
	}
	if f.rate < 0 {
		return usagef("--subscribe-rate %v: want subscriptions per second above 0, or none (all at once)", f.rate)
	}
	p.Subscribe = s
	return checkSubscribeURL(*p, "--subscribe")
}

// checkSubscribeURL checks that p's subscriptions have a WebSocket URL to go to; what names
// where they were asked for: the flag --subscribe, the plan file's key subscribe.
func checkSubscribeURL(p plan.Plan, what string) error {
	if len(p.Endpoints) != 1 {
		return usagef("%s: subscriptions go to one URL; the plan has %d endpoints", what, len(p.Endpoints))
	}
	if u := p.Endpoints[0].URL; !strings.HasPrefix(u, "ws://") && !strings.HasPrefix(u, "wss://") {
		return usagef("%s: subscriptions need a WebSocket URL (ws:// or wss://); got %q", what, plan.RedactURL(u))
	}
	return nil
}

// aloneFlags are the flags that mean something to a run of subscriptions alone.
var aloneFlags = []string{"subscribe", "subscriptions", "subscribe-rate", "subscribe-reference", "duration", "format", "report-file", "out", "live",
	"interval", "show-secrets", "quiet", "header", "H", "connect-timeout", "html"}

// checkSubscriptions checks p's subscriptions, if any: a WebSocket URL to go to and, for a run of
// subscriptions and no calls (plan.Plan.SubscriptionsOnly; execute runs it as any other), only the
// flags that mean something to it.
func (f *runFlags) checkSubscriptions(fs *flag.FlagSet, p plan.Plan) error {
	if p.Subscribe == nil {
		return nil
	}
	if err := checkSubscribeURL(p, "--subscribe"); err != nil {
		return err
	}
	if !p.SubscriptionsOnly() {
		return nil
	}
	var other []string
	fs.Visit(func(fl *flag.Flag) {
		if !slices.Contains(aloneFlags, fl.Name) && fl.Name != "plan" && fl.Name != "scenario" {
			other = append(other, flagName(fl.Name))
		}
	})
	if len(other) > 0 {
		var takes []string
		for _, n := range aloneFlags[1:] {
			takes = append(takes, flagName(n))
		}
		return usagef("%s: a run of --subscribe alone sends no calls and takes only %s; for calls beside the subscriptions give --jsonrpc METHOD",
			strings.Join(other, ", "), strings.Join(takes, ", "))
	}
	if !slices.Contains(report.AloneFormats, f.format) {
		return usagef("--format %s: a run of --subscribe alone is reported as text, json, markdown or html", f.format)
	}
	if f.reportFile != "" && !slices.Contains(report.AloneFormats, report.FormatForPath(f.reportFile)) {
		return usagef("--report-file %s: a run of --subscribe alone is reported as text, json (.json), markdown (.md) or html (.html)", f.reportFile)
	}
	return nil
}

// benchSubscriptions checks the subscribe: of a plan's scenarios against each target: bench runs
// them beside a load scenario's calls, to the target's WebSocket URL, and reports them side by
// side as it does the calls.
func benchSubscriptions(b *plan.Bench) error {
	var errs []error
	for _, sc := range b.Scenarios {
		if sc.IsCommand() || sc.Plan.Subscribe == nil {
			continue
		}
		for _, t := range b.Targets {
			p := sc.PlanFor(t, 0, b.Dir)
			err := checkSubscribeURL(p, "subscribe")
			switch {
			case err != nil:
			case sc.Capacity != nil:
				err = usagef("subscribe: bench runs subscriptions in load scenarios, not in a capacity search")
			case p.SubscriptionsOnly():
				err = usagef("subscribe: bench runs subscriptions beside the scenario's calls; give it jsonrpc: calls, or run the subscriptions alone with rpcbench run --plan %s --scenario %s", b.File, sc.Name)
			}
			if err != nil {
				errs = append(errs, planfile.ScenarioError(b, sc, t, err))
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return usageError{err.Error()}
	}
	return nil
}

// flagName is a flag as typed: -H, --header.
func flagName(n string) string {
	if len(n) == 1 {
		return "-" + n
	}
	return "--" + n
}
