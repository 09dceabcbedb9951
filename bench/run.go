package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/rpcbench/rpcbench/output"
	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/plan/planfile"
	"github.com/rpcbench/rpcbench/replay"
	"github.com/rpcbench/rpcbench/runner"
	"github.com/rpcbench/rpcbench/summary"
)

// RunID names one run of a plan file: a scenario's step against a target.
type RunID struct {
	Scenario string `json:"scenario"`
	Target   string `json:"target"`
	// Step is the step's index, from 0; Steps the scenario's number of steps (1 without steps).
	Step  int `json:"step"`
	Steps int `json:"steps"`
	// Level names the step's level ("100 connections", "300/s"); "" without steps.
	Level string `json:"level,omitempty"`
	// CapacityStep numbers the steps of a capacity search, from 1; 0 for any other run.
	CapacityStep int `json:"capacity_step,omitempty"`
}

// FileStem is the name of the run's files without their extension: SCENARIO.TARGET,
// SCENARIO.stepN.TARGET, or SCENARIO.capacityN.TARGET for a step of a capacity search
// (SCENARIO.stepK.capacityN.TARGET for step N of the search of the K-th part of a scenario run
// alone: true).
func (r RunID) FileStem() string {
	switch {
	case r.CapacityStep > 0 && r.Steps > 1:
		return fmt.Sprintf("%s.step%d.capacity%d.%s", r.Scenario, r.Step+1, r.CapacityStep, r.Target)
	case r.CapacityStep > 0:
		return fmt.Sprintf("%s.capacity%d.%s", r.Scenario, r.CapacityStep, r.Target)
	case r.Steps <= 1:
		return r.Scenario + "." + r.Target
	}
	return fmt.Sprintf("%s.step%d.%s", r.Scenario, r.Step+1, r.Target)
}

// String names the run as progress lines do: "methods step 2/4 (100 connections) on go".
func (r RunID) String() string {
	switch {
	case r.CapacityStep > 0 && r.Steps > 1:
		return fmt.Sprintf("%s step %d/%d (%s) capacity step %d on %s", r.Scenario, r.Step+1, r.Steps, r.Level, r.CapacityStep, r.Target)
	case r.CapacityStep > 0:
		return fmt.Sprintf("%s capacity step %d on %s", r.Scenario, r.CapacityStep, r.Target)
	}
	if r.Steps <= 1 && r.Level == "" {
		return r.Scenario + " on " + r.Target
	}
	return fmt.Sprintf("%s step %d/%d (%s) on %s", r.Scenario, r.Step+1, r.Steps, r.Level, r.Target)
}

// Measured is one load run that was done: its summary, or why it could not start.
type Measured struct {
	RunID
	Summary *summary.Summary `json:"summary,omitempty"`
	// Err says why the run could not start (its setup failed, say); nil when it ran.
	Err error `json:"-"`
	// TargetEnded says the target's started command exited while the run went on: what answered
	// (if anything did) was not the target as started, and the run fails; "" otherwise.
	TargetEnded string `json:"target_ended,omitempty"`
}

// Outcome is what a plan file's run did, in the order it was done.
type Outcome struct {
	Bench *plan.Bench
	Runs  []Measured
	// Commands are the runs of the command scenarios, in the order they ran.
	Commands []CommandResult
	// Builds are the command scenarios' builds (plan.Scenario.Build), run before their runs.
	Builds []CommandResult
	// Capacity are the capacity searches, a scenario's against each target in turn.
	Capacity []CapacityResult
	// Interrupted says the context ended the run before its end: what was done is here.
	Interrupted bool
	// TargetErr says a target could not be started; nothing after it ran.
	TargetErr error
	// Started are the targets started by their command, in order, each with how it became ready.
	Started []Readiness
}

// Options say where a run's files are read and its records go. The zero value reads the
// operating system's files, keeps no log and writes no file.
type Options struct {
	// Files is what the plan's files are read through; nil: plan.OSFiles.
	Files fs.FS
	// LogDir, when set, receives the output of the commands started: NAME.log for a target,
	// SCENARIO.TARGET.out for a command scenario.
	LogDir string
	// Outputs, when set, gives each load run (and each step of a capacity search) the outputs its
	// figures flow into as it goes: its result file, say (see runner.Options.Outputs).
	Outputs func(id RunID) output.Set
	// OutputErrs receives the outputs that failed at the end of a run (or of a capacity step),
	// named; nil: a progress line says so.
	OutputErrs func(id RunID, err error)
	// Cut, when closed, cuts the run in progress at once (engine.WithCut).
	Cut <-chan struct{}
	// Command is the command line, as the runs' result files keep it.
	Command []string
	// Progress, when set, receives a line as each target starts and each run begins and ends.
	Progress io.Writer
	// ProfileDir is where the profiles of the targets with a ProfileURL go, for each load run (and
	// each step of a capacity search): RUN.cpu.pprof and RUN.allocs.pprof (RunID.FileStem); "":
	// none are taken.
	ProfileDir string
	// Version is the tool's version, for the summaries.
	Version string
	// ShowSecrets keeps the secrets of the plans in the summaries; otherwise they are redacted.
	ShowSecrets bool

	// runID is the run_id label of every run and capacity step of the plan file, for the live
	// outputs to put them together: the plan file's start (output.RunID), set by RunChecked.
	runID string
}

// Checked is a plan file whose load runs and capacity searches are prepared (Check), each once:
// RunChecked sends them as prepared.
type Checked struct {
	Bench *plan.Bench
	// preps are the prepared runs by scenario, target and step (step 0 for a search); a run takes
	// its own out, so that what it read is freed when it is done.
	preps map[runKey]*plan.Prepared
	// timelines are the replay scenarios' recordings by scenario and target, read once to check
	// them; a run takes its own out.
	timelines map[runKey]*replay.Timeline
}

type runKey struct {
	scenario, target string
	step             int
}

// Prepared returns the prepared run of scenario against target at step (from 0; 0 for a search),
// nil when the plan file has none such.
func (c *Checked) Prepared(scenario, target string, step int) *plan.Prepared {
	return c.preps[runKey{scenario, target, step}]
}

// Timeline returns the timeline of replay scenario against target, nil when the plan file has
// none such or its run has taken it.
func (c *Checked) Timeline(scenario, target string) *replay.Timeline {
	return c.timelines[runKey{scenario, target, 0}]
}

// take returns the prepared run of k, and forgets it.
func (c *Checked) take(k runKey) *plan.Prepared {
	p := c.preps[k]
	delete(c.preps, k)
	return p
}

// Check prepares every load run and capacity search of b (reading its files, as plan.Prepare
// does) without sending anything, so that a plan file's mistakes are told before the first target
// starts. Each is prepared here once, for RunChecked to send.
func Check(b *plan.Bench, fsys fs.FS) (*Checked, error) {
	if fsys == nil {
		fsys = plan.OSFiles(nil)
	}
	c := &Checked{Bench: b, preps: map[runKey]*plan.Prepared{}, timelines: map[runKey]*replay.Timeline{}}
	o := &Options{Files: fsys}
	var errs []error
	for _, s := range b.Scenarios {
		if s.IsCommand() {
			continue
		}
		for _, t := range b.Targets {
			for k := range s.Runs() {
				var prep *plan.Prepared
				var err error
				if s.Capacity != nil {
					prep, err = o.capacityConfig(s, t, b.Dir, k).Prepare()
				} else if s.Replay != nil {
					var tl *replay.Timeline
					if prep, tl, err = PrepareReplay(s, t, b.Dir, fsys); err == nil {
						c.timelines[runKey{s.Name, t.Name, k}] = tl
					}
				} else {
					prep, err = plan.Prepare(s.PlanFor(t, k, b.Dir), fsys)
				}
				if err != nil {
					errs = append(errs, planfile.ScenarioError(b, s, t, err))
					continue
				}
				c.preps[runKey{s.Name, t.Name, k}] = prep
			}
			if len(errs) > 0 {
				break // the next targets have the same problem
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return c, nil
}

// Run runs b: starts the targets that have a command (refusing one whose port is in use, see
// startTarget), then every scenario against every target, the targets taking turns step by step
// (a command scenario in rounds, see runCommands), then stops the targets — also when ctx ends,
// after which no new run starts and Outcome.Interrupted is set. It returns an error only when b
// cannot run (see Check); a target that cannot start is Outcome.TargetErr.
func Run(ctx context.Context, b *plan.Bench, o Options) (*Outcome, error) {
	if o.Files == nil {
		o.Files = plan.OSFiles(nil)
	}
	c, err := Check(b, o.Files)
	if err != nil {
		return nil, err
	}
	return RunChecked(ctx, c, o), nil
}

// RunChecked runs a plan file checked by Check, as Run does: each load run and search as Check
// prepared it.
func RunChecked(ctx context.Context, c *Checked, o Options) *Outcome {
	if o.Files == nil {
		o.Files = plan.OSFiles(nil)
	}
	checked, b := c, c.Bench
	out := &Outcome{Bench: b}
	o.runID = output.RunID(time.Now())
	var procs []*process
	started := map[string]*startedTarget{} // the started commands, watched during the runs
	defer func() {
		for i := len(procs) - 1; i >= 0; i-- {
			o.progress("stopping target %s", procs[i].name)
			procs[i].stop()
		}
	}()
	for _, t := range b.Targets {
		if len(t.Command) == 0 {
			continue
		}
		o.progress("starting target %s", t.Name)
		p, err := startTarget(ctx, t, b.Dir, o.LogDir, false, o.ShowSecrets)
		if err != nil {
			if ctx.Err() != nil {
				out.Interrupted = true
				return out
			}
			out.TargetErr = err
			return out
		}
		procs = append(procs, p)
		out.Started = append(out.Started, p.ready)
		o.progress("target %s ready after %v%s", t.Name, p.ready.After.Round(time.Millisecond), answerText(p.ready))
		st := &startedTarget{proc: p, command: t.Command}
		st.pids, st.note = answering(ctx, p, t)
		started[t.Name] = st
	}
	// runAt starts again each target whose command run k of s needs otherwise (a sweep of a flag of
	// its command); false when one could not start, which ends the plan's run.
	runAt := func(s plan.Scenario, k int) bool {
		for _, t := range b.Targets {
			st, ok := started[t.Name]
			want := s.TargetAt(t, k)
			if !ok || slices.Equal(st.command, want.Command) {
				continue
			}
			o.progress("starting target %s again: %s", t.Name, plan.ShownCommand(want.Command, want.Shell, o.ShowSecrets))
			i := slices.Index(procs, st.proc)
			procs = slices.Delete(procs, i, i+1)
			st.proc.stop()
			portFreed(ctx, t, StopTimeout)
			p, err := startTarget(ctx, want, b.Dir, o.LogDir, true, o.ShowSecrets)
			if err != nil {
				delete(started, t.Name)
				if ctx.Err() != nil {
					out.Interrupted = true
				} else {
					out.TargetErr = err
				}
				return false
			}
			procs = slices.Insert(procs, i, p)
			st = &startedTarget{proc: p, command: want.Command}
			st.pids, st.note = answering(ctx, p, want)
			started[t.Name] = st
		}
		return true
	}
	// ended says why the runs against t no longer count: its started command has exited.
	ended := func(t plan.BenchTarget) string {
		if st, ok := started[t.Name]; ok {
			return st.ended()
		}
		return ""
	}
	for _, s := range b.Scenarios {
		if !runAt(s, 0) {
			return out
		}
		if s.IsCommand() {
			o.runCommands(ctx, s, b, ended, out)
			if ctx.Err() != nil {
				out.Interrupted = true
				return out
			}
			continue
		}
		for k := range s.Runs() {
			if k > 0 && !runAt(s, k) {
				return out
			}
			for _, t := range b.Targets {
				if ctx.Err() != nil {
					out.Interrupted = true
					return out
				}
				gone := ended(t)
				if s.Capacity != nil {
					c := CapacityResult{Scenario: s.Name, Target: t.Name, Step: k, Steps: s.Runs(), Level: s.StepLabel(k), SLO: s.Capacity.SLO, Err: errors.New(gone)}
					if gone == "" {
						c = o.runCapacity(ctx, s, k, t, b.Dir, checked.take(runKey{s.Name, t.Name, k}), started)
						c.TargetEnded = ended(t)
						o.endedWhile(c.String(), c.TargetEnded)
					}
					out.Capacity = append(out.Capacity, c)
					continue
				}
				id := RunID{Scenario: s.Name, Target: t.Name, Step: k, Steps: s.Runs(), Level: s.StepLabel(k)}
				m := Measured{RunID: id, Err: errors.New(gone)}
				key := runKey{s.Name, t.Name, k}
				switch {
				case gone != "":
				case s.Replay != nil:
					tl := checked.timelines[key]
					delete(checked.timelines, key)
					m = o.runReplay(ctx, id, s, checked.take(key), tl, o.runnerOptions(id, t, profilePID(t, started), watchesFor(ctx, t, started, o.ShowSecrets)))
				default:
					prep := checked.take(key)
					m = o.runLoad(ctx, id, prep, o.runnerOptions(id, t, profilePID(t, started), watchesFor(ctx, t, started, o.ShowSecrets)), describe(prep.Plan))
				}
				if gone == "" {
					m.TargetEnded = ended(t)
				}
				o.endedWhile(id.String(), m.TargetEnded)
				out.Runs = append(out.Runs, m)
			}
		}
	}
	if ctx.Err() != nil {
		out.Interrupted = true
	}
	return out
}

// Rounds returns the runs of command scenario s against targets, round by round: s.Repeat rounds
// (at least one), each in the reverse order of the one before — a, b, then b, a — so that going
// first, when caches are cold, favours no target.
func Rounds(s plan.Scenario, targets []plan.BenchTarget) [][]plan.BenchTarget {
	rounds := make([][]plan.BenchTarget, max(1, s.Repeat))
	for i := range rounds {
		rounds[i] = slices.Clone(targets)
		if i%2 == 1 {
			slices.Reverse(rounds[i])
		}
	}
	return rounds
}

// runCommands runs command scenario s: its build, timed apart, then its rounds (see Rounds),
// each run's result added to out. A build that fails leaves the scenario's runs out; a target whose
// command has ended (ended says so) is not run against.
func (o *Options) runCommands(ctx context.Context, s plan.Scenario, b *plan.Bench, ended func(plan.BenchTarget) string, out *Outcome) {
	if len(s.Build) > 0 {
		o.progress("%s: build: %s", s.Name, plan.ShownCommand(s.Build, s.BuildShell, o.ShowSecrets))
		c := runBuild(ctx, s, b.Dir, o.LogDir)
		o.progress("%s: build: %s in %v", s.Name, c.exit(), c.Wall.Round(time.Millisecond))
		out.Builds = append(out.Builds, c)
		if !c.OK() {
			return
		}
	}
	for i, round := range Rounds(s, b.Targets) {
		for _, t := range round {
			if ctx.Err() != nil {
				return
			}
			n := 0 // no round without repeat
			if s.Repeat > 1 {
				n = i + 1
			}
			c := CommandResult{Scenario: s.Name, Target: t.Name, Round: n, ExitCode: -1}
			if gone := ended(t); gone != "" {
				c.Err = "not run: " + gone
			} else {
				o.progress("%s: %s", c, s.Describe(0, o.ShowSecrets))
				c = runCommand(ctx, s, t, n, b.Dir, o.LogDir)
				c.TargetEnded = ended(t)
				o.progress("%s: %s in %v", c, c.exit(), c.Wall.Round(time.Millisecond))
				o.endedWhile(c.String(), c.TargetEnded)
			}
			out.Commands = append(out.Commands, c)
		}
	}
}

// endedWhile says that run's target's command ended while it ran, when it did.
func (o *Options) endedWhile(run, ended string) {
	if ended != "" {
		o.progress("%s: %s while this ran: it fails", run, ended)
	}
}

func (o *Options) progress(format string, a ...any) {
	if o.Progress != nil {
		fmt.Fprintf(o.Progress, "rpcbench bench: "+format+"\n", a...)
	}
}

// runLoad runs one prepared load run through the runner with ro (see runnerOptions), its setup
// phase first; what says what it sends, for the progress line.
func (o *Options) runLoad(ctx context.Context, id RunID, prep *plan.Prepared, ro runner.Options, what string) Measured {
	m := Measured{RunID: id}
	o.progress("%s: %s", id, what)
	if tr := prep.Plan.Traffic; tr.RewriteHost {
		o.progress("%s: %s", id, tr.RewriteNote(plan.RedactURL(tr.Base)))
	}
	run, err := runner.Run(ctx, prep, ro)
	if err != nil {
		m.Err = err
		var se *runner.SetupError
		if errors.As(err, &se) {
			o.progress("%s: %v", id, err)
		}
		return m
	}
	m.Summary = run.Summary
	if run.OutputErr != nil {
		o.outputFailed(id, run.OutputErr)
	}
	o.progress("%s: %d requests sent", id, run.Result.Total.Sent())
	return m
}

// runnerOptions are the options of run id against t: its outputs, what it watches, the target's
// profiles (its profiler command's {pid} is pid), the cut.
func (o *Options) runnerOptions(id RunID, t plan.BenchTarget, pid int, w *runner.Watching) runner.Options {
	ro := runner.Options{Watch: w, Cut: o.Cut, Version: o.Version, ShowSecrets: o.ShowSecrets, Command: o.Command, Labels: id.labels(o.runID)}
	if o.Outputs != nil {
		ro.Outputs = o.Outputs(id)
	}
	if t.ProfileURL != "" && o.ProfileDir != "" {
		stem := filepath.Join(o.ProfileDir, id.FileStem())
		ro.Profile = &runner.Profiling{Name: "targets." + t.Name + ".profile", URL: t.ProfileURL, CPUPath: stem + ".cpu.pprof", AllocsPath: stem + ".allocs.pprof"}
		ro.Warn = func(msg string) { o.progress("%s: %s", id, msg) }
	}
	if t.ProfileCommand != "" && o.ProfileDir != "" {
		ro.Profiler = &runner.ProfilerCommand{Name: "targets." + t.Name + ".profile.command", Command: t.ProfileCommand, PID: pid,
			Out: filepath.Join(o.ProfileDir, id.FileStem()+".profile")}
		ro.Warn = func(msg string) { o.progress("%s: %s", id, msg) }
	}
	return ro
}

// profilePID is the process a profiler command of t profiles: the one of its started command that
// answers, else the first of its monitor's pids; 0 when it has neither.
func profilePID(t plan.BenchTarget, started map[string]*startedTarget) int {
	if st, ok := started[t.Name]; ok && len(st.pids) > 0 {
		return st.pids[0]
	}
	if len(t.Monitor.PIDs) > 0 {
		return t.Monitor.PIDs[0]
	}
	return 0
}

// outputFailed tells what an output of run id could not write.
func (o *Options) outputFailed(id RunID, err error) {
	if o.OutputErrs != nil {
		o.OutputErrs(id, err)
		return
	}
	o.progress("%s: %v", id, err)
}

// labels name the run for the outputs: the plan file's run_id, scenario, target, and the step
// when there are several.
func (r RunID) labels(runID string) map[string]string {
	l := map[string]string{"scenario": r.Scenario, "target": r.Target}
	if runID != "" {
		l["run_id"] = runID
	}
	switch {
	case r.CapacityStep > 0 && r.Steps > 1:
		l["step"] = strconv.Itoa(r.Step+1) + " capacity " + strconv.Itoa(r.CapacityStep)
	case r.CapacityStep > 0:
		l["step"] = "capacity " + strconv.Itoa(r.CapacityStep)
	case r.Steps > 1 || r.Level != "":
		l["step"] = strconv.Itoa(r.Step + 1)
	}
	return l
}

// describe says in a few words what a normalized plan sends.
func describe(p plan.Plan) string {
	l := p.Load
	switch {
	case len(l.Stages) > 0:
		return fmt.Sprintf("%s model in %d stages", l.Model, len(l.Stages))
	case l.Model == plan.Open:
		return fmt.Sprintf("%g/s for %v", l.Rate, l.Duration)
	}
	conns := fmt.Sprintf("%d connections", l.Connections)
	if l.Connections == 1 {
		conns = "1 connection"
	}
	if l.Duration == 0 {
		return fmt.Sprintf("%s, %d requests", conns, l.Requests)
	}
	return fmt.Sprintf("%s for %v", conns, l.Duration)
}
