package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rpcbench/rpcbench/bench"
	"github.com/rpcbench/rpcbench/output"
	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/plan/planfile"
	"github.com/rpcbench/rpcbench/report"
	"github.com/rpcbench/rpcbench/summary"
	"github.com/rpcbench/rpcbench/transport"
)

func init() {
	register(command{name: "bench", summary: "run a plan file: every scenario against every target, compared side by side", run: runBench})
}

const benchExamples = `  rpcbench bench examples/compare-lab.yaml                 run it; results in compare-lab-DATE-TIME/
  rpcbench bench --dry-run examples/compare-lab.yaml       say what would run and for how long, send nothing
  rpcbench bench --out-dir runs/today --format markdown plan.yaml`

type benchFlags struct {
	outDir      string
	dryRun      bool
	format      string
	quiet       bool
	showSecrets bool
	pcts        percentilesFlag
	stats       statsFlag
	outs        []string // --out TYPE=URL: the live outputs
	live        liveFlags
}

func runBench(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "bench", "bench [flags] PLAN.yaml\n\nRun every scenario of a plan file against every target, the targets taking turns step by step;\nwrite one result file per scenario, target and step into a run directory, and print the targets\nside by side (see docs/plan-files.md).", benchExamples)
	f := &benchFlags{format: "text"}
	fs.StringVar(&f.outDir, "out-dir", "", "the run `directory`: result files, the targets' logs, the commands' output and the reports (default: PLAN-DATE-TIME in the working directory)")
	fs.BoolVar(&f.dryRun, "dry-run", false, "print what would run, in order, and for how long; start and send nothing")
	fs.Var(choiceFlag{&f.format, bench.Formats}, "format", "report `format` on stdout: "+strings.Join(bench.Formats, ", "))
	fs.BoolVar(&f.quiet, "quiet", false, "no progress lines on stderr")
	fs.BoolVar(&f.showSecrets, "show-secrets", false, "write secret headers and URL passwords into reports and result files as they are, instead of REDACTED")
	f.pcts.define(fs)
	f.stats.define(fs)
	fs.Var(appended(&f.outs, asIs), "out", "send every run's series while it goes to a live output, as the plan file's outputs: key does: prometheus-rw=URL, otlp=URL, otlp-grpc=HOST:PORT (repeatable); the result files go into --out-dir")
	f.live.define(fs)
	pos, code, done := parseArgs(e, fs, args)
	if done {
		return code
	}
	if len(pos) != 1 {
		fmt.Fprintf(e.stderr, "rpcbench bench: want one plan file, got %d arguments\n(see: rpcbench bench --help)\n", len(pos))
		return ExitUsage
	}
	b, err := readBenchFile(pos[0])
	if err != nil {
		return fail(e, "bench", err, ExitUsage)
	}
	if err := benchDiffs(e, b); err != nil {
		return fail(e, "bench", err, ExitUsage)
	}
	if err := benchSubscriptions(b); err != nil {
		return fail(e, "bench", err, ExitUsage)
	}
	live, err := f.liveOutputs(b, e.cut)
	if err != nil {
		return fail(e, "bench", err, ExitUsage)
	}
	checked, err := bench.Check(b, plan.OSFiles(e.stdin))
	if err != nil {
		return fail(e, "bench", usageError{strings.ReplaceAll(err.Error(), "plan: ", "")}, ExitUsage)
	}
	for _, sc := range b.Scenarios { // the UDP buffers that HTTP/3 wants, said once
		if !sc.IsCommand() && sc.Plan.ProtocolOf() == transport.H3 {
			(&h3Flags{}).say(e, "bench", transport.H3)
			break
		}
	}
	if f.dryRun {
		dryRun(e.stdout, checked, f.showSecrets)
		return ExitOK
	}
	dir := f.outDir
	if dir == "" {
		base := strings.TrimSuffix(filepath.Base(b.File), filepath.Ext(b.File))
		dir = base + "-" + time.Now().Format("20060102-150405")
	}
	if err := makeRunDir(dir); err != nil {
		return fail(e, "bench", err, ExitUsage)
	}
	var writeErrs []error
	command := append([]string{"bench"}, args...)
	if !f.showSecrets {
		command = plan.RedactArgs(command)
	}
	opts := bench.Options{
		LogDir:      dir,
		ProfileDir:  dir,
		Cut:         e.cut,
		Version:     Version(),
		ShowSecrets: f.showSecrets,
		Command:     command,
		Outputs: func(id bench.RunID) output.Set {
			set := output.Set{output.NewResultFile(resultName(id), filepath.Join(dir, resultName(id)))}
			if slices.Contains(b.Reports, plan.ReportPlot) && id.CapacityStep == 0 {
				set = append(set, output.NewRequestLogFile(logName(id), filepath.Join(dir, logName(id))))
			}
			return append(set, live.set(prefixed{w: e.stderr, prefix: "rpcbench bench: " + id.String() + ": "})...)
		},
		OutputErrs: func(_ bench.RunID, err error) { writeErrs = append(writeErrs, err) },
	}
	if !f.quiet {
		opts.Progress = e.stderr
	}
	fmt.Fprintf(e.stderr, "rpcbench bench: run directory %s\n", dir)
	out := bench.RunChecked(ctx, checked, opts)
	ro := report.Options{Percentiles: f.pcts.v, Stats: f.stats.v}
	code = ExitOK
	if err := bench.Render(e.stdout, out, f.format, ro); err != nil {
		fmt.Fprintf(e.stderr, "rpcbench bench: writing the report: %v\n", err)
		code = ExitCannotStart
	}
	for name, format := range map[string]string{"report.txt": "text", "report.md": "markdown", "report.json": "json", "report.html": "html"} {
		if err := writeOutput(filepath.Join(dir, name), func(w io.Writer) error { return bench.Render(w, out, format, ro) }); err != nil {
			writeErrs = append(writeErrs, err)
		}
	}
	for _, g := range out.Groups() {
		sums, labels := g.Summaries()
		if len(sums) == 0 {
			continue
		}
		name := g.PageName()
		ho := ro
		ho.Labels = labels
		if err := writeOutput(filepath.Join(dir, name), func(w io.Writer) error { return report.Render(w, sums, "html", ho) }); err != nil {
			writeErrs = append(writeErrs, err)
		}
	}
	writeErrs = append(writeErrs, vegetaReports(dir, out)...)
	for _, err := range writeErrs {
		fmt.Fprintf(e.stderr, "rpcbench bench: %v\n", err)
		code = ExitCannotStart
	}
	failures, invalid := out.Failures(), out.Invalid()
	for _, f := range append(slices.Clone(failures), invalid...) {
		fmt.Fprintf(e.stderr, "rpcbench bench: %s\n", f)
	}
	switch {
	case out.Interrupted:
		fmt.Fprintf(e.stderr, "rpcbench bench: interrupted; the report and %s cover what was done until then\n", dir)
		return ExitInterrupted
	case out.TargetErr != nil:
		return ExitCannotStart
	case code != ExitOK:
		return code
	case len(failures) > 0:
		return ExitSLO
	case len(invalid) > 0:
		return ExitInvalid
	}
	return ExitOK
}

// liveOutputs are the live outputs of every run of plan file b: its outputs: key's, then those of
// --out TYPE=URL and --metrics-addr. An --out that names a file is a usage error: the result files
// go into the run directory.
func (f *benchFlags) liveOutputs(b *plan.Bench, cut <-chan struct{}) (liveSet, error) {
	live, err := f.live.fileOutputs(b, Version(), cut)
	if err != nil {
		return nil, err
	}
	files, flags, err := f.live.outputs(f.outs, cut, Version())
	if err != nil {
		return nil, err
	}
	if len(files) > 0 {
		return nil, usagef("--out %s: bench writes a result file per run into --out-dir; --out takes TYPE=URL, TYPE one of %s", files[0], strings.Join(liveTypes, ", "))
	}
	return append(live, flags...), nil
}

// readBenchFile reads a plan file; a problem is a usage error.
func readBenchFile(name string) (*plan.Bench, error) {
	fh, err := os.Open(name)
	if err != nil {
		return nil, usagef("%v", err)
	}
	defer fh.Close()
	b, err := planfile.ReadFile(name, fh)
	if err != nil {
		return nil, usageError{err.Error()}
	}
	return b, nil
}

// makeRunDir creates the run directory, or takes an empty one; one with files in it is refused,
// so that two runs never mix their result files.
func makeRunDir(dir string) error {
	if ents, err := os.ReadDir(dir); err == nil && len(ents) > 0 {
		return usagef("--out-dir %s holds files already: want a new or empty directory", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return usagef("--out-dir: %v", errors.Unwrap(err))
	}
	return nil
}

// resultName names the result file of a run: SCENARIO.TARGET.rb, or SCENARIO.stepN.TARGET.rb.
func resultName(id bench.RunID) string { return id.FileStem() + ".rb" }

// logName names the per-request log of a run (a plan's reports: [plot]): SCENARIO.TARGET.log.csv.
func logName(id bench.RunID) string { return id.FileStem() + ".log.csv" }

// measuredNone reports whether s counts no measured request: none sent, none failed before
// sending (the rows of a per-request log).
func measuredNone(s *summary.Summary) bool { return s.Requests.Sent == 0 && s.Requests.Unsent == 0 }

// vegetaReports writes into dir the files of the plan's reports: (see plan.Bench.Reports): each
// load run's vegeta text report, RUN.vegeta.txt; each scenario step's plot of its runs' requests,
// SCENARIO[.stepN].plot.html, from their per-request logs (a run interrupted or without measured
// requests has none to plot: its empty log is passed over). It returns what it could not write.
func vegetaReports(dir string, out *bench.Outcome) []error {
	var errs []error
	want := out.Bench.Reports
	for _, g := range out.Groups() {
		var runs []report.PlotRun
		for _, m := range g.Runs {
			if m.Summary == nil {
				continue
			}
			if slices.Contains(want, plan.ReportVegeta) {
				name := filepath.Join(dir, m.FileStem()+".vegeta.txt")
				if err := writeOutput(name, func(w io.Writer) error {
					return report.Render(w, []*summary.Summary{m.Summary}, "vegeta", report.Options{})
				}); err != nil {
					errs = append(errs, err)
				}
			}
			if slices.Contains(want, plan.ReportPlot) {
				r, err := readPlotRuns([]string{filepath.Join(dir, logName(m.RunID))}, []string{m.Target})
				if errors.Is(err, report.ErrEmptyLog) && (out.Interrupted || m.Summary.Interrupted || measuredNone(m.Summary)) {
					continue // cut in its warm-up, say: no request to plot, and no fault of the log
				}
				if err != nil {
					errs = append(errs, err)
					continue
				}
				runs = append(runs, r...)
			}
		}
		if len(runs) > 0 {
			name := filepath.Join(dir, strings.TrimSuffix(g.PageName(), ".html")+".plot.html")
			if err := writeOutput(name, func(w io.Writer) error { return report.Plot(w, runs, g.Title(), Version()) }); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errs
}

// dryRun prints the targets and the runs in the order they would go, with their lengths; the
// commands with their secrets REDACTED unless show (--show-secrets).
func dryRun(w io.Writer, c *bench.Checked, show bool) {
	b := c.Bench
	var total time.Duration
	runs, unknown := 0, false
	for _, s := range b.Scenarios {
		if s.IsCommand() {
			runs += max(1, s.Repeat) * len(b.Targets)
			unknown = true
			continue
		}
		if s.Replay != nil { // as long as each target's timeline
			for _, t := range b.Targets {
				total += c.Timeline(s.Name, t.Name).End()
				runs++
			}
			continue
		}
		for k := range s.Runs() {
			d, ok := s.Length(k)
			total += d * time.Duration(len(b.Targets))
			runs += len(b.Targets)
			unknown = unknown || !ok
		}
	}
	total = total.Round(time.Millisecond)
	about := "about " + total.String()
	if unknown {
		about = "at least " + total.String() + " (some runs end on a count, a command's exit or a capacity search's answer)"
	}
	fmt.Fprintf(w, "plan %s: %s, %s, %s, %s\n\ntargets:\n", b.File, counted(len(b.Targets), "target"), counted(len(b.Scenarios), "scenario"), counted(runs, "run"), about)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, t := range b.Targets {
		how := "already running"
		if len(t.Command) > 0 {
			how = "started by: " + plan.ShownCommand(t.Command, t.Shell, show)
			if t.Ready != "" {
				how += " (ready when " + plan.ShownURL(t.Ready, show) + " answers)"
			}
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", t.Name, plan.RedactURL(t.URL), how)
	}
	tw.Flush()
	fmt.Fprintln(w, "\nruns, in order:")
	running := map[string][]string{} // the command each started target runs, as the runs go
	for _, t := range b.Targets {
		running[t.Name] = t.Command
	}
	again := func(s plan.Scenario, k int) { // says which targets run k starts again
		for _, t := range b.Targets {
			if want := s.TargetAt(t, k); len(want.Command) > 0 && !slices.Equal(running[t.Name], want.Command) {
				fmt.Fprintf(w, "  target %s started again: %s\n", t.Name, plan.ShownCommand(want.Command, want.Shell, show))
				running[t.Name] = want.Command
			}
		}
	}
	for _, s := range b.Scenarios {
		again(s, 0)
		if s.IsCommand() {
			if len(s.Build) > 0 {
				fmt.Fprintf(w, "  %s build (timed apart): %s\n", s.Name, plan.ShownCommand(s.Build, s.BuildShell, show))
			}
			for i, round := range bench.Rounds(s, b.Targets) {
				for _, t := range round {
					c := bench.CommandResult{Scenario: s.Name, Target: t.Name}
					if s.Repeat > 1 {
						c.Round = i + 1
					}
					fmt.Fprintf(w, "  %s: %s\n", c, s.Describe(0, show))
				}
			}
			continue
		}
		for k := range s.Runs() {
			again(s, k)
			for _, t := range b.Targets {
				id := bench.RunID{Scenario: s.Name, Target: t.Name, Step: k, Steps: s.Runs(), Level: s.StepLabel(k)}
				what := s.Describe(k, show)
				if tl := c.Timeline(s.Name, t.Name); tl != nil {
					what += ": " + bench.DescribeReplay(tl)
				}
				fmt.Fprintf(w, "  %s: %s\n", id, what)
			}
		}
	}
}

// counted says n things: "1 target", "2 targets".
func counted(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
