package benchrun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"time"

	"github.com/rpcbench/rpcbench/engine"
	"github.com/rpcbench/rpcbench/plan"
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
}

// String names the run as progress lines do: "methods step 2/4 (100 connections) on go".
func (r RunID) String() string {
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
}

// Outcome is what a plan file's run did, in the order it was done.
type Outcome struct {
	Bench    *plan.Bench
	Runs     []Measured
	Commands []CommandResult
	// Capacity are the capacity searches, a scenario's against each target in turn.
	Capacity []CapacityResult
	// Interrupted says the context ended the run before its end: what was done is here.
	Interrupted bool
	// TargetErr says a target could not be started; nothing after it ran.
	TargetErr error
}

// Options say where a run's files are read and its records go. The zero value reads the
// operating system's files, keeps no log and writes no file.
type Options struct {
	// Files is what the plan's files are read through; nil: plan.OSFiles.
	Files fs.FS
	// LogDir, when set, receives the output of the commands started: NAME.log for a target,
	// SCENARIO.TARGET.out for a command scenario.
	LogDir string
	// Observe, when set, is called before each load run with the plan as run; it returns options
	// for the run (observers that write its result file, say) and a function called with the
	// result and its summary (the monitored resources in it) when the run is over, interrupted or
	// not.
	Observe func(id RunID, np plan.Plan) ([]engine.Option, func(*engine.Result, *summary.Summary), error)
	// Engine are options added to every run (engine.WithCut, say).
	Engine []engine.Option
	// Progress, when set, receives a line as each target starts and each run begins and ends.
	Progress io.Writer
	// Version is the tool's version, for the summaries.
	Version string
	// ShowSecrets keeps the secrets of the plans in the summaries; otherwise they are redacted.
	ShowSecrets bool
}

// Check prepares every load run of b (reading its files, as plan.Prepare does) without sending
// anything, so that a plan file's mistakes are told before the first target starts.
func Check(b *plan.Bench, fsys fs.FS) error {
	var errs []error
	for _, s := range b.Scenarios {
		if s.IsCommand() {
			continue
		}
		for _, t := range b.Targets {
			for k := range s.Runs() {
				if _, err := plan.Prepare(s.PlanFor(t, k, b.Dir), fsys); err != nil {
					errs = append(errs, fmt.Errorf("%s: scenario %s on %s: %w", b.File, s.Name, t.Name, err))
				}
			}
			if len(errs) > 0 {
				break // the next targets have the same problem
			}
		}
	}
	return errors.Join(errs...)
}

// Run runs b: starts the targets that have a command, then every scenario against every target,
// the targets taking turns step by step, then stops the targets — also when ctx ends, after which
// no new run starts and Outcome.Interrupted is set. It returns an error only when b cannot run
// (see Check); a target that cannot start is Outcome.TargetErr.
func Run(ctx context.Context, b *plan.Bench, o Options) (*Outcome, error) {
	if o.Files == nil {
		o.Files = plan.OSFiles(nil)
	}
	if err := Check(b, o.Files); err != nil {
		return nil, err
	}
	out := &Outcome{Bench: b}
	var procs []*process
	pids := map[string]int{} // the started commands, watched during the runs
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
		p, err := startTarget(ctx, t, b.Dir, o.LogDir)
		if err != nil {
			if ctx.Err() != nil {
				out.Interrupted = true
				return out, nil
			}
			out.TargetErr = err
			return out, nil
		}
		procs = append(procs, p)
		pids[t.Name] = p.cmd.Process.Pid
	}
	for _, s := range b.Scenarios {
		for k := range s.Runs() {
			for _, t := range b.Targets {
				if ctx.Err() != nil {
					out.Interrupted = true
					return out, nil
				}
				if s.Capacity != nil {
					if k == 0 {
						out.Capacity = append(out.Capacity, o.runCapacity(ctx, s, t, b.Dir, pids))
					}
					continue
				}
				if s.IsCommand() {
					o.progress("%s on %s: %s", s.Name, t.Name, s.Describe(0))
					c := runCommand(ctx, s, t, b.Dir, o.LogDir)
					o.progress("%s on %s: exit %d in %v", s.Name, t.Name, c.ExitCode, c.Wall.Round(time.Millisecond))
					out.Commands = append(out.Commands, c)
					continue
				}
				id := RunID{Scenario: s.Name, Target: t.Name, Step: k, Steps: s.Runs(), Level: s.StepLabel(k)}
				m := o.runLoad(ctx, id, s.PlanFor(t, k, b.Dir), watchesFor(ctx, t, pids, o.ShowSecrets))
				out.Runs = append(out.Runs, m)
			}
		}
	}
	if ctx.Err() != nil {
		out.Interrupted = true
	}
	return out, nil
}

func (o *Options) progress(format string, a ...any) {
	if o.Progress != nil {
		fmt.Fprintf(o.Progress, "rpcbench bench: "+format+"\n", a...)
	}
}

// runLoad prepares and runs one load run, its setup phase first.
func (o *Options) runLoad(ctx context.Context, id RunID, p plan.Plan, w *watching) Measured {
	m := Measured{RunID: id}
	prep, err := plan.Prepare(p, o.Files)
	if err != nil {
		m.Err = err
		return m
	}
	o.progress("%s: %s", id, describe(prep.Plan))
	if prep.Setup != nil {
		if _, err := engine.Setup(ctx, prep, o.Engine...); err != nil {
			m.Err = err
			o.progress("%s: setup: %v", id, err)
			return m
		}
	}
	np := prep.Plan
	var tl summary.Timeline
	names := make([]string, len(np.Endpoints))
	for i, e := range np.Endpoints {
		names[i] = e.Name
	}
	opts := append([]engine.Option{engine.WithObserver(func(t *engine.Tick) { tl.Add(t.Interval, names) })}, o.Engine...)
	opts = append(opts, w.options()...)
	var done func(*engine.Result, *summary.Summary)
	if o.Observe != nil {
		extra, d, err := o.Observe(id, np)
		if err != nil {
			m.Err = err
			return m
		}
		opts, done = append(opts, extra...), d
	}
	w.start(np)
	res, err := engine.RunPrepared(ctx, prep, opts...)
	if err != nil {
		w.stop(nil, time.Time{})
		m.Err = err
		return m
	}
	m.Summary = summary.New(summary.Run{Plan: res.Plan.Shown(o.ShowSecrets), Version: o.Version, Trailer: res.Trailer}, res.Total)
	m.Summary.SetTimeline(tl.Points)
	w.stop(m.Summary, res.MeasuredStart)
	if done != nil {
		done(res, m.Summary)
	}
	o.progress("%s: %d requests sent", id, res.Total.Sent())
	return m
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
