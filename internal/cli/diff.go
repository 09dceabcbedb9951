package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rpcbench/rpcbench/output"
	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/runner"
	"github.com/rpcbench/rpcbench/schedule"
	"github.com/rpcbench/rpcbench/tools/diff"
	"github.com/rpcbench/rpcbench/tools/jsondiff"
	"github.com/rpcbench/rpcbench/transport"
)

func init() {
	register(command{name: "diff", summary: "send each request to several servers and compare the answers (exit 1 when any differs)", run: runDiff})
}

const diffExamples = `  rpcbench diff --calls examples/calls.jsonl http://127.0.0.1:18545/ http://127.0.0.1:18546/
  rpcbench diff --targets corpus/eth_getBlockByNumber.jsonl --ignore result.timestamp URL_A URL_B
  rpcbench diff --calls examples/calls.jsonl --ignore 'result[*].hash' --unordered result.transactions --null-missing URL_A URL_B
  rpcbench diff --jsonrpc eth_getBalance --params '["0x{{randInt 1 9}}","latest"]' --requests 50 --stop-at-first URL_A URL_B
  rpcbench diff --fixtures examples/fixtures http://127.0.0.1:18545/         replay .io fixtures against one node
  rpcbench diff --calls calls.jsonl --record pairs.jsonl --errors mismatches.jsonl --log requests.csv URL_A URL_B
  rpcbench diff --calls calls.jsonl --rate 200 --connections 8 --format markdown URL_A URL_B
  rpcbench diff --calls calls.jsonl --stages 10s:500,30s:500 --warmup 2s --out diff.rb URL_A URL_B   on the engine's schedule, the run kept
  rpcbench diff --calls calls.jsonl --model closed --connections 16 --duration 30s URL_A URL_B
  rpcbench diff --plan examples/diff/noise.yaml      the diff scenario of a plan file (diff:)
  rpcbench diff --calls examples/calls.jsonl --format html URL_A URL_B > diff.html   one self-contained page
  rpcbench diff --calls calls.jsonl --reference URL_A2 URL_A URL_B     learn the noise from A2, a second instance of A
  rpcbench diff --calls calls.jsonl --pin-block --skip-above-head --tolerance 'result.gasPrice=5%' --rule 'eth_call=error-code-only' URL_A URL_B`

// diffFlags are the flags of `rpcbench diff`.
type diffFlags struct {
	targets, targetsFormat, calls, fixtures string
	method, params                          string
	requests                                int
	headers                                 []transport.Header
	ignore, unordered                       []jsondiff.Pattern
	nullMissing, strictNumbers, keepMsgs    bool
	stopAtFirst, showSecrets                bool
	format, record, errors, log             string
	rate                                    rateFlag
	stages                                  []schedule.Stage
	model                                   string
	duration, warmup                        time.Duration
	grace                                   *time.Duration
	conns                                   int
	timeout                                 time.Duration
	out, live                               string
	quiet                                   bool
	reference                               string
	noiseThreshold                          float64
	tolerance                               []jsondiff.Tolerance
	errorRules                              []string
	pinBlock, skipAboveHead                 bool
	planFile, scenario                      string
}

func (f *diffFlags) define(fs *flag.FlagSet) {
	fs.StringVar(&f.targets, "targets", "", "send the requests of target `FILE` (vegeta's text or JSON-lines format), each once, to every URL; a target's path goes under each URL")
	fs.Var(choiceFlag{&f.targetsFormat, []string{"http", "json"}}, "targets-format", "`format` of --targets: http or json (default: told by the content)")
	fs.StringVar(&f.calls, "calls", "", "send the JSON-RPC calls of `FILE` (as run --calls reads it), each once, to every URL")
	fs.StringVar(&f.method, "jsonrpc", "", "send JSON-RPC calls of `METHOD` (with --params, --requests times)")
	fs.StringVar(&f.params, "params", "", "JSON-RPC params of --jsonrpc: a JSON array or object, may hold templates")
	fs.StringVar(&f.fixtures, "fixtures", "", "replay the .io fixtures of `DIR` (or one file): \">> request\" lines, each compared with its \"<< answer\"; one URL or more")
	fs.IntVar(&f.requests, "requests", 0, "send `N` requests, taking the entries in turn (default: each entry once, unless --duration or --stages; 1 for --jsonrpc)")
	fs.Var(appended(&f.headers, plan.ParseHeader), "H", "request header `\"Name: value\"` (repeatable)")
	fs.Var(appended(&f.ignore, jsondiff.ParsePattern), "ignore", "do not compare the values at `PATH`, e.g. result.timestamp or result.transactions[*].hash (repeatable)")
	fs.Var(appended(&f.unordered, jsondiff.ParsePattern), "unordered", "compare the array at `PATH` in any order, e.g. result.logs (repeatable)")
	fs.BoolVar(&f.nullMissing, "null-missing", false, "a member whose value is null equals a missing member")
	fs.BoolVar(&f.strictNumbers, "strict-numbers", false, "compare numbers as written (default: \"0x1a\", \"26\" and 26 are one integer)")
	fs.BoolVar(&f.keepMsgs, "keep-messages", false, "compare JSON-RPC error messages too (default: codes only)")
	fs.BoolVar(&f.stopAtFirst, "stop-at-first", false, "stop at the first request whose answers differ")
	fs.BoolVar(&f.showSecrets, "show-secrets", false, "write the URLs' passwords and key-like query values into the report, --record, --errors and --log as they are, instead of REDACTED")
	fs.Var(choiceFlag{&f.format, []string{"text", "json", "markdown", "html"}}, "format", "report `format` on stdout: text, json, markdown, html (one self-contained page)")
	fs.StringVar(&f.record, "record", "", "write every request and all its answers to `FILE`, one JSON line each")
	fs.StringVar(&f.errors, "errors", "", "write each request whose answers differ, with the differences, to `FILE`, one JSON line each")
	fs.StringVar(&f.log, "log", "", "write a CSV row per request and server to `FILE`: id, method, where, server, sent, latency_ms, status, class, equal")
	fs.Var(&f.rate, "rate", "open model: start `RATE` requests per second on the engine's schedule (each goes to every URL at once), e.g. 200 or 50/s")
	fs.Var(parsed(&f.stages, plan.ParseStages), "stages", "ramp the rate (or, closed, the connections) from 0 through `D:T,…` (e.g. 10s:500,30s:2000), as run does")
	fs.Var(choiceFlag{&f.model, []string{"open", "closed"}}, "model", "load `model`: open (a rate) or closed (connections); default: open with --rate or --stages")
	fs.Var(positiveDurationFlag{durationFlag{&f.duration}}, "duration", "send for this long, taking the entries in turn round after round (default: each entry once)")
	fs.Var(durationFlag{&f.warmup}, "warmup", "send for this long first, at the first level, outside the comparison and the figures")
	fs.Var(optionalDurationFlag{&f.grace}, "grace", "on Ctrl-C, how long to wait for the requests in flight (default 5s; 0: cut them at once); a second Ctrl-C cuts them at once")
	fs.IntVar(&f.conns, "connections", 0, "closed model: requests in flight at once (`N`, default 1); open: cap of requests in flight (default 1000)")
	fs.StringVar(&f.out, "out", "", "write the run's result file to `FILE` as it goes (rpcbench report renders it): the requests to every URL as one, a latency until every URL answered")
	fs.StringVar(&f.live, "live", "", "stream one JSON line per interval of the run to `FILE` (- for stderr)")
	fs.BoolVar(&f.quiet, "quiet", false, "no live progress line")
	fs.Var(positiveDurationFlag{durationFlag{&f.timeout}}, "timeout", "time limit of one request to one URL (default 30s)")
	fs.StringVar(&f.reference, "reference", "", "send each request also to `URL`, a second instance of the first URL: a path where the two answer differently is noise for its method, reported apart and not counted against the others")
	fs.Var(shareFlag{&f.noiseThreshold}, "noise-threshold", "with --reference, a path is noise when the two instances differ there in this `share` of a method's requests or more: 0.5 or 50% (default: any one)")
	fs.Var(appended(&f.tolerance, jsondiff.ParseTolerance), "tolerance", "let the numbers at `PATH=N` differ by up to N, or PATH=N% by up to N % of the larger, e.g. 'result.gasPrice=5%' (repeatable)")
	fs.Var(appended(&f.errorRules, checkErrorRule), "rule", "compare the JSON-RPC errors of a method by code only or by presence only: `METHOD=RULE`, RULE error-code-only or error-presence-only, METHOD * for all (repeatable)")
	fs.StringVar(&f.planFile, "plan", "", "run the diff scenario of plan `FILE` (a scenario with diff:): its requests and load, to the targets it compares, by its rules")
	fs.StringVar(&f.scenario, "scenario", "", "with --plan, the diff scenario to run (`NAME`; default: the only one)")
	fs.BoolVar(&f.pinBlock, "pin-block", false, "ask the first URL for its head (eth_blockNumber) before each request that takes a block, and send every URL that number in place of \"latest\", \"pending\" or an omitted block")
	fs.BoolVar(&f.skipAboveHead, "skip-above-head", false, "with --pin-block, ask every URL for its head and skip (and count) a request whose block is above one of them")
}

func checkErrorRule(s string) (string, error) {
	_, _, err := diff.ParseErrorRule(s)
	return s, err
}

// shareFlag reads a share from 0 to 1: 0.25 or 25%.
type shareFlag struct{ v *float64 }

func (f shareFlag) String() string {
	if f.v == nil {
		return ""
	}
	return strconv.FormatFloat(*f.v, 'g', -1, 64)
}

func (f shareFlag) Set(s string) error {
	v, err := diff.ParseShare(s)
	*f.v = v
	return err
}

func runDiff(ctx context.Context, e *env, args []string) int {
	f := &diffFlags{format: "text"}
	fs := newFlagSet(e, "diff", "diff [flags] URL_A URL_B [URL…]   (or: diff --fixtures DIR URL…)", diffExamples)
	f.define(fs)
	urls, code, done := parseArgs(e, fs, args)
	if done {
		return code
	}
	if f.planFile != "" {
		return runDiffPlan(ctx, e, fs, f, urls, args)
	}
	if f.scenario != "" {
		return fail(e, "diff", usagef("--scenario goes with --plan"), ExitUsage)
	}
	conns := false
	fs.Visit(func(fl *flag.Flag) { conns = conns || fl.Name == "connections" })
	if conns && f.conns == 0 {
		return fail(e, "diff", usagef("--connections 0: want 1 or more"), ExitUsage)
	}
	corpus, reference, err := f.corpus(e, urls)
	if err != nil {
		return fail(e, "diff", err, ExitUsage)
	}
	cfg, load, err := f.config(urls)
	if err != nil {
		return fail(e, "diff", err, ExitUsage)
	}
	prep, err := diff.Prepare(cfg, corpus, load, plan.OSFiles(e.stdin))
	if err != nil {
		return fail(e, "diff", prepareError(err), ExitUsage)
	}
	files, err := f.openFiles()
	if err != nil {
		return fail(e, "diff", err, ExitUsage)
	}
	return runDiffPrepared(ctx, e, diffRun{cfg: cfg, corpus: corpus, prep: prep, reference: reference, files: files,
		format: f.format, showSecrets: f.showSecrets, noiseThreshold: f.noiseThreshold, outputs: f.outputs(e), args: args})
}

// config maps the flags onto the comparison's Config and the run's load.
func (f *diffFlags) config(urls []string) (diff.Config, plan.Load, error) {
	cfg := diff.Config{
		URLs: urls, StopAtFirst: f.stopAtFirst, Timeout: f.timeout,
		Rules: jsondiff.Options{Ignore: f.ignore, Unordered: f.unordered, NullIsMissing: f.nullMissing,
			StrictNumbers: f.strictNumbers, KeepErrorMessages: f.keepMsgs, Tolerance: f.tolerance},
		Reference: f.reference, PinBlock: f.pinBlock, SkipAboveHead: f.skipAboveHead,
	}
	for _, r := range f.errorRules {
		m, rule, _ := diff.ParseErrorRule(r) // checked when the flag was read
		if cfg.ErrorRules == nil {
			cfg.ErrorRules = map[string]diff.ErrorRule{}
		}
		cfg.ErrorRules[m] = rule
	}
	load := plan.Load{Model: plan.Model(f.model), Rate: f.rate.v, Stages: f.stages, Duration: f.duration,
		Requests: uint64(f.requests), Warmup: f.warmup, Grace: f.grace, Connections: f.conns}
	if f.rate.set && f.rate.v == 0 {
		return cfg, load, usagef("--rate: 0 sends nothing; give a rate above 0, or leave it out to send as fast as --connections allow")
	}
	return cfg, load, nil
}

// outputs are the run's outputs the flags ask for: its result file, its live lines, its progress
// line on a terminal.
func (f *diffFlags) outputs(e *env) output.Set {
	var set output.Set
	if f.out != "" {
		set = append(set, output.NewResultFile("--out", f.out))
	}
	if f.live != "" {
		set = append(set, output.NewLiveLines("--live", f.live, e.stderr))
	}
	if !f.quiet && f.live != "-" && isTerminal(e.stderr) {
		set = append(set, output.NewProgress(e.stderr))
	}
	return set
}

// diffRun is a prepared diff and where its results go.
type diffRun struct {
	cfg            diff.Config
	corpus         diff.Corpus
	prep           *plan.Prepared
	reference      string // what the answers are compared with, as the report names it
	files          *diffFiles
	format         string
	showSecrets    bool
	noiseThreshold float64
	outputs        output.Set
	args           []string
	cmd            string // the command, for messages; empty: diff
}

// runDiffPrepared runs a prepared diff through the runner, writes its files as it goes and its
// report at the end — after an interruption too, with what was compared — and returns the exit
// code: 1 when any answer differed or failed.
func runDiffPrepared(ctx context.Context, e *env, d diffRun) int {
	cmd := d.cmd
	if cmd == "" {
		cmd = "diff"
	}
	d.cfg.ShowSecrets = d.showSecrets // the answers' errors quote the URLs
	// the report and the files name the servers by their URLs, secrets REDACTED
	all := d.cfg.URLs
	if d.cfg.Reference != "" {
		all = append(slices.Clip(all), d.cfg.Reference)
	}
	shown := make([]string, len(all))
	for i, u := range all {
		shown[i] = plan.ShownURL(u, d.showSecrets)
	}
	reference := d.reference
	if reference == d.cfg.URLs[0] {
		reference = shown[0]
	}
	tally := diff.NewTally(shown, reference)
	tally.SetRules(d.cfg.RuleNames())
	if d.cfg.Reference != "" {
		tally.LearnNoise(d.noiseThreshold)
	}
	stopped := ""
	command := append([]string{cmd}, d.args...)
	if !d.showSecrets {
		command = plan.RedactArgs(command)
	}
	ro := runner.Options{Outputs: d.outputs, Cut: e.cut, Version: Version(), ShowSecrets: d.showSecrets, Command: command,
		Warn: func(msg string) { fmt.Fprintf(e.stderr, "rpcbench %s: %s\n", cmd, msg) }}
	run, runErr := diff.Run(ctx, d.cfg, d.prep, d.corpus, ro, func(r *diff.Result) error {
		tally.Add(r)
		if d.cfg.StopAtFirst && !r.Equal() {
			stopped = "first difference"
		}
		return d.files.write(shown, r)
	})
	if cerr := d.files.close(); runErr == nil && cerr != nil {
		runErr = cerr
	}
	if runErr != nil {
		var oe *runner.OutputError
		if errors.As(runErr, &oe) {
			return fail(e, cmd, usageError{runErr.Error()}, ExitUsage)
		}
		return fail(e, cmd, runErr, ExitCannotStart)
	}
	interrupted := run.Result.Interrupted && stopped == ""
	if interrupted {
		stopped = "interrupted"
	}
	rep := tally.Report(stopped)
	rep.Due = int(run.Result.Intended)
	var err error
	switch d.format {
	case "json":
		err = diff.WriteJSON(e.stdout, rep)
	case "markdown":
		err = diff.WriteMarkdown(e.stdout, rep)
	case "html":
		err = diff.WriteHTML(e.stdout, rep)
	default:
		err = diff.WriteText(e.stdout, rep)
	}
	if err != nil {
		return fail(e, cmd, err, ExitCannotStart)
	}
	if run.OutputErr != nil {
		for _, line := range strings.Split(run.OutputErr.Error(), "\n") {
			fmt.Fprintf(e.stderr, "rpcbench %s: %s\n", cmd, line)
		}
		return ExitCannotStart
	}
	switch {
	case interrupted:
		fmt.Fprintf(e.stderr, "rpcbench %s: interrupted; the report covers the requests compared until then\n", cmd)
		return ExitInterrupted
	case rep.Different > 0 || rep.Failed > 0:
		return ExitSLO
	}
	return ExitOK
}

// corpus reads the requests the flags name and checks the URLs against them.
func (f *diffFlags) corpus(e *env, urls []string) (diff.Corpus, string, error) {
	given := 0
	for _, s := range []string{f.targets, f.calls, f.fixtures, f.method} {
		if s != "" {
			given++
		}
	}
	switch {
	case given != 1:
		return diff.Corpus{}, "", usagef("give one of --targets FILE, --calls FILE, --jsonrpc METHOD or --fixtures DIR")
	case f.fixtures == "" && len(urls) < 2:
		return diff.Corpus{}, "", usagef("got %d URL; want two or more to compare (or --fixtures DIR and one URL)", len(urls))
	case len(urls) == 0:
		return diff.Corpus{}, "", usagef("--fixtures: want the URL of the server to replay them against")
	case f.requests < 0:
		return diff.Corpus{}, "", usagef("--requests %d: want 1 or more", f.requests)
	case f.conns < 0:
		return diff.Corpus{}, "", usagef("--connections %d: want 1 or more", f.conns)
	case f.params != "" && f.method == "":
		return diff.Corpus{}, "", usagef("--params goes with --jsonrpc")
	case f.skipAboveHead && !f.pinBlock:
		return diff.Corpus{}, "", usagef("--skip-above-head goes with --pin-block")
	case f.reference != "" && f.fixtures != "":
		return diff.Corpus{}, "", usagef("--reference learns the noise between two instances of the first URL; fixtures are compared with their expected answers instead")
	case f.noiseThreshold != 0 && f.reference == "":
		return diff.Corpus{}, "", usagef("--noise-threshold goes with --reference")
	}
	if f.reference != "" {
		if err := checkDiffURL(f.reference); err != nil {
			return diff.Corpus{}, "", usagef("--reference: %v", err)
		}
	}
	for _, u := range urls {
		if err := checkDiffURL(u); err != nil {
			return diff.Corpus{}, "", err
		}
	}
	switch {
	case f.fixtures != "":
		if f.requests != 0 {
			return diff.Corpus{}, "", usagef("--requests goes with --targets, --calls or --jsonrpc; fixtures are replayed once each")
		}
		reqs, err := readFixtures(f.fixtures)
		return diff.FromList(urls[0], reqs), "expected answers", err
	case f.targets != "":
		c, err := f.targetRequests(e)
		return c, urls[0], err
	}
	c, err := f.callRequests(urls[0])
	return c, urls[0], err
}

func checkDiffURL(u string) error {
	scheme, rest, ok := strings.Cut(u, "://")
	if !ok || rest == "" {
		return usagef("URL %q: want scheme://host:port/, e.g. http://127.0.0.1:18545/", plan.RedactURL(u))
	}
	if _, err := transport.ProtocolFor(strings.ToLower(scheme)); err != nil {
		return usagef("URL %q: %v", plan.RedactURL(u), err)
	}
	p, err := url.Parse(u)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the rest quotes the URL, secrets and all
		}
		return usagef("URL %q: %v; want scheme://host:port/, e.g. http://127.0.0.1:18545/", plan.RedactURL(u), err)
	}
	if p.Hostname() == "" {
		return usagef("URL %q: no host; want scheme://host:port/, e.g. http://127.0.0.1:18545/", plan.RedactURL(u))
	}
	if port := p.Port(); port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return usagef("URL %q: port %q: want a number from 1 to 65535", plan.RedactURL(u), port)
		}
	}
	return nil
}

func readFixtures(p string) ([]diff.Request, error) {
	st, err := os.Stat(p)
	if err != nil {
		return nil, usagef("--fixtures: %v", err)
	}
	var reqs []diff.Request
	if st.IsDir() {
		reqs, err = diff.ReadFixtures(os.DirFS(p), ".", filepath.ToSlash(p))
	} else {
		reqs, err = diff.ReadFixtures(os.DirFS(filepath.Dir(p)), filepath.Base(p), filepath.ToSlash(filepath.Dir(p)))
	}
	if err != nil {
		return nil, usagef("--fixtures: %s", strings.TrimPrefix(err.Error(), "diff: "))
	}
	return reqs, nil
}

// targetRequests renders the entries of the target file in turn, with their templates, once for
// all URLs (diff.FromTargets).
func (f *diffFlags) targetRequests(e *env) (diff.Corpus, error) {
	t, err := plan.LoadTargets(plan.OSFiles(e.stdin), f.targets, f.targetsFormat, "", false, f.headers)
	if err != nil {
		return diff.Corpus{}, usagef("--targets: %s", strings.TrimPrefix(err.Error(), "plan: "))
	}
	c, err := diff.FromTargets(t, f.targets)
	if err != nil {
		return diff.Corpus{}, usageError{strings.TrimPrefix(err.Error(), "plan: ")}
	}
	return c, nil
}

// callRequests renders the JSON-RPC calls of --calls or --jsonrpc in turn (diff.FromCalls).
func (f *diffFlags) callRequests(url string) (diff.Corpus, error) {
	var calls []plan.Call
	name := f.calls
	if f.calls != "" {
		r, err := os.Open(f.calls)
		if err != nil {
			return diff.Corpus{}, usagef("--calls: %v", err)
		}
		defer r.Close()
		if calls, err = plan.ParseCalls(r, f.calls); err != nil {
			return diff.Corpus{}, usagef("--calls: %s", strings.TrimPrefix(err.Error(), "plan: "))
		}
	} else {
		c := plan.Call{Method: f.method, Params: json.RawMessage(bytes.TrimSpace([]byte(f.params)))}
		if err := c.Validate(); err != nil {
			return diff.Corpus{}, usagef("--params: %v", err)
		}
		calls, name = []plan.Call{c}, "--jsonrpc"
	}
	return diff.FromCalls(url, f.headers, calls, name), nil
}

// diffFiles are the files a diff writes as it goes.
type diffFiles struct {
	record, errors *bufio.Writer
	log            *csv.Writer
	closers        []io.Closer
	flushers       []func() error
}

func (f *diffFlags) openFiles() (*diffFiles, error) {
	d := &diffFiles{}
	open := func(flag, path string) (*bufio.Writer, error) {
		fh, err := os.Create(path)
		if err != nil {
			d.close()
			return nil, usagef("--%s: %v", flag, err)
		}
		w := bufio.NewWriter(fh)
		d.closers = append(d.closers, fh)
		d.flushers = append(d.flushers, w.Flush)
		return w, nil
	}
	var err error
	if f.record != "" {
		if d.record, err = open("record", f.record); err != nil {
			return nil, err
		}
	}
	if f.errors != "" {
		if d.errors, err = open("errors", f.errors); err != nil {
			return nil, err
		}
	}
	if f.log != "" {
		w, err := open("log", f.log)
		if err != nil {
			return nil, err
		}
		d.log = csv.NewWriter(w)
		d.flushers = append([]func() error{func() error { d.log.Flush(); return d.log.Error() }}, d.flushers...)
		if err := d.log.Write(diff.LogHeader); err != nil {
			return nil, err
		}
	}
	return d, nil
}

func (d *diffFiles) write(urls []string, r *diff.Result) error {
	if d.record != nil {
		if err := diff.WriteRecord(d.record, urls, r); err != nil {
			return err
		}
	}
	if d.errors != nil && !r.Equal() {
		if err := diff.WriteRecord(d.errors, urls, r); err != nil {
			return err
		}
	}
	if d.log != nil {
		return diff.WriteLog(d.log, urls, r)
	}
	return nil
}

// close flushes and closes the files, returning the first error.
func (d *diffFiles) close() error {
	var first error
	for _, fl := range d.flushers {
		if err := fl(); err != nil && first == nil {
			first = err
		}
	}
	for _, c := range d.closers {
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}
