package cli

import (
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/rpcbench/rpcbench/engine"
	"github.com/rpcbench/rpcbench/k8s/frame"
	"github.com/rpcbench/rpcbench/output"
	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/report"
	"github.com/rpcbench/rpcbench/runner"
	"github.com/rpcbench/rpcbench/summary"
)

func endpointNames(np plan.Plan) []string {
	names := make([]string, len(np.Endpoints))
	for i, ep := range np.Endpoints {
		names[i] = ep.Name
	}
	return names
}

// writeOutput writes a file the user named (output.WriteFile: a half-written file never
// replaces a good one).
func writeOutput(path string, write func(io.Writer) error) error {
	return output.WriteFile(path, write)
}

// checkOutput says, before a run, whether path can be written: its directory exists and takes new
// files, it is no directory, and an existing regular file is writable. Devices and pipes are left
// to the write.
func checkOutput(flag, path string) error {
	if path == "" || path == "-" {
		return nil
	}
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.IsDir():
		return usagef("%s %s is a directory: want a file", flag, path)
	case err == nil && fi.Mode().IsRegular():
		fh, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return usagef("%s: cannot write %s: %v", flag, path, errors.Unwrap(err))
		}
		fh.Close()
		return nil
	case err == nil:
		return nil
	}
	dir := filepath.Dir(path)
	if di, err := os.Stat(dir); err != nil || !di.IsDir() {
		return usagef("%s %s: the directory %s does not exist", flag, path, dir)
	}
	probe, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return usagef("%s: cannot create a file in %s: %v", flag, dir, errors.Unwrap(err))
	}
	probe.Close()
	os.Remove(probe.Name())
	return nil
}

// reportFormats are the formats a run or a result file renders to; hlog needs the intervals and
// only `report` renders it.
var reportFormats = []string{"text", "json", "csv", "markdown", "hgrm", "hlog", "html", "vegeta"}

// runFormats are the formats `run` prints or saves its report in.
var runFormats = report.Formats

// outputFlags are the flags of `run` that save the run beyond its report.
type outputFlags struct {
	outs []string // the --out values: a file, and TYPE=URL live outputs (see liveFlags.outputs)
	out  string   // the result file among them
	live string   // --live: JSON lines per interval, "-" for stdout
	html string   // --html: the HTML report
	log  string   // --log: a CSV row per request
	// outLog prints the result file on stdout after the report, framed (frame.Write), for a
	// pod's log to carry it.
	outLog bool
	pcts   percentilesFlag
	// showSecrets writes secrets (Authorization and the like, URL user-info, key-like query
	// values) into reports, result files and live lines as they are, instead of REDACTED.
	showSecrets bool
	// stageRamps reports the ramps of --stages among the per-stage figures too.
	stageRamps bool
	// requireValid exits ExitInvalid when the run's validity verdict is invalid.
	requireValid bool
}

func (f *outputFlags) define(fs *flag.FlagSet) {
	fs.Var(appended(&f.outs, asIs), "out", "write the result file to `FILE` as the run goes (render it later with rpcbench report); run also takes TYPE=URL for a live output: prometheus-rw=URL, otlp=URL, otlp-grpc=HOST:PORT (repeatable)")
	fs.StringVar(&f.live, "live", "", "stream one JSON line per interval to `FILE` (- for stdout; the report then goes to stderr)")
	fs.StringVar(&f.html, "html", "", "also save the HTML report to `FILE`")
	fs.BoolVar(&f.showSecrets, "show-secrets", false, "write secret headers (Authorization, Cookie, *key*, *token*…), URL passwords and key-like query values into reports and files as they are, instead of REDACTED")
	f.pcts.define(fs)
	defineStageRamps(fs, &f.stageRamps)
	defineRequestLog(fs, &f.log)
	fs.BoolVar(&f.requireValid, "require-valid", false, "exit 5 when the run is invalid: the generator fell behind or saturated its CPU, another process took its CPU while it fell behind, a GC pause, too few samples for the percentiles shown, ports or files ran out, the target answered from a process not monitored (the report's first line says which)")
}

// split takes the --out values apart: the result file (f.out; at most one) and the live outputs of
// the TYPE=URL values and --metrics-addr (see liveFlags.outputs).
func (f *outputFlags) split(live *liveFlags, e *env) (output.Set, error) {
	files, series, err := live.outputs(f.outs, e.cut, Version())
	if err != nil {
		return nil, err
	}
	if len(files) > 1 {
		return nil, usagef("--out %s and --out %s: one result file per run (TYPE=URL values name live outputs)", files[0], files[1])
	}
	if len(files) == 1 {
		f.out = files[0]
	}
	return series.set(e.stderr), nil
}

// outputs gathers where a run's figures go, for execute.
func (f *outputFlags) outputs(format, reportFile string, quiet bool, args []string) outputs {
	command := append([]string{"run"}, args...)
	if !f.showSecrets {
		command = plan.RedactArgs(command)
	}
	return outputs{format: format, reportFile: reportFile, quiet: quiet, out: f.out, outLog: f.outLog, live: f.live, html: f.html, log: f.log,
		command: command, tables: report.Options{Percentiles: f.pcts.v}, showSecrets: f.showSecrets, stageRamps: f.stageRamps,
		requireValid: f.requireValid}
}

// outputs says where execute sends a run's figures. The zero value prints the text report and
// saves nothing.
type outputs struct {
	cmdName    string         // the command, for messages; empty: run
	format     string         // report format on stdout
	reportFile string         // the report, in the format its extension names
	quiet      bool           // no progress line
	out        string         // the result file
	outLog     bool           // print the result file framed on stdout after the report
	noVerdict  bool           // exit 0 after a completed run whatever its SLO
	live       string         // JSON lines per interval; "-" for stdout
	html       string         // the HTML report
	log        string         // the per-request CSV log
	tables     report.Options // the columns of the reports' tables
	command    []string       // the command line, for the result file's header
	// showSecrets writes the plan as it is; otherwise its secrets are REDACTED in every output.
	showSecrets bool
	// stageRamps puts the ramps of a load with stages among the per-stage figures.
	stageRamps bool
	monitor    *runner.Watching  // what to watch beside the load; nil: the generator itself
	profile    *runner.Profiling // the target's profiles over the measured window; nil: none
	// engine are options of the run beyond the plan (--start-at).
	engine []engine.Option
	// requireValid exits ExitInvalid after a completed run that its validity verdict finds invalid.
	requireValid bool
	// reword, when set, says a run's failure to start in the command's own words.
	reword func(error) error
	// series are the outputs that send the run's series while it goes (--out TYPE=URL,
	// --metrics-addr).
	series output.Set
}

// cmd is the command whose run this is, for messages: "run" unless cmdName says otherwise.
func (o outputs) cmd() string {
	if o.cmdName != "" {
		return o.cmdName
	}
	return "run"
}

// shown returns the plan as the outputs show it: redacted unless the user asked for the secrets.
func (o outputs) shown(p plan.Plan) plan.Plan { return p.Shown(o.showSecrets) }

// set returns the outputs o asks for, in the order they are written at the end: the result file,
// the live lines, the request log, the report file, the HTML report; and the progress line when
// stdout and stderr are a terminal and nothing else is written on stdout. A request log that is
// another output, or cannot be written, is a usage error.
func (o outputs) set(e *env) (output.Set, error) {
	var set output.Set
	if o.out != "" {
		set = append(set, output.NewResultFile("--out", o.out))
	}
	if o.live != "" {
		set = append(set, output.NewLiveLines("--live", o.live, e.stdout))
	}
	if o.log != "" {
		if err := distinctFiles([]namedFile{{"--log", o.log}, {"--out", o.out}, {"--report-file", o.reportFile}, {"--live", o.live}, {"--html", o.html}}, nil); err != nil {
			return nil, err
		}
		if err := checkOutput("--log", o.log); err != nil {
			return nil, err
		}
		set = append(set, output.NewRequestLogFile("--log", o.log))
	}
	if o.reportFile != "" {
		set = append(set, output.NewReportFile("--report-file", o.reportFile, func(w io.Writer, s *summary.Summary) error {
			return render(w, s, report.FormatForPath(o.reportFile), o.tables)
		}))
	}
	if o.html != "" {
		set = append(set, output.NewReportFile("--html", o.html, func(w io.Writer, s *summary.Summary) error {
			return report.Render(w, []*summary.Summary{s}, "html", o.tables)
		}))
	}
	set = append(set, o.series...)
	// With --live -, stdout is the stream of JSON lines, which the progress line must not break.
	if !o.quiet && o.live != "-" && isTerminal(e.stdout) && isTerminal(e.stderr) {
		set = append(set, output.NewProgress(e.stderr))
	}
	return set, nil
}

// namedFile is a file a flag names; "" and "-" (stdin or stdout) name none.
type namedFile struct{ flag, path string }

// distinctFiles refuses an output that is another output or an input: a run must not write its
// result over its own target file, nor two outputs into one file.
func distinctFiles(outputs, inputs []namedFile) error {
	same := func(a, b string) bool {
		if a == b {
			return true
		}
		aa, err1 := filepath.Abs(a)
		ba, err2 := filepath.Abs(b)
		if err1 == nil && err2 == nil && aa == ba {
			return true
		}
		sa, err1 := os.Stat(a)
		sb, err2 := os.Stat(b)
		return err1 == nil && err2 == nil && os.SameFile(sa, sb)
	}
	for i, o := range outputs {
		if o.path == "" || o.path == "-" {
			continue
		}
		for _, other := range append(slices.Clone(outputs[i+1:]), inputs...) {
			if other.path != "" && other.path != "-" && same(o.path, other.path) {
				return usagef("%s %s is also %s: want a file of its own", o.flag, o.path, other.flag)
			}
		}
	}
	return nil
}

// frameResult prints the result file at path framed (frame.Write) on w.
func frameResult(w io.Writer, path string) error {
	fh, err := os.Open(path)
	if err != nil {
		return err
	}
	defer fh.Close()
	return frame.Write(w, "result.rb", fh)
}
