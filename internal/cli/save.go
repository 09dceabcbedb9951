package cli

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/rpcbench/rpcbench/engine"
	"github.com/rpcbench/rpcbench/k8s/frame"
	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/report"
	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/summary"
)

// resultOut writes a run's result file as the run goes: the header before it starts, an interval
// line at every tick, the trailer at the end (also after an interruption). A write error stops the
// writing; it is reported at the end and the run goes on.
type resultOut struct {
	path string
	fh   *os.File
	w    *result.Writer
	err  error
}

// newResultOut creates path and writes the header of the run of np.
func newResultOut(path string, np plan.Plan, command []string) (*resultOut, error) {
	cfg, err := json.Marshal(np)
	if err != nil {
		return nil, err
	}
	host, _ := os.Hostname()
	h := result.Header{
		Tool: "rpcbench", ToolVersion: Version(), Command: command, Target: summary.Target(np), Endpoints: endpointNames(np),
		Config: cfg, StartedAt: time.Now().UTC(), Warmup: np.Load.Warmup, Planned: plannedLength(np.Load), Host: host,
	}
	fh, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	w, err := result.NewWriter(fh, h)
	if err != nil {
		fh.Close()
		return nil, err
	}
	return &resultOut{path: path, fh: fh, w: w}, nil
}

func (o *resultOut) observe(t *engine.Tick) {
	iv := t.Interval
	if o.err != nil || iv.End <= iv.Start && iv.Sent() == 0 {
		return // nothing measured yet (warm-up)
	}
	o.err = o.w.WriteInterval(iv)
}

// finish writes the trailer from res and closes the file.
func (o *resultOut) finish(res *engine.Result) error {
	if o.err == nil {
		t := res.Trailer
		t.MeasuredStart = t.MeasuredStart.UTC()
		o.err = o.w.Close(t)
	}
	if err := o.fh.Close(); o.err == nil {
		o.err = err
	}
	return o.err
}

// liveOut writes one JSON line per interval for dashboards and scripts: the time, the elapsed time,
// whether it is the warm-up or the last line, requests in flight, and for all endpoints together
// and each endpoint the interval's figures (summary.Point: sent, ok, errors, rps, p50/p90/p99/max).
type liveOut struct {
	w     io.Writer
	close func() error
	names []string
	err   error
}

// liveLine is one line of --live.
type liveLine struct {
	Time      time.Time       `json:"time"`
	ElapsedS  float64         `json:"elapsed_s"`
	Warmup    bool            `json:"warmup,omitempty"`
	Final     bool            `json:"final,omitempty"`
	InFlight  int64           `json:"in_flight"`
	Total     summary.Point   `json:"total"`
	Endpoints []summary.Point `json:"endpoints"`
}

func newLiveOut(path string, stdout io.Writer, np plan.Plan) (*liveOut, error) {
	l := &liveOut{w: stdout, close: func() error { return nil }, names: endpointNames(np)}
	if path != "-" {
		fh, err := os.Create(path)
		if err != nil {
			return nil, err
		}
		l.w, l.close = fh, fh.Close
	}
	return l, nil
}

func (l *liveOut) observe(t *engine.Tick) {
	if l.err != nil {
		return
	}
	tl := summary.Timeline{Every: true}
	iv := t.Interval
	line := liveLine{Time: time.Now().UTC(), ElapsedS: t.Elapsed.Seconds(), Warmup: t.Warmup, Final: t.Final, InFlight: t.InFlight}
	if iv.End > iv.Start {
		tl.Add(iv, l.names)
		line.Total = tl.Points[0]
		line.Endpoints = tl.Points[1:]
		if len(l.names) == 1 {
			line.Total.Endpoint = ""
			p := tl.Points[0]
			p.Endpoint = l.names[0]
			line.Endpoints = []summary.Point{p}
		}
	}
	if line.Endpoints == nil {
		line.Endpoints = []summary.Point{}
	}
	b, err := json.Marshal(line)
	if err == nil {
		_, err = l.w.Write(append(b, '\n'))
	}
	l.err = err
}

func (l *liveOut) finish() error {
	if err := l.close(); l.err == nil {
		l.err = err
	}
	return l.err
}

func endpointNames(np plan.Plan) []string {
	names := make([]string, len(np.Endpoints))
	for i, ep := range np.Endpoints {
		names[i] = ep.Name
	}
	return names
}

// writeOutput writes an output file the user named. A regular file (or a path that does not exist
// yet) is written through a temporary file in the same directory and renamed over it, so that a
// half-written file never replaces a good one. A symbolic link is followed, and its target written
// the same way; a device or a pipe (/dev/stdout, /dev/null, a FIFO) is written through in place,
// never replaced by a regular file. A write error, e.g. ENOSPC from /dev/full, is returned.
func writeOutput(path string, write func(io.Writer) error) error {
	fi, err := os.Lstat(path)
	if err == nil && fi.Mode()&os.ModeSymlink != 0 {
		target, err := filepath.EvalSymlinks(path)
		if err != nil {
			return writeThrough(path, write) // a dangling link: create its target
		}
		path = target
		fi, err = os.Lstat(path)
		if err != nil {
			return fmt.Errorf("cannot write %s: %w", path, errors.Unwrap(err))
		}
	}
	if err == nil && fi.IsDir() {
		return fmt.Errorf("cannot write %s: it is a directory", path)
	}
	if err == nil && !fi.Mode().IsRegular() {
		return writeThrough(path, write)
	}
	return writeAtomic(path, write)
}

// writeThrough writes path in place (truncating it), as a shell redirection would.
func writeThrough(path string, write func(io.Writer) error) error {
	fh, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, errors.Unwrap(err))
	}
	bw := bufio.NewWriter(fh)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	return err
}

// writeAtomic writes a file through a temporary file in the same directory, so that a half-written
// file never replaces a good one. Use writeOutput for paths the user names.
func writeAtomic(path string, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, errors.Unwrap(err))
	}
	defer os.Remove(tmp.Name())
	bw := bufio.NewWriter(tmp)
	if err := write(bw); err != nil {
		tmp.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		tmp.Close()
		return err
	}
	// CreateTemp makes the file private; a report is as readable as a file the shell would make
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
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
var reportFormats = []string{"text", "json", "csv", "markdown", "hgrm", "hlog", "html"}

// runFormats are the formats `run` prints or saves its report in.
var runFormats = report.Formats

// outputFlags are the flags of `run` that save the run beyond its report.
type outputFlags struct {
	out  string // --out: the result file
	live string // --live: JSON lines per interval, "-" for stdout
	html string // --html: the HTML report
	log  string // --log: a CSV row per request
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
	fs.StringVar(&f.out, "out", "", "write the result file to `FILE` as the run goes (render it later with rpcbench report)")
	fs.StringVar(&f.live, "live", "", "stream one JSON line per interval to `FILE` (- for stdout; the report then goes to stderr)")
	fs.StringVar(&f.html, "html", "", "also save the HTML report to `FILE`")
	fs.BoolVar(&f.showSecrets, "show-secrets", false, "write secret headers (Authorization, Cookie, *key*, *token*…), URL passwords and key-like query values into reports and files as they are, instead of REDACTED")
	f.pcts.define(fs)
	defineStageRamps(fs, &f.stageRamps)
	defineRequestLog(fs, &f.log)
	fs.BoolVar(&f.requireValid, "require-valid", false, "exit 5 when the run is invalid: the generator fell behind or saturated its CPU, another process took its CPU while it fell behind, a GC pause, too few samples for the percentiles shown, ports or files ran out, the target answered from a process not monitored (the report's first line says which)")
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
	monitor    *monitorRun // what to watch beside the load; nil: the generator itself
	profile    *profileRun // the target's profiles over the measured window; nil: none
	// engine are options of the run beyond the plan (--start-at).
	engine []engine.Option
	// requireValid exits ExitInvalid after a completed run that its validity verdict finds invalid.
	requireValid bool
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

// saving holds the files a run writes as it goes.
type saving struct {
	o    outputs
	res  *resultOut
	live *liveOut
	log  *requestLogOut
}

// start opens the files o asks for before the run.
func (o outputs) start(e *env, np plan.Plan) (*saving, error) {
	s := &saving{o: o}
	if o.out != "" {
		r, err := newResultOut(o.out, o.shown(np), o.command)
		if err != nil {
			return nil, fmt.Errorf("--out: %w", err)
		}
		s.res = r
	}
	if o.live != "" {
		l, err := newLiveOut(o.live, e.stdout, o.shown(np))
		if err != nil {
			s.abandon()
			return nil, fmt.Errorf("--live: %w", err)
		}
		s.live = l
	}
	l, err := newRequestLogOut(o, np)
	if err != nil {
		s.abandon()
		return nil, err
	}
	s.log = l
	return s, nil
}

// options returns the observers that write the files during the run.
func (s *saving) options() []engine.Option {
	var opts []engine.Option
	if s.res != nil {
		opts = append(opts, engine.WithObserver(s.res.observe))
	}
	if s.live != nil {
		opts = append(opts, engine.WithObserver(s.live.observe))
	}
	return append(opts, s.log.options()...)
}

// abandon closes the files of a run that could not start, and removes the result file, which holds
// no run.
func (s *saving) abandon() {
	if s.res != nil {
		s.res.fh.Close()
		if fi, err := os.Lstat(s.res.path); err == nil && fi.Mode().IsRegular() {
			os.Remove(s.res.path) // never a device, a pipe or a link the user named
		}
	}
	if s.live != nil {
		s.live.finish()
	}
	s.log.finish() //nolint:errcheck // a run that could not start: the log holds its header only
}

// finish completes the files after the run and saves the HTML report; it reports each failure and
// returns false if there was one.
func (s *saving) finish(e *env, res *engine.Result, sum *summary.Summary) bool {
	ok := true
	check := func(flag string, err error) {
		if err != nil {
			fmt.Fprintf(e.stderr, "rpcbench run: %s: %v\n", flag, err)
			ok = false
		}
	}
	if s.res != nil {
		s.res.writeResources(sum)
		check("--out", s.res.finish(res))
	}
	if s.live != nil {
		check("--live", s.live.finish())
	}
	check("--log", s.log.finish())
	if s.o.html != "" {
		check("--html", writeOutput(s.o.html, func(w io.Writer) error { return report.Render(w, []*summary.Summary{sum}, "html", s.o.tables) }))
	}
	return ok
}

// plannedLength is the planned length of a load's measured part: its duration, or its stages'
// total; 0 when it ends on a count.
func plannedLength(l plan.Load) time.Duration {
	if len(l.Stages) == 0 {
		return l.Duration
	}
	var d time.Duration
	for _, s := range l.Stages {
		d += s.Duration
	}
	return d
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
