package cli

import (
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/rpcbench/rpcbench/plan"
)

// planFlags are the flags of `run` that take its plan from one scenario of a plan file.
type planFlags struct {
	file     string
	scenario string
	target   string
	step     int
}

func (f *planFlags) define(fs *flag.FlagSet) {
	fs.StringVar(&f.file, "plan", "", "run one scenario of the plan file `FILE` against one of its targets (see docs/plan-files.md), instead of a URL and load flags")
	fs.StringVar(&f.scenario, "scenario", "", "with --plan, the `NAME` of the scenario to run (needed when the plan has several)")
	fs.StringVar(&f.target, "target", "", "with --plan, the `NAME` of the target to run it against (needed when the plan has several)")
	fs.IntVar(&f.step, "step", 0, "with --plan, the step `K` (from 1) of a scenario with steps")
}

// withPlanFlags are the flags of `run` that go with --plan: where the figures go, which part of
// the load this generator runs and from when. The plan file says what to send.
var withPlanFlags = []string{
	"plan", "scenario", "target", "step",
	"segment", "segment-index", "segment-sequence", "start-at",
	"out", "out-log", "live", "html", "log", "report-file", "format", "quiet", "show-secrets", "percentiles", "stage-ramps", "no-verdict", "require-valid",
	"monitor-pid", "monitor-process", "monitor-cgroup", "monitor-container", "monitor-metrics", "monitor-series",
}

// replayRun is the choice of run --plan when it is a replay scenario: the plan file, the
// scenario and the target, which bench.PrepareReplay prepares from.
type replayRun struct {
	b *plan.Bench
	s plan.Scenario
	t plan.BenchTarget
}

// planOfFile returns the plan of the run --plan, --scenario, --target and --step choose; pos are
// the positional arguments, which must be none. A target with a command is not started: run
// --plan sends to a target that is already running, and says so. A replay scenario is returned
// as a replayRun too: its plan is made from its recording.
func (f *runFlags) planOfFile(e *env, fs *flag.FlagSet, pos []string) (plan.Plan, *replayRun, error) {
	if len(pos) > 0 {
		return plan.Plan{}, nil, usagef("--plan %s: the plan file names the target; got %q too", f.planf.file, pos[0])
	}
	var extra []string
	fs.Visit(func(fl *flag.Flag) {
		if !slices.Contains(withPlanFlags, fl.Name) {
			extra = append(extra, "--"+fl.Name)
		}
	})
	if len(extra) > 0 {
		return plan.Plan{}, nil, usagef("--plan %s and %s: the plan file says what to send; put it there, or leave --plan out", f.planf.file, strings.Join(extra, ", "))
	}
	b, err := readBenchFile(f.planf.file)
	if err != nil {
		return plan.Plan{}, nil, err
	}
	p, s, t, _, err := b.Select(f.planf.scenario, f.planf.target, f.planf.step)
	if err != nil {
		return plan.Plan{}, nil, selectError(err)
	}
	if s.IsDiff() {
		return plan.Plan{}, nil, usagef("--scenario %s: a diff of the targets, which run does not send: rpcbench diff --plan %s --scenario %s runs it", s.Name, f.planf.file, s.Name)
	}
	var rr *replayRun
	if s.Replay != nil {
		if f.segment.segment != "" || f.segment.sequence != "" {
			return plan.Plan{}, nil, usagef("--segment: scenario %s is a replay, which one generator sends whole", s.Name)
		}
		rr = &replayRun{b, s, t}
	}
	if len(t.Command) > 0 {
		fmt.Fprintf(e.stderr, "rpcbench run: target %s has a command, which run --plan does not start: it sends to %s as it is (rpcbench bench starts targets)\n", t.Name, plan.RedactURL(t.URL))
	}
	if s.SweepsCommand() {
		fmt.Fprintf(e.stderr, "rpcbench run: scenario %s sweeps %s, which rpcbench bench sets by starting target %s again at each value; run --plan does not: %s stays as it runs now\n", s.Name, s.Sweep.Param, s.Sweep.Target, s.Sweep.Target)
	}
	if len(b.Reports) > 0 {
		fmt.Fprintf(e.stderr, "rpcbench run: the plan's reports: [%s] are files rpcbench bench writes into its run directory; run --plan writes none of them%s\n", strings.Join(b.Reports, ", "), reportsInstead(b.Reports))
	}
	f.segment.apply(&p)
	return p, rr, nil
}

// reportsInstead says how run gives what each of a plan's reports: would (see plan.BenchReports).
func reportsInstead(reports []string) string {
	var how []string
	for _, r := range reports {
		switch r {
		case plan.ReportVegeta:
			how = append(how, "--format vegeta prints vegeta's text report")
		case plan.ReportPlot:
			how = append(how, "--log FILE keeps the per-request log, which rpcbench plot FILE draws")
		}
	}
	if len(how) == 0 {
		return ""
	}
	return ": " + strings.Join(how, "; ")
}

// selectError names the flag of a choice plan.Bench.Select could not make.
func selectError(err error) error {
	var se *plan.SelectError
	if errors.As(err, &se) {
		return usagef("--%s: %s", se.Key, se.Msg)
	}
	return usageError{err.Error()}
}
