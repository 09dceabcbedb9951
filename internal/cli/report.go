package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/report"
	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/schedule"
	"github.com/rpcbench/rpcbench/summary"
)

func init() {
	register(command{name: "report", summary: "render result files (--out of run) as text, json, csv, markdown, hgrm, hlog, html or vegeta", run: runReport})
}

const reportExamples = `  rpcbench report run.rb                                   the report printed at the end of the run
  rpcbench report --format json run.rb                     the JSON report
  rpcbench report --format csv -o series.csv run.rb        the time series, one row per interval and endpoint
  rpcbench report --format markdown before.rb after.rb     one table, the runs side by side with ratios
  rpcbench report --label before --label after a.rb b.rb   both runs, then the second against the first, per endpoint too
  rpcbench report --format html -o report.html a.rb b.rb   one self-contained page, A vs B
  rpcbench report --merge host1.rb host2.rb                add up one run spread over machines (run at the same time)
  rpcbench report --percentiles 50,95,99,99.9,99.99 run.rb  latency columns of the endpoint tables (default 50,90,95,99,99.9)
  rpcbench report --stats p50,p95,mean,stdev,requests,rps a.rb b.rb  the figures of the side-by-side tables
  rpcbench report --format hgrm run.rb                     HdrHistogram's percentile distribution (values in ms)
  rpcbench report --format hlog -o run.hlog run.rb         HdrHistogram's interval log
  rpcbench report --format vegeta run.rb                   vegeta's text report layout (latencies: the service time)
  rpcbench report --slo 'p99<50ms,errors<0.1%' run.rb      judge a saved run; exit 1 when it misses an objective
  rpcbench report --stage-ramps --format csv steps.rb      per-stage rows (of a run with --stages), the ramps' too`

// loaded is one run read from its result file(s).
type loaded struct {
	label string
	file  *result.File
	sum   *summary.Summary
}

func runReport(ctx context.Context, e *env, args []string) int {
	if code, ok := reportGoBench(e, args); ok { // go test -bench output: report_gobench.go
		return code
	}
	fs := newFlagSet(e, "report", "report [flags] FILE…\n\nRender result files written by `rpcbench run --out FILE`. Several files are shown side by side\nand compared with the first (text, json, csv, markdown, html), or added up with --merge.\nFiles of `go test -bench` output are summarised and compared as benchstat does instead.", reportExamples+goBenchExamples)
	new(goBenchFlags).define(fs) // listed in the help; reportGoBench reads them
	format, out, merge, force := "text", "", false, false
	fs.Var(choiceFlag{&format, reportFormats}, "format", "output `format`: "+strings.Join(reportFormats, ", "))
	fs.StringVar(&out, "o", "", "write to `FILE` instead of stdout")
	var pcts percentilesFlag
	pcts.define(fs)
	var stats statsFlag
	stats.define(fs)
	fs.BoolVar(&merge, "merge", false, "add the files up into one run (intervals, counters and histograms): the parts of a run made at the same time by several machines, or the segments of one plan")
	fs.BoolVar(&force, "force", false, "render all the same: files whose figures contradict each other (under a warning), and with --merge runs of different targets, models or endpoints that ran at the same time (never one run after another)")
	var labels []string
	fs.Var(appended(&labels, runLabel), "label", "name the runs `NAME` instead of by their file names (repeatable: one per file, in order; one with --merge)")
	var slo plan.SLO
	defineSLO(fs, &slo)
	var ramps, showSecrets bool
	defineStageRamps(fs, &ramps)
	fs.BoolVar(&showSecrets, "show-secrets", false, "write the secrets a result file holds (one written by run --show-secrets) as they are, instead of REDACTED")
	files, code, done := parseArgs(e, fs, args)
	if done {
		return code
	}
	if len(files) == 0 {
		fmt.Fprintln(e.stderr, "rpcbench report: want at least one result FILE\n(see: rpcbench report --help)")
		return ExitUsage
	}
	if err := checkLabels(labels, len(files), merge); err != nil {
		return fail(e, "report", err, ExitUsage)
	}
	if (format == "hgrm" || format == "hlog" || format == "vegeta") && len(files) > 1 && !merge {
		return fail(e, "report", usagef("--format %s renders one run; give one file, or several with --merge", format), ExitUsage)
	}
	inputs := make([]namedFile, len(files))
	for i, f := range files {
		inputs[i] = namedFile{"a result file to read", f}
	}
	if err := distinctFiles([]namedFile{{"-o", out}}, inputs); err != nil {
		return fail(e, "report", err, ExitUsage)
	}
	if err := checkOutput("-o", out); err != nil {
		return fail(e, "report", err, ExitUsage)
	}
	var segs *segmentSet
	if merge {
		if err := checkMergeable(files, force); err != nil {
			return fail(e, "report", err, ExitUsage)
		}
		var err error
		if segs, err = checkSegments(files); err != nil {
			return fail(e, "report", err, ExitUsage)
		}
	}
	runs, err := loadRuns(files, merge, ramps, showSecrets)
	if err != nil {
		return fail(e, "report", err, ExitUsage)
	}
	if err := checkConsistent(e, "report", runs, force); err != nil {
		return fail(e, "report", err, ExitUsage)
	}
	if merge && segs == nil {
		if err := checkTogether(runs[0].file.Parts); err != nil {
			return fail(e, "report", err, ExitUsage)
		}
	}
	if segs != nil {
		runs[0].sum.Notes = append(runs[0].sum.Notes, segs.note())
		if len(segs.missing) > 0 {
			fmt.Fprintf(e.stderr, "rpcbench report: %s\n", segs.note())
		}
	}
	for i := range labels {
		runs[i].label = labels[i]
	}
	for _, r := range runs {
		if r.file.CutShort() {
			fmt.Fprintf(e.stderr, "rpcbench report: %s was cut short (no trailer: the run was killed before it finished the file); showing its %d complete intervals\n", r.label, r.file.Intervals)
		}
	}
	judged := rejudge(e.stderr, runs, slo)
	write := func(w io.Writer) error {
		if format == "hlog" {
			return writeHLog(w, files, runs[0])
		}
		sums := make([]*summary.Summary, len(runs))
		names := make([]string, len(runs))
		for i, r := range runs {
			sums[i], names[i] = r.sum, r.label
		}
		return report.Render(w, sums, format, report.Options{Percentiles: pcts.v, Stats: stats.v, Labels: names})
	}
	if out == "" {
		err = write(e.stdout)
	} else {
		err = writeOutput(out, write)
	}
	if err != nil {
		var fe *report.FormatError
		if errors.As(err, &fe) {
			return fail(e, "report", usagef("--format %s: %s", fe.Format, fe.Reason), ExitUsage)
		}
		return fail(e, "report", fmt.Errorf("writing the report: %w", err), ExitCannotStart)
	}
	return judged
}

// runLabel reads one --label: a name, not empty.
func runLabel(s string) (string, error) {
	if strings.TrimSpace(s) == "" {
		return "", errors.New("want a name for a run, got an empty one")
	}
	return s, nil
}

// checkLabels says whether labels name the runs: one per file, or one for the run --merge makes.
func checkLabels(labels []string, files int, merge bool) error {
	switch {
	case len(labels) == 0:
		return nil
	case merge && len(labels) != 1:
		return usagef("--label: got %d names; --merge makes one run: give one --label", len(labels))
	case !merge && len(labels) != files:
		return usagef("--label: got %d names for %d files; give one --label per file, in the order of the files", len(labels), files)
	}
	return nil
}

// mergeLoads sets l, the first file's load, to the load of the files together, so that the header of
// a merged report describes the merged run: rates, connections, counts and stage targets add up
// (stages only when every file has the same stage lengths).
func mergeLoads(l *plan.Load, files []string) error {
	if l.Segment != "" {
		l.Segment, l.SegmentSequence = "", "" // each file's plan is the whole run's
		return nil
	}
	for _, path := range files[1:] {
		o, err := readLoad(path)
		if err != nil {
			return err
		}
		l.Rate += o.Rate
		l.Connections += o.Connections
		l.Requests += o.Requests
		same := len(o.Stages) == len(l.Stages)
		for i := 0; same && i < len(o.Stages); i++ {
			same = o.Stages[i].Duration == l.Stages[i].Duration
		}
		if same {
			l.Stages = append([]schedule.Stage(nil), l.Stages...)
			for i := range o.Stages {
				l.Stages[i].Target += o.Stages[i].Target
			}
		}
	}
	return nil
}

// checkMergeable refuses to add up files that are not parts of one run: the same file twice
// always, and without force files of another target, load model or set of endpoints than the
// first's.
func checkMergeable(files []string, force bool) error {
	seen := make([]os.FileInfo, 0, len(files))
	var first plan.Plan
	var firstTarget string
	for i, path := range files {
		fi, err := os.Stat(path)
		if err != nil {
			return err
		}
		for k, o := range seen {
			if os.SameFile(fi, o) {
				return usagef("--merge: %s and %s are the same file; a run's part is added up once", files[k], path)
			}
		}
		seen = append(seen, fi)
		h, p, err := readHeader(path)
		if err != nil {
			return err
		}
		p = p.Normalized()
		if i == 0 {
			first, firstTarget = p, h.Target
			continue
		}
		if force {
			continue
		}
		var what string
		switch {
		case h.Target != firstTarget:
			what = fmt.Sprintf("target %s, where %s has %s", plan.RedactURL(h.Target), files[0], plan.RedactURL(firstTarget))
		case p.Load.Model != first.Load.Model:
			what = fmt.Sprintf("the %s model, where %s has the %s model", p.Load.Model, files[0], first.Load.Model)
		case !sameEndpoints(p.Endpoints, first.Endpoints):
			what = fmt.Sprintf("other endpoints than %s", files[0])
		default:
			continue
		}
		return usagef("--merge: %s has %s: merging adds up parts of one run; give --force to add them up all the same", path, what)
	}
	return nil
}

// checkTogether refuses to add up whole runs (not execution segments of one plan) that did not run
// at the same time: --merge makes one run of the load several generators made together, and two
// runs one after the other never made their added-up load (1000/s, then 2000/s, is not 3000/s).
// The files must share an instant of their measured parts; --force does not lift this.
func checkTogether(parts []result.Part) error {
	if len(parts) < 2 {
		return nil
	}
	last, first := 0, 0 // the part that started last, and the one that ended first
	for i, p := range parts {
		if p.MeasuredStart.After(parts[last].MeasuredStart) {
			last = i
		}
		if p.MeasuredStart.Add(p.Elapsed).Before(parts[first].MeasuredStart.Add(parts[first].Elapsed)) {
			first = i
		}
	}
	end := parts[first].MeasuredStart.Add(parts[first].Elapsed)
	if parts[last].MeasuredStart.Before(end) {
		return nil
	}
	span := func(p result.Part) string {
		return fmt.Sprintf("%s ran %s–%s", p.Path, p.MeasuredStart.UTC().Format("15:04:05.000"), p.MeasuredStart.Add(p.Elapsed).UTC().Format("15:04:05.000 UTC"))
	}
	x, y := parts[first].Path, parts[last].Path
	return usagef("--merge: %s and %s, one after the other: --merge adds up the parts of one run that several generators made at the same time "+
		"(runs started together, or the segments of one plan: --segment K/N --start-at TIME); to compare the runs: rpcbench compare %s %s",
		span(parts[first]), span(parts[last]), x, y)
}

// sameEndpoints reports whether two plans send the same kinds of request: names, methods and URLs.
func sameEndpoints(a, b []plan.Endpoint) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || a[i].Method != b[i].Method || a[i].URL != b[i].URL {
			return false
		}
	}
	return true
}

// readLoad reads the load of the plan in a result file's header.
func readLoad(path string) (plan.Load, error) {
	_, p, err := readHeader(path)
	return p.Load, err
}

// readHeader reads a result file's header and the plan in it.
func readHeader(path string) (result.Header, plan.Plan, error) {
	var p plan.Plan
	f, err := os.Open(path)
	if err != nil {
		return result.Header{}, p, err
	}
	defer f.Close()
	fr, err := result.NewReader(f, path)
	if err != nil {
		return result.Header{}, p, err
	}
	h := fr.Header()
	if len(h.Config) > 0 {
		if err := json.Unmarshal(h.Config, &p); err != nil {
			return h, p, fmt.Errorf("%s: the header's config is not a plan: %v", path, err)
		}
	}
	return h, p, nil
}

// loadRuns reads each file into a run, or all of them into one with merge.
// Their plans are shown as plan.Plan.Shown(showSecrets) shows them.
func loadRuns(files []string, merge, ramps, showSecrets bool) ([]loaded, error) {
	if merge {
		var tl summary.Timeline
		var st stagesOfFile
		f, err := result.ReadMerged(files, func(f *result.File, iv *result.Interval) error {
			tl.Add(iv, f.Header.Endpoints)
			st.add(f, iv, ramps)
			return nil
		})
		if err != nil {
			return nil, err
		}
		s, err := summary.OfFile(f, tl.Points, showSecrets)
		if err != nil {
			return nil, err
		}
		s.Stages = st.Results()
		s.SetStageResources()
		if err := mergeLoads(&s.Config.Load, files); err != nil {
			return nil, err
		}
		s.Notes = append(s.Notes, fmt.Sprintf("merged from %d result files: %s", len(files), strings.Join(files, ", ")))
		return []loaded{{label: "merged", file: f, sum: s}}, nil
	}
	var runs []loaded
	for _, path := range files {
		var tl summary.Timeline
		var st stagesOfFile
		f, err := result.ReadFile(path, func(f *result.File, iv *result.Interval) error {
			tl.Add(iv, f.Header.Endpoints)
			st.add(f, iv, ramps)
			return nil
		})
		if err != nil {
			return nil, err
		}
		s, err := summary.OfFile(f, tl.Points, showSecrets)
		if err != nil {
			return nil, err
		}
		s.Stages = st.Results()
		s.SetStageResources()
		runs = append(runs, loaded{label: filepath.Base(path), file: f, sum: s})
	}
	// runs of the same name in different folders (a/run.rb, b/run.rb) are labelled by their paths
	seen := map[string]int{}
	for _, r := range runs {
		seen[r.label]++
	}
	for i := range runs {
		if seen[runs[i].label] > 1 {
			runs[i].label = files[i]
		}
	}
	return runs, nil
}

// checkConsistent refuses runs read from result files whose figures contradict each other
// (result.File.Consistent); with force it renders them all the same, with the contradictions as
// warnings in the report and on stderr.
func checkConsistent(e *env, cmd string, runs []loaded, force bool) error {
	for _, r := range runs {
		err := r.file.Consistent()
		if err == nil {
			continue
		}
		if !force {
			return usagef("%v; give --force to render it all the same, under a warning", err)
		}
		f := r.file
		fmt.Fprintf(e.stderr, "rpcbench %s: warning: %s: %d contradictions in its figures; rendered because of --force, with them as warnings\n", cmd, r.label, f.ContradictionCount)
		for _, c := range f.Contradictions {
			r.sum.Warnings = append(r.sum.Warnings, "a result file of this run contradicts itself (rendered only because of --force): "+c)
		}
		if n := f.ContradictionCount - len(f.Contradictions); n > 0 {
			r.sum.Warnings = append(r.sum.Warnings, fmt.Sprintf("and %d more contradictions", n))
		}
	}
	return nil
}

// writeHLog writes the one run of files (merged when there are several) as an HdrHistogram
// interval log. It reads the files a second time, now that the run's measured start is known.
func writeHLog(w io.Writer, files []string, run loaded) error {
	names := run.file.Header.Endpoints
	start := run.file.Run().MeasuredStart
	l, err := report.NewHLog(w, start, names, fmt.Sprintf("rpcbench %s: %s, latency in ns from the intended send time", run.file.Header.ToolVersion, run.sum.Target))
	if err != nil {
		return err
	}
	for _, m := range run.sum.Warnings {
		if err := l.Comment("WARNING: " + m); err != nil {
			return err
		}
	}
	visit := func(_ *result.File, iv *result.Interval) error { return l.Interval(iv) }
	if len(files) > 1 {
		_, err = result.ReadMerged(files, visit)
	} else {
		_, err = result.ReadFile(files[0], visit)
	}
	return err
}
