package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/rpcbench/rpcbench/capacity"
	"github.com/rpcbench/rpcbench/output"
	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/report"
	"github.com/rpcbench/rpcbench/runner"
	"github.com/rpcbench/rpcbench/summary"
)

func init() {
	register(command{name: "capacity", summary: "find the highest arrival rate that still meets an SLO", run: runCapacity})
	refusedFlags["capacity"] = capacityDecides
}

const capacityExamples = `  rpcbench capacity --slo 'p99<50ms,errors<1%' http://127.0.0.1:8080/
  rpcbench capacity --slo 'p99<20ms' --start 1000 --max 50000 --step 5s --step-warmup 1s http://127.0.0.1:8080/
  rpcbench capacity --slo 'p99<50ms' --format markdown --report-file capacity.md 'http://127.0.0.1:8080/v0/entity?id={{randInt 0 9999}}'
  rpcbench capacity --slo 'p99<50ms' --report-file capacity.html http://127.0.0.1:8080/   latency against rate: the knee
  rpcbench capacity --slo 'p99<100ms,errors<0.1%' --jsonrpc eth_blockNumber http://127.0.0.1:18545/
  rpcbench capacity --slo 'p99<50ms' --monitor-pid 4242 http://127.0.0.1:8080/   the target's CPU at each step and at the answer
  rpcbench capacity --slo 'p99<50ms' --confirm 5 http://127.0.0.1:8080/   each end of the range: 5 runs that agree`

// capacityDecides are the flags of run that capacity decides itself (its help leaves them out).
var capacityDecides = map[string]string{
	"rate": "--start and --max", "stages": "--start and --max", "model": "the open model", "duration": "--step",
	"requests": "--step", "warmup": "--step-warmup", "live": "--report-file", "html": "--report-file",
	"stage-ramps": "--start and --max", "segment": "one generator", "segment-index": "one generator",
	"segment-sequence": "one generator", "start-at": "one generator, started now",
}

func runCapacity(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "capacity", "capacity [flags] URL\n\nFind the highest arrival rate at which the service still meets an SLO: constant-rate steps\nrising geometrically from --start until one fails, then bisecting, each with a warm-up outside\nits figures and long enough for the percentiles judged; a step that collapses is cut short.\nThen each end of the range is repeated until --confirm runs agree: the answer is the range\nbetween the highest rate whose runs all passed and the lowest whose runs all failed.\nThe request and --monitor-* flags are those of run.", capacityExamples)
	f := &runFlags{format: "text"}
	f.define(fs)
	f.live.define(fs)
	fs.Lookup("out").Usage = "send each step's series while it goes to a live output: prometheus-rw=URL, otlp=URL, otlp-grpc=HOST:PORT (repeatable); the report goes to --report-file"
	var (
		start     = rateFlag{v: capacity.DefaultStart}
		maxRate   = rateFlag{v: capacity.DefaultMax}
		factor    = capacity.DefaultFactor
		precision = capacity.DefaultPrecision
		step      = capacity.DefaultStep
		warm      = capacity.DefaultWarmup
		maxSteps  = capacity.DefaultMaxSteps
		confirm   = capacity.DefaultConfirmations
	)
	fs.Var(&start, "start", "first rate tried (`RATE`, default 100/s)")
	fs.Var(&maxRate, "max", "highest rate tried (`RATE`, default 1000000/s)")
	fs.Float64Var(&factor, "factor", factor, "ratio of one rising step's rate to the previous one's")
	fs.Float64Var(&precision, "precision", precision, "stop bisecting when the failing rate is within this share above the passing one")
	fs.Var(positiveDurationFlag{durationFlag{&step}}, "step", "measured length of each step")
	fs.Var(durationFlag{&warm}, "step-warmup", "warm-up of each step, at its rate, outside its figures (0: none)")
	fs.IntVar(&maxSteps, "max-steps", maxSteps, "most steps to run, repeats included")
	fs.IntVar(&confirm, "confirm", confirm, "runs at one rate that must all pass (or all fail) for it to end the answer's range (1: one step decides)")
	pos, code, done := parseArgs(e, fs, args)
	if done {
		return code
	}
	slo := f.slo // run's --slo: the objective each step must meet (required here)
	var err error
	fs.Visit(func(fl *flag.Flag) {
		if instead, ok := capacityDecides[fl.Name]; ok && err == nil {
			err = usagef("--%s: capacity chooses it; use %s", fl.Name, instead)
		}
	})
	switch {
	case err != nil:
	case len(slo) == 0:
		err = usagef("--slo: give the objective each rate must meet, e.g. --slo 'p99<50ms,errors<1%%'")
	case len(pos) != 1 && (len(pos) != 0 || !f.traffic.given()):
		err = usagef("want one URL, got %d arguments (or --targets, --endpoint)", len(pos))
	case confirm < 1 || confirm > 20:
		err = usagef("--confirm %d: want 1 to 20 runs", confirm)
	case !validCapacityFormat(f.format):
		err = usagef("--format %s: capacity writes %s", f.format, strings.Join(capacity.Formats, ", "))
	}
	if err != nil {
		return fail(e, "capacity", err, ExitUsage)
	}
	files, live, err := f.live.outputs(f.output.outs, e.cut, Version())
	if err == nil && len(files) > 0 {
		err = usagef("--out %s: capacity writes no result file; use --report-file, or --out TYPE=URL for a live output (TYPE one of %s)", files[0], strings.Join(liveTypes, ", "))
	}
	if err != nil {
		return fail(e, "capacity", err, ExitUsage)
	}
	if f.reportFile != "" {
		if err := checkOutput("--report-file", f.reportFile); err != nil {
			return fail(e, "capacity", err, ExitUsage)
		}
	}
	p, err := f.plan(strings.Join(pos, ""))
	f.h3.say(e, "capacity", p.Protocol)
	if err != nil {
		return fail(e, "capacity", err, ExitUsage)
	}
	p.Load = plan.Load{Connections: f.conns, Interval: f.interval}
	cfg := capacity.Config{
		Plan: p, SLO: slo, Start: start.v, Max: maxRate.v, Factor: factor, Precision: precision,
		Step: step, Warmup: plan.Wait(warm), MaxSteps: maxSteps, Confirmations: confirm, Files: plan.OSFiles(e.stdin), Version: Version(),
		ShowSecrets: f.output.showSecrets,
	}
	if err := cfg.Validate(); err != nil {
		return fail(e, "capacity", usageError{strings.ReplaceAll(err.Error(), "capacity: ", "")}, ExitUsage)
	}
	// prepared once, here: bad files and plans are usage errors, named by flag
	if cfg.Prepared, err = cfg.Prepare(); err != nil {
		return fail(e, "capacity", prepareError(err), ExitUsage)
	}
	// each step is watched as run watches its run: the sampling starts as the step does, past
	// its warm-up, and what it saw goes into the step's summary
	watch, err := f.monitor.prepare(f.output.showSecrets)
	if err != nil {
		return fail(e, "capacity", err, ExitUsage)
	}
	// the steps' live series share one run_id, the search's start, each labelled with its step
	runID, steps := output.RunID(time.Now()), 0
	cfg.Options = func() runner.Options {
		steps++
		notes := prefixed{w: e.stderr, prefix: fmt.Sprintf("rpcbench capacity: step %d: ", steps)}
		return runner.Options{Watch: watch, Outputs: live.set(notes), Labels: map[string]string{"run_id": runID, "step": fmt.Sprintf("capacity %d", steps)}}
	}
	cfg.Cut = e.cut
	cfg.OnStep = func(st capacity.Step) {
		if !f.quiet {
			fmt.Fprintln(e.stderr, "rpcbench capacity:", st.Line())
		}
	}
	res, err := capacity.Search(ctx, cfg)
	if err != nil {
		var pe *runner.PreflightError
		switch {
		case ctx.Err() != nil:
			return fail(e, "capacity", err, ExitInterrupted)
		case errors.As(err, &pe) && !pe.Connect: // the plan asks what the server does not serve
			return fail(e, "capacity", usageError{err.Error()}, ExitUsage)
		}
		return fail(e, "capacity", err, ExitCannotStart)
	}
	target := summary.Target(p.Shown(f.output.showSecrets))
	code = ExitOK
	if err := capacity.Render(e.stdout, res, slo, target, f.format); err != nil {
		fmt.Fprintf(e.stderr, "rpcbench capacity: writing the report: %v\n", err)
		code = ExitCannotStart
	}
	if f.reportFile != "" {
		format := capacityFormatForPath(f.reportFile)
		if err := writeOutput(f.reportFile, func(w io.Writer) error { return capacity.Render(w, res, slo, target, format) }); err != nil {
			fmt.Fprintf(e.stderr, "rpcbench capacity: --report-file: %v\n", err)
			code = ExitCannotStart
		}
	}
	switch {
	case res.Interrupted:
		fmt.Fprintln(e.stderr, "rpcbench capacity: interrupted; the report covers the steps done until then")
		return ExitInterrupted
	case res.Err != nil:
		fmt.Fprintf(e.stderr, "rpcbench capacity: a step could not run, and the search stopped there: %v\n", res.Err)
		return ExitCannotStart
	case res.Best == nil && code == ExitOK:
		return ExitSLO
	}
	return code
}

func validCapacityFormat(f string) bool {
	for _, x := range capacity.Formats {
		if f == x {
			return true
		}
	}
	return false
}

// capacityFormatForPath is the format of a --report-file: json or markdown by extension, else text.
func capacityFormatForPath(path string) string {
	switch report.FormatForPath(path) {
	case "json":
		return "json"
	case "markdown":
		return "markdown"
	case "html":
		return "html"
	}
	return "text"
}
