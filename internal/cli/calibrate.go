package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/rpcbench/rpcbench/capacity"
	"github.com/rpcbench/rpcbench/monitor"
	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/runner"
	"github.com/rpcbench/rpcbench/serve/lab"
	"github.com/rpcbench/rpcbench/summary"
)

func init() {
	register(command{name: "calibrate", summary: "measure the generator's own floor on this machine against a built-in null target", run: runCalibrate})
}

const calibrateExamples = `  rpcbench calibrate
  rpcbench calibrate --start 5000 --max 200000 --step 3s
  GOMAXPROCS=1 rpcbench calibrate --max 20000`

// calibrateMaxSteps bounds a calibration: a rise from --start by doubling, then a bisection.
const calibrateMaxSteps = 16

func runCalibrate(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "calibrate", "calibrate [flags]\n\nMeasure the generator's own floor: load a built-in null target (it answers at once, in this\nprocess, on 127.0.0.1) at rates rising geometrically from --start until the generator no longer\nkeeps up — send lag p99 beyond 10ms, a request not sent, or its CPU saturated — then bisect.\nIt prints each rate's send lag and the generator's CPU, the send lag p99 at the first rate (its\nfloor) and the highest rate at which it kept up: a run's figures at higher rates on this machine\nmeasure the generator, not the target.", calibrateExamples)
	var (
		start   = rateFlag{v: 1000, set: true}
		maxRate = rateFlag{v: capacity.DefaultMax, set: true}
		step    = 2 * time.Second
		warm    = 500 * time.Millisecond
		conns   = 200
	)
	fs.Var(&start, "start", "first rate tried (`RATE`)")
	fs.Var(&maxRate, "max", "highest rate tried (`RATE`)")
	fs.Var(positiveDurationFlag{durationFlag{&step}}, "step", "measured length of each rate")
	fs.Var(durationFlag{&warm}, "step-warmup", "warm-up of each rate, outside its figures (0: none)")
	fs.IntVar(&conns, "connections", conns, "cap of connections and requests in flight")
	pos, code, done := parseArgs(e, fs, args)
	if done {
		return code
	}
	switch {
	case len(pos) > 0:
		return fail(e, "calibrate", usagef("unexpected argument %q: calibrate loads its own null target", pos[0]), ExitUsage)
	case maxRate.v < start.v:
		return fail(e, "calibrate", usagef("--max %s/s: want a rate at or above --start, %s/s", trimRate(maxRate.v), trimRate(start.v)), ExitUsage)
	case step < 10*time.Millisecond:
		return fail(e, "calibrate", usagef("--step %v: want at least 10ms", step), ExitUsage)
	case conns < 1:
		return fail(e, "calibrate", usagef("--connections %d: want 1 or more", conns), ExitUsage)
	}
	if start.v <= 0 {
		return fail(e, "calibrate", usagef("--start: want a rate above 0, e.g. 1000/s"), ExitUsage)
	}
	srv, err := lab.New(lab.Config{})
	if err != nil {
		return fail(e, "calibrate", fmt.Errorf("starting the null target: %w", err), ExitCannotStart)
	}
	defer srv.Close()
	fmt.Fprintf(e.stdout, "rpcbench calibrate: the generator against a null target on %s (in this process, on the same CPUs), %s per rate, up to %d connections; %g CPUs to use\n\n",
		srv.URL(), step, conns, monitor.UsableCPUs())
	fmt.Fprintf(e.stdout, calibrationCols+"  %s\n", "rate", "sent/s", "lag p50", "p99", "max", "CPU", "others", "kept up")
	cfg := capacity.Config{
		// intervals of at most a fifth of a step, so that the generator's CPU is sampled in each
		Plan: plan.Plan{Endpoints: []plan.Endpoint{{URL: srv.URL() + "/calibrate"}},
			Load: plan.Load{Connections: conns, Interval: min(time.Second, step/5)}},
		Start:    start.v,
		Max:      maxRate.v,
		Step:     step,
		Warmup:   plan.Wait(warm),
		MaxSteps: calibrateMaxSteps,
		Version:  Version(),
		Judge: func(s *summary.Summary) (bool, string) {
			why := summary.GeneratorLimits(s)
			return len(why) == 0, strings.Join(why, "; ")
		},
		Options: func() runner.Options { return runner.Options{Watch: generatorOnly()} },
		Cut:     e.cut,
		OnStep:  func(st capacity.Step) { calibrationRow(e.stdout, st) },
	}
	res, err := capacity.Search(ctx, cfg)
	if err != nil {
		return fail(e, "calibrate", err, ExitCannotStart)
	}
	calibrationVerdict(e.stdout, res)
	if res.Interrupted {
		return ExitInterrupted
	}
	return ExitOK
}

// calibrationCols are the widths of a calibration's columns: the rate, what was sent per second,
// the send lag p50, p99 and max, the generator's CPU peak and other processes' CPU peak on its
// CPUs, both in % of one core.
const calibrationCols = "%10s  %9s  %8s  %8s  %8s  %6s  %6s"

// calibrationRow writes one rate: what was sent, the send lag, the generator's CPU and other
// processes' on its CPUs, and whether it kept up (why not, when it did not).
func calibrationRow(w io.Writer, st capacity.Step) {
	s := st.Summary
	cpu, others := "—", "—"
	for _, r := range s.Resources {
		if r.Self && r.Summary.CPUPercent.Samples > 0 {
			cpu = fmt.Sprintf("%.0f%%", r.Summary.CPUPercent.Peak)
		}
		if r.Self && r.Host != nil && r.Host.OthersPercent.Samples > 0 {
			others = fmt.Sprintf("%.0f%%", r.Host.OthersPercent.Peak)
		}
	}
	kept := "yes"
	switch {
	case st.Interrupted:
		kept = "interrupted"
	case !st.Pass:
		kept = "no: " + st.Why
	}
	fmt.Fprintf(w, calibrationCols+"  %s\n", rateText(st.Rate), fmt.Sprintf("%.1f", s.SendRate),
		summary.FormatMs(s.SendLag.P50), summary.FormatMs(s.SendLag.P99), summary.FormatMs(s.SendLag.Max), cpu, others, kept)
}

// rateText writes a rate per second to 3 significant digits at least: the bisection's rates are
// not round.
func rateText(r float64) string {
	if r >= 100 {
		return fmt.Sprintf("%.0f/s", r)
	}
	return fmt.Sprintf("%.3g/s", r)
}

// calibrationVerdict says the generator's floor and the highest rate at which it kept up.
func calibrationVerdict(w io.Writer, res *capacity.Result) {
	if len(res.Steps) == 0 {
		fmt.Fprintln(w, "\nno rate was measured")
		return
	}
	first := res.Steps[0]
	fmt.Fprintf(w, "\nfloor: send lag p99 %s at %s\n", summary.FormatMs(first.Summary.SendLag.P99), rateText(first.Rate))
	keptUp := fmt.Sprintf("send lag p99 within %s, no request left unsent, the send rate within 1%% of the intended, its CPU below %d%% of the CPUs it may use",
		summary.FormatMs(float64(summary.LagBound)/float64(time.Millisecond)), summary.SaturationPercent)
	// A rate counts as kept up when every run of it did (capacity's confirmation, res.Best); one
	// that kept up in some runs only is named as such, never as the answer.
	top, kept, runs := 0.0, 0, 0
	for _, st := range res.Steps {
		if st.Pass && !st.Interrupted && st.Rate > top {
			top = st.Rate
		}
	}
	for _, st := range res.Steps {
		if st.Rate == top && !st.Interrupted {
			runs++
			if st.Pass {
				kept++
			}
		}
	}
	switch {
	case res.Best == nil && top == 0:
		fmt.Fprintf(w, "the generator did not keep up at any rate tried (%s)\n", keptUp)
	case res.Best == nil:
		fmt.Fprintf(w, "the generator kept up in every run of no rate tried (%s); the highest at which it kept up at all: %s, in %d of %d runs\n", keptUp, rateText(top), kept, runs)
	case res.AtMax:
		fmt.Fprintf(w, "the generator kept up at every rate tried, up to %s (--max): %s\n", rateText(res.Best.Rate), keptUp)
	case res.FirstFail > 0:
		fmt.Fprintf(w, "the generator kept up (%s) up to %s, in every run of it; it did not at %s\n", keptUp, rateText(res.Best.Rate), rateText(res.FirstFail))
	default:
		fmt.Fprintf(w, "the generator kept up (%s) up to %s, in every run of it; the search stopped after %d rates\n", keptUp, rateText(res.Best.Rate), len(res.Steps))
	}
	if res.Best != nil {
		fmt.Fprintln(w, "the null target shared its CPUs: on its own the generator may go further")
	}
}
