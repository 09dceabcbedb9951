package plan

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Bench is a plan file (see ReadFile): named targets, and named scenarios each run against every
// target so that the targets can be compared. The zero value has nothing to run. A Bench is plain
// data, safe to copy.
type Bench struct {
	// File is the name the plan was read from, for messages.
	File string `json:"file,omitempty"`
	// Dir is the directory relative file names of the plan are relative to: the plan file's own.
	// The commands of targets and command scenarios run in it.
	Dir string `json:"dir,omitempty"`
	// Targets are the implementations compared, in the order of the file.
	Targets []BenchTarget `json:"targets"`
	// Scenarios are what is run against every target, in the order of the file.
	Scenarios []Scenario `json:"scenarios"`
	// Stats are the figures of the report's side-by-side tables (names of StatNames) for every
	// scenario without stats of its own; nil: the tables' defaults.
	Stats []string `json:"stats,omitempty"`
	// Outputs are the live outputs every load run and capacity step of the plan sends its series
	// to while it goes, as `rpcbench bench --out TYPE=URL` takes them; left out of JSON, as their
	// URLs may hold secrets.
	Outputs []BenchOutput `json:"-"`
	// Reports are the files in vegeta's habits the run directory gets besides the reports (names
	// of BenchReports): ReportVegeta, each load run's vegeta text report; ReportPlot, each load
	// run's per-request log and a vegeta-style plot page per scenario and step.
	Reports []string `json:"reports,omitempty"`
}

// The files of Bench.Reports.
const (
	ReportVegeta = "vegeta" // RUN.vegeta.txt: each load run in vegeta report's text layout
	ReportPlot   = "plot"   // RUN.log.csv for each load run, SCENARIO[.stepN].plot.html per step
)

// BenchReports are the names reports: takes.
var BenchReports = []string{ReportVegeta, ReportPlot}

// BenchOutput is a live output of a plan file: "prometheus-rw=URL", "otlp=URL" or
// "otlp-grpc=HOST:PORT", and where it stands in the file, for the messages about it.
type BenchOutput struct {
	Spec      string
	Line, Col int
}

// StatsOf returns the figures of the side-by-side tables of scenario s: its own stats, else the
// plan's; nil for the defaults.
func (b *Bench) StatsOf(s Scenario) []string {
	if len(s.Stats) > 0 {
		return s.Stats
	}
	return b.Stats
}

// BenchTarget is one implementation under test: where it answers, and optionally the command that
// starts it.
type BenchTarget struct {
	Name string `json:"name"`
	// URL is where the target answers; a scenario's paths are relative to it.
	URL string `json:"url"`
	// Command starts the target before the first scenario and is stopped after the last; empty:
	// the target is already running. One string runs through /bin/sh -c; a list is the argument
	// vector.
	Command []string `json:"command,omitempty"`
	// Shell says Command is one string for /bin/sh -c.
	Shell bool `json:"shell,omitempty"`
	// Env is added to the command's environment, "NAME=value" each.
	Env []string `json:"env,omitempty"`
	// Ready is a URL polled after the command starts until it answers (any HTTP status below
	// 500); empty: the target's URL is ready when its port takes connections.
	Ready string `json:"ready,omitempty"`
	// ReadyTimeout bounds the wait for Ready; 0 means DefaultReadyTimeout.
	ReadyTimeout time.Duration `json:"ready_timeout,omitempty"`
	// Monitor says what to watch while each load runs against the target (see TargetMonitor); the
	// zero value watches the started command, if any.
	Monitor TargetMonitor `json:"monitor,omitzero"`
	// ProfileURL, when set, is the base of the target's net/http/pprof handlers (a Go target,
	// "http://127.0.0.1:6060/debug/pprof"): each load run against it saves a CPU and an
	// allocation profile of the target over its measured window, in the run directory.
	ProfileURL string `json:"profile_url,omitempty"`
	// ProfileCommand, when set, is a profiler command for a target not written in Go, run
	// through /bin/sh -c over each load run's measured window with {pid} (the target's process),
	// {duration} (the window in whole seconds) and {out} (a file in the run directory) replaced.
	ProfileCommand string `json:"profile_command,omitempty"`
}

// DefaultReadyTimeout is how long a started target may take to answer.
const DefaultReadyTimeout = 30 * time.Second

// Scenario is one named piece of work run against every target: a load (Plan, with the paths of
// its endpoints relative to the target's URL), optionally in Steps, or a Command.
type Scenario struct {
	Name string `json:"name"`
	// Line and Col are where the scenario's name stands in its plan file (0 when it was not read
	// from one): the problems of its runs are told there (Bench.ScenarioError).
	Line, Col int `json:"-"`
	// Plan is the run against one target, its endpoint URLs relative to the target's URL ("" or
	// "/v0/entity?id=…"); relative file names are relative to Bench.Dir. Unused for a command.
	Plan Plan `json:"plan,omitzero"`
	// Steps are levels run one after the other, each a run of its own: connections (closed
	// model, the default) or arrivals per second (open model). Each step lasts Step, after Ramp
	// of warm-up at its level outside the figures.
	Steps []float64 `json:"steps,omitempty"`
	// Step is the measured length of each step.
	Step time.Duration `json:"step,omitempty"`
	// Ramp is the warm-up of each step, outside its figures.
	Ramp time.Duration `json:"ramp,omitempty"`
	// RampFrom says where each step's Ramp starts: RampFromPrevious, a linear rise from the level
	// of the step before (0 before the first), as k6's ramping-vus stages rise; "": the ramp
	// holds the step's own level.
	RampFrom string `json:"ramp_from,omitempty"`
	// Command, when set, makes the scenario a command (e.g. an end-to-end test suite) run once
	// against each target with the target's URL in its environment (see CommandEnv).
	Command []string `json:"command,omitempty"`
	// Shell says Command is one string for /bin/sh -c.
	Shell bool `json:"shell,omitempty"`
	// Env is added to the command's environment, "NAME=value" each.
	Env []string `json:"env,omitempty"`
	// Timeout bounds the command's run (and its Build's); 0: no bound.
	Timeout time.Duration `json:"timeout,omitempty"`
	// Build, when set, is a command run once in Bench.Dir before a command scenario's runs (its
	// test binary's compilation, say), timed apart, so that no target's wall time includes it.
	Build []string `json:"build,omitempty"`
	// BuildShell says Build is one string for /bin/sh -c.
	BuildShell bool `json:"build_shell,omitempty"`
	// Repeat is how many rounds a command scenario runs against the targets; each round reverses
	// the order of the one before (a, b, then b, a) so that going first favours no target. 0 is 1.
	Repeat int `json:"repeat,omitempty"`
	// JUnit, when set, names the JUnit XML report the command writes — a file, or a glob for
	// several (target/surefire-reports/TEST-*.xml), relative to Bench.Dir — whose test cases are
	// counted instead of `go test -json` output. The command gets the file's path in EnvJUnit
	// when JUnit names one file.
	JUnit string `json:"junit,omitempty"`
	// JUnitRunDir (junit: true in a plan file) says the command writes its JUnit XML report to a
	// file of rpcbench's choosing, one per target in the run directory, given in EnvJUnit.
	JUnitRunDir bool `json:"junit_run_dir,omitempty"`
	// Capacity, when set, makes the scenario a capacity search with Plan's requests (see
	// ScenarioCapacity) against each target, instead of one load.
	Capacity *ScenarioCapacity `json:"capacity,omitempty"`
	// Replay, when set, makes the scenario send a recording to each target (see ScenarioReplay)
	// instead of a load of its own; Plan gives its connections, timeouts, checks and SLO.
	Replay *ScenarioReplay `json:"replay,omitempty"`
	// Alone (alone: true) runs each part of the scenario — each endpoint, or the JSON-RPC calls
	// of each name — alone, as a run of its own with the whole of the load (the rate, the
	// connections, each stage), instead of the mix; with Steps, every part at every level.
	Alone bool `json:"alone,omitempty"`
	// Loads are the parts' own levels by name (load: on an endpoint or a call), for Alone: the
	// rate (open model) or connections (closed) of that part's one run, in place of the
	// scenario's or its steps' levels.
	Loads map[string]float64 `json:"loads,omitempty"`
	// Stats are the figures of this scenario's side-by-side tables (see Bench.Stats).
	Stats []string `json:"stats,omitempty"`
	// Sweep, when set, runs the scenario once per value of one parameter (sweep: {batch: [1,
	// 10, 50, 100]}), with its steps or parts at each value.
	Sweep *Sweep `json:"sweep,omitempty"`
	// Diff, when set, makes the scenario a diff of the targets (see ScenarioDiff), which
	// `rpcbench diff --plan` runs, instead of a load against each target.
	Diff *ScenarioDiff `json:"diff,omitempty"`
}

// RampFromPrevious (ramp_from: previous) makes each step's ramp rise from the step before's level.
const RampFromPrevious = "previous"

// The environment a command scenario and a target command get.
const (
	EnvTargetURL  = "RPCBENCH_TARGET_URL"  // the target's URL
	EnvTargetName = "RPCBENCH_TARGET_NAME" // the target's name
	EnvJUnit      = "RPCBENCH_JUNIT"       // where a command scenario writes its JUnit XML report
)

// IsCommand reports whether s is a command scenario.
func (s Scenario) IsCommand() bool { return len(s.Command) > 0 }

// Runs returns the number of runs of s against one target: its steps, or 1; with Alone, each
// part at each step (a part with its own load once); with a Sweep, all of those at each value.
func (s Scenario) Runs() int { return len(s.runs()) }

// StepLabel names run k (from 0) of s: "50 connections", "300/s"; with Alone, the part too:
// "eth_call alone at 300/s", "get alone", "eth_call alone at its own 10 connections"; with a
// Sweep, the value first: "batch 10", "batch 10, 50 connections"; "" for a scenario without
// steps, Alone or Sweep.
func (s Scenario) StepLabel(k int) string {
	r := s.runs()[k]
	label := s.partLabel(r)
	if r.sweep < 0 {
		return label
	}
	if label == "" {
		return s.Sweep.label(r.sweep)
	}
	return s.Sweep.label(r.sweep) + ", " + label
}

// partLabel names run r without its sweep value.
func (s Scenario) partLabel(r run) string {
	level := ""
	switch {
	case r.level > 0:
		level = "its own " + levelText(r.level, s.PartModel())
	case r.step >= 0:
		level = levelText(s.Steps[r.step], s.Plan.Load.Model)
	}
	if r.part < 0 {
		return level
	}
	label := s.Parts()[r.part] + " alone"
	if level != "" {
		label += " at " + level
	}
	return label
}

// PartModel is the model of a part's own level: open when the scenario sends at a rate.
func (s Scenario) PartModel() Model {
	if l := s.Plan.Load; l.Model == Open || l.Model == "" && l.Rate > 0 {
		return Open
	}
	return Closed
}

// connWord is " connection" for one, " connections" for any other number.
func connWord(n float64) string {
	if n == 1 {
		return " connection"
	}
	return " connections"
}

// PlanFor returns the plan of run k (a step, from 0) of a load scenario against target t: its
// endpoint paths joined to the target's URL, its target and setup files' paths too (Traffic.Base),
// and its files named relative to dir.
func (s Scenario) PlanFor(t BenchTarget, k int, dir string) Plan {
	p := s.Plan
	p.Endpoints = append([]Endpoint(nil), p.Endpoints...)
	if len(p.Endpoints) == 0 && p.Traffic.Targets == "" {
		p.Endpoints = []Endpoint{{}}
	}
	for i := range p.Endpoints {
		p.Endpoints[i].URL = JoinURL(t.URL, p.Endpoints[i].URL)
	}
	tr := &p.Traffic
	if tr.Targets != "" || tr.Setup != "" {
		tr.Base = t.URL
	}
	tr.Targets, tr.Data, tr.Setup = relTo(dir, tr.Targets), relTo(dir, tr.Data), relTo(dir, tr.Setup)
	p.JSONRPC.CallsFile = relTo(dir, p.JSONRPC.CallsFile)
	if s.Capacity != nil {
		p.Load = s.Capacity.capacityLoad(p.Load)
	}
	p.TLS.CACert, p.TLS.Cert, p.TLS.Key = relTo(dir, p.TLS.CACert), relTo(dir, p.TLS.Cert), relTo(dir, p.TLS.Key)
	r := s.runs()[k]
	if r.part >= 0 {
		s.alonePlan(&p, r.part)
	}
	if r.sweep >= 0 {
		s.Sweep.apply(&p, r.sweep)
	}
	l := &p.Load
	level := r.level
	if r.step >= 0 {
		level = s.Steps[r.step]
	}
	if len(s.Steps) > 0 {
		l.Duration, l.Warmup = s.Step, s.Ramp
		if s.RampFrom == RampFromPrevious && r.step >= 0 {
			from := 0.0
			if r.step > 0 {
				from = s.Steps[r.step-1]
			}
			l.WarmupFrom = &from
		}
	}
	if level > 0 {
		if len(s.Steps) > 0 && l.Model == Open || len(s.Steps) == 0 && s.PartModel() == Open {
			l.Model, l.Rate = Open, level
		} else {
			l.Model, l.Connections = Closed, int(level)
		}
	}
	return p
}

// relTo returns the file name relative to dir; "" and "-" (stdin) stay as they are.
func relTo(dir, name string) string {
	if name == "" || name == Stdin {
		return name
	}
	return joinDir(dir, name)
}

// JoinURL joins path to base: "" is base itself; a path starting with "/" or "?" goes after base's
// own path (its trailing "/" dropped); an absolute URL ("http://…") stays as it is.
func JoinURL(base, path string) string {
	switch {
	case path == "":
		return base
	case strings.Contains(path, "://"):
		return path
	case strings.HasPrefix(path, "?"):
		return base + path
	}
	return strings.TrimRight(base, "/") + "/" + strings.TrimLeft(path, "/")
}

// Length returns how long run k of s lasts against one target, warm-up included, and whether that
// is known (a run that ends on a count or a command is not). When it is not, the length is the
// part that is known (a warm-up; nothing of a command, which may end at once), so that a sum of
// lengths is always a lower bound.
func (s Scenario) Length(k int) (time.Duration, bool) {
	if s.IsCommand() {
		return 0, false
	}
	if s.Capacity != nil {
		l := s.PlanFor(BenchTarget{}, 0, "").Load
		return l.Warmup + l.Duration, false // one step: the search ends when it has found the rate
	}
	if s.Replay != nil {
		return 0, false // as long as the recording, known once its files are read
	}
	l := s.PlanFor(BenchTarget{}, k, "").Load
	if l.Requests > 0 && len(l.Stages) == 0 && l.Duration == 0 {
		return l.Warmup, false
	}
	d := l.Warmup + l.Duration
	if len(l.Stages) == 0 && l.Duration == 0 {
		d += DefaultDuration
	}
	for _, st := range l.Stages {
		d += st.Duration
	}
	return d, true
}

// Describe says in a line what run k of s sends: the model and level, and for how long; a command
// scenario's command with its secrets REDACTED unless show (ShownCommand).
func (s Scenario) Describe(k int, show bool) string {
	if s.IsCommand() {
		c := "command: " + ShownCommand(s.Command, s.Shell, show)
		if s.Timeout > 0 {
			c += fmt.Sprintf(" (at most %v)", s.Timeout)
		}
		switch {
		case s.JUnitRunDir:
			c += "; tests from its JUnit XML in $" + EnvJUnit
		case s.JUnit != "":
			c += "; tests from its JUnit XML " + s.JUnit
		}
		return c
	}
	if s.Capacity != nil {
		return s.Capacity.describe() + s.rewriteNote()
	}
	if s.Replay != nil {
		return s.Replay.describe()
	}
	p := s.PlanFor(BenchTarget{URL: "http://target"}, k, "").Normalized()
	l := p.Load
	var b strings.Builder
	switch {
	case len(l.Stages) > 0:
		unit := "/s"
		if l.Model == Closed {
			unit = " connections"
		}
		parts := make([]string, len(l.Stages))
		for i, st := range l.Stages {
			parts[i] = fmt.Sprintf("%v→%s%s", st.Duration, strconv.FormatFloat(st.Target, 'f', -1, 64), unit)
		}
		fmt.Fprintf(&b, "%s model, stages %s", l.Model, strings.Join(parts, ", "))
	case l.Model == Open:
		fmt.Fprintf(&b, "open model, %s/s", strconv.FormatFloat(l.Rate, 'f', -1, 64))
	default:
		fmt.Fprintf(&b, "closed model, %d%s", l.Connections, connWord(float64(l.Connections)))
	}
	switch {
	case l.Warmup > 0 && l.WarmupFrom != nil:
		unit := "/s"
		if l.Model == Closed {
			unit = connWord(*l.WarmupFrom)
		}
		fmt.Fprintf(&b, ", %v warm-up rising from %s%s", l.Warmup, strconv.FormatFloat(*l.WarmupFrom, 'f', -1, 64), unit)
	case l.Warmup > 0:
		fmt.Fprintf(&b, ", %v warm-up", l.Warmup)
	}
	if l.Duration > 0 {
		fmt.Fprintf(&b, ", %v measured", l.Duration)
	}
	if l.Requests > 0 {
		fmt.Fprintf(&b, ", at most %d requests", l.Requests)
	}
	return b.String() + s.rewriteNote()
}

// rewriteNote says, for a scenario with rewrite_host, where the URLs of its files go.
func (s Scenario) rewriteNote() string {
	if n := s.Plan.Traffic.RewriteNote("each target"); n != "" {
		return "; " + n
	}
	return ""
}

// RewriteNote says where the URLs of the target and setup files go when RewriteHost is set:
// "the URLs of t.http and setup.http go to the scheme and host of TO (rewrite_host)"; "" when it
// is not.
func (t Traffic) RewriteNote(to string) string {
	if !t.RewriteHost {
		return ""
	}
	files := slices.DeleteFunc([]string{t.Targets, t.Setup}, func(f string) bool { return f == "" })
	return fmt.Sprintf("the URLs of %s go to the scheme and host of %s (rewrite_host)", strings.Join(files, " and "), to)
}
