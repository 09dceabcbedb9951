package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/plan/planfile"
	"github.com/rpcbench/rpcbench/report"
	"github.com/rpcbench/rpcbench/subscribe"
	"github.com/rpcbench/rpcbench/summary"
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

// subscriptionsAlone reports whether p has subscriptions and no calls: a run of subscriptions
// only, which runSubscriptionsAlone does without the engine.
func subscriptionsAlone(p plan.Plan) bool {
	return p.Subscribe != nil && !p.JSONRPC.On() && p.Traffic.Targets == "" && len(p.Endpoints) == 1 && len(p.Endpoints[0].Body) == 0
}

// aloneFlags are the flags that mean something to a run of subscriptions alone.
var aloneFlags = []string{"subscribe", "subscriptions", "subscribe-rate", "subscribe-reference", "duration", "format", "report-file", "quiet", "header", "H", "connect-timeout"}

// runSubscriptionsAlone checks p's subscriptions, if any; when p has no calls, it runs them for
// the run's duration and reports them (done=true). done=false: p has no subscriptions, or calls
// too (execute runs both).
func (f *runFlags) runSubscriptionsAlone(ctx context.Context, e *env, fs *flag.FlagSet, p plan.Plan) (code int, done bool) {
	if p.Subscribe == nil {
		return 0, false
	}
	if err := checkSubscribeURL(p, "--subscribe"); err != nil {
		return fail(e, "run", err, ExitUsage), true
	}
	if !subscriptionsAlone(p) {
		return 0, false
	}
	var other []string
	fs.Visit(func(fl *flag.Flag) {
		if !slices.Contains(aloneFlags, fl.Name) {
			other = append(other, flagName(fl.Name))
		}
	})
	if len(other) > 0 {
		var takes []string
		for _, n := range aloneFlags[1:] {
			takes = append(takes, flagName(n))
		}
		return fail(e, "run", usagef("%s: a run of --subscribe alone sends no calls and takes only %s; for calls beside the subscriptions give --jsonrpc METHOD",
			strings.Join(other, ", "), strings.Join(takes, ", ")), ExitUsage), true
	}
	formats := []string{"text", "json", "markdown"}
	if !slices.Contains(formats, f.format) {
		return fail(e, "run", usagef("--format %s: a run of --subscribe alone is reported as text, json or markdown", f.format), ExitUsage), true
	}
	if f.reportFile != "" && !slices.Contains(formats, report.FormatForPath(f.reportFile)) {
		return fail(e, "run", usagef("--report-file %s: a run of --subscribe alone is reported as text, json (.json) or markdown (.md)", f.reportFile), ExitUsage), true
	}
	hold := p.Load.Duration
	if hold == 0 {
		hold = plan.DefaultDuration
	}
	started := time.Now()
	res, err := subscribe.Run(ctx, subscribe.ConfigOf(p, hold))
	if err != nil {
		return fail(e, "run", usagef("--subscribe: %v", err), ExitUsage), true
	}
	rep := subscriptionsReport{
		Schema: summary.Schema, Tool: summary.Tool{Name: "rpcbench", Version: Version()}, Target: plan.ShownURL(p.Endpoints[0].URL, f.output.showSecrets),
		StartedAt: started.UTC(), DurationS: time.Since(started).Seconds(), Subscriptions: res.Summary(),
	}
	code = ExitOK
	if err := rep.write(e.stdout, f.format); err != nil {
		fmt.Fprintf(e.stderr, "rpcbench run: writing the report: %v\n", err)
		code = ExitCannotStart
	}
	if f.reportFile != "" {
		if err := writeOutput(f.reportFile, func(w io.Writer) error { return rep.write(w, report.FormatForPath(f.reportFile)) }); err != nil {
			fmt.Fprintf(e.stderr, "rpcbench run: --report-file: %v\n", err)
			code = ExitCannotStart
		}
	}
	if ctx.Err() != nil {
		fmt.Fprintln(e.stderr, "rpcbench run: interrupted; the report covers what was done until then")
		return ExitInterrupted, true
	}
	if code == ExitOK && res.Opened == 0 {
		fmt.Fprintf(e.stderr, "rpcbench run: no subscription opened (%d asked, %d failed)\n", res.Asked, res.Failed)
		code = ExitSLO
	}
	return code, true
}

// subscriptionsReport is the report of a run of subscriptions alone.
type subscriptionsReport struct {
	Schema        string                 `json:"schema"`
	Tool          summary.Tool           `json:"tool"`
	Target        string                 `json:"target"`
	StartedAt     time.Time              `json:"started_at"`
	DurationS     float64                `json:"duration_s"`
	Subscriptions *summary.Subscriptions `json:"subscriptions"`
}

func (r *subscriptionsReport) write(w io.Writer, format string) error {
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	b := &strings.Builder{}
	if format == "markdown" {
		fmt.Fprintf(b, "### rpcbench %s: `%s`\n\nsubscriptions alone, no calls, for %s\n", r.Tool.Version, r.Target, time.Duration(r.DurationS*float64(time.Second)).Round(time.Millisecond))
	} else {
		fmt.Fprintf(b, "rpcbench %s: %s, subscriptions alone (no calls), for %s\n", r.Tool.Version, r.Target, time.Duration(r.DurationS*float64(time.Second)).Round(time.Millisecond))
	}
	report.Subscriptions(b, &summary.Summary{Subscriptions: r.Subscriptions}, format)
	_, err := io.WriteString(w, b.String())
	return err
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
			case subscriptionsAlone(p):
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
