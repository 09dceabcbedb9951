package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/rpcbench/rpcbench/bench"
	"github.com/rpcbench/rpcbench/engine"
	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/plan/planfile"
	"github.com/rpcbench/rpcbench/report"
	"github.com/rpcbench/rpcbench/runner"
	"github.com/rpcbench/rpcbench/schedule"
	"github.com/rpcbench/rpcbench/summary"
	"github.com/rpcbench/rpcbench/transport"
)

func init() {
	register(command{name: "run", summary: "load a URL at a constant rate (open model) or with N connections (closed model)", run: runRun})
}

const runExamples = `  rpcbench run --rate 5000 --duration 30s http://127.0.0.1:8080/        open model: 5000 arrivals/s
  rpcbench run --connections 100 --duration 1m http://127.0.0.1:8080/    closed model: 100 busy connections
  rpcbench run --stages 30s:1000,60s:5000,30s:5000 http://127.0.0.1:8080/  ramp the rate from 0
  rpcbench run --stages 0s:50,5s:50,1s:100,5s:100 --stage-ramps http://127.0.0.1:8080/  per-stage figures, the ramp's too
  rpcbench run --rate 600/m --requests 100 --warmup 5s http://127.0.0.1:8080/
  rpcbench run -X POST -H 'Content-Type: application/json' --body '{"id":"1"}' --rate 100 http://127.0.0.1:8080/items
  rpcbench run --format json --report-file out.json --rate 1000 https://127.0.0.1:8443/ --insecure
  rpcbench run --rate 1000 --duration 10m --out run.rb --html report.html http://127.0.0.1:8080/   keep the run; render it later with rpcbench report
  rpcbench run --rate 1000 --duration 1h --live live.jsonl http://127.0.0.1:8080/   one JSON line per interval for a dashboard
  rpcbench run --rate 1000 --duration 1h --interval 10s --out run.rb http://127.0.0.1:8080/   intervals of 10 s instead of 1 s
  rpcbench run --rate 1000 'http://127.0.0.1:8080/v0/entity?id={{randInt 1 1e8}}'   a random id per request
  rpcbench run --rate 500 --targets targets.http --targets-order random        requests from a target file
  rpcbench run --rate 500 --targets - --targets-format json < targets.jsonl     JSON-lines targets on stdin
  rpcbench run --rate 1000 --endpoint 'get=GET http://127.0.0.1:8080/v0/entity?id={{randInt 0 9999}}' \
      --endpoint 'put=PUT http://127.0.0.1:8080/v0/entity?id={{randInt 0 9999}}' --body '{{randString 64}}' --weights get=8,put=2
  rpcbench run --rate 200 --data users.csv --data-order unique 'http://127.0.0.1:8080/v0/entity?id={{.user_id}}'
  rpcbench run --setup put.http --setup-count 10000 --rate 1000 'http://127.0.0.1:8080/v0/entity?id={{randInt 0 9999}}'
  rpcbench run --jsonrpc eth_blockNumber --rate 1000 http://127.0.0.1:18545/       JSON-RPC 2.0 calls, a unique id each
  rpcbench run --jsonrpc eth_getBalance --params '["{{randAddress}}","latest"]' --rate 100 http://127.0.0.1:18545/   a random address per call ({{randHex 20}}, {{randHash}})
  rpcbench run --calls calls.jsonl --batch 10 --connections 8 ws://127.0.0.1:18545/   a calls file, in batches, over WebSocket
  rpcbench run --jsonrpc eth_blockNumber --rate 100 --subscribe 'eth_subscribe ["newHeads"]' --subscriptions 100 ws://127.0.0.1:18545/   subscriptions timed per message, beside calls
  rpcbench run --expect-status 200,201 --check-json result.status=ok --check 'has id: json id exists' --rate 100 http://127.0.0.1:8080/
  rpcbench run --rate 1000 --duration 30s --slo 'p99<50ms,errors<0.1%' http://127.0.0.1:8080/   exit 1 when an objective is missed
  rpcbench run --rate 1000 --monitor-pid 4242 --monitor-process nginx --out run.rb http://127.0.0.1:8080/   CPU, memory, disk, network of the target
  rpcbench run --rate 1000 --monitor-metrics http://127.0.0.1:8080/metrics --monitor-series 'http_requests_total{code="200"}' http://127.0.0.1:8080/
  rpcbench run --rate 1000 --duration 30s --out run.rb --profile-url http://127.0.0.1:6060/debug/pprof http://127.0.0.1:8080/   run.cpu.pprof, run.allocs.pprof of a Go target
  rpcbench run --h2c --streams 25 --connections 50 --duration 10s http://127.0.0.1:8080/   HTTP/2 over cleartext, 25 requests per connection
  rpcbench run --http1 --cacert ca.pem --server-name api.internal --tls-min 1.3 --rate 100 https://127.0.0.1:8443/   HTTP/1.1 over TLS 1.3
  rpcbench run --call rpz.ItemService/GetItem --body '{"id":"{{randInt 0 999}}"}' --rate 1000 grpc://127.0.0.1:9090   gRPC, types by reflection (or --proto, --protoset)
  rpcbench run --segment 2/8 --start-at 2030-01-02T15:04:05Z --rate 80000 --out seg-2.rb http://127.0.0.1:8080/   the 2nd of 8 generators
  rpcbench run --segment 1/2:1 --segment-sequence 0,1/4,1/2,1 --start-at +30s --rate 1000 http://127.0.0.1:8080/   the larger of 3 parts
  rpcbench run --segment-index $JOB_COMPLETION_INDEX/8 --start-at 2030-01-02T15:04:05Z --rate 80000 http://127.0.0.1:8080/   part I of 8, I from 0
  rpcbench run --plan examples/compare-lab.yaml --scenario rate --target fast --out rate.rb   one scenario of a plan file against one target
  rpcbench run --plan plan.yaml --scenario cart --target shop --segment-index 0/8 --start-at +30s --out-log --no-verdict --quiet   as a pod of rpcbench k8s job runs`

// runFlags are the flags of `run`, bound to a plan.
type runFlags struct {
	rate       rateFlag
	stages     []schedule.Stage
	headers    []transport.Header
	model      string
	duration   time.Duration
	warmup     time.Duration
	grace      *time.Duration // nil: the default
	sendSlack  time.Duration
	interval   time.Duration
	timeout    time.Duration
	connectTO  time.Duration
	requests   uint64
	conns      int
	method     string
	body       string
	bodyFile   string
	noReuse    bool
	insecure   bool
	sender     string
	maxBody    kvSize
	rpc        rpcCallFlags
	format     string
	reportFile string
	output     outputFlags
	quiet      bool
	traffic    trafficFlags
	slo        plan.SLO
	monitor    monitorFlags
	grpc       grpcFlags
	h2         h2Flags
	h3         h3Flags
	segment    segmentFlags
	profile    profileFlags
	planf      planFlags
	noVerdict  bool
	live       liveFlags
	subs       subscribeFlags
}

func (f *runFlags) define(fs *flag.FlagSet) {
	fs.Var(&f.rate, "rate", "open model: arrivals per second (`RATE`: 5000, 5000/s, 300/m, 1/100ms)")
	fs.Var(parsed(&f.stages, plan.ParseStages), "stages", "ramp the rate (or, closed, the connections) from 0 through `D:T,…` (e.g. 30s:1000,60s:5000); 0s:T is a step")
	fs.Var(choiceFlag{&f.model, []string{"open", "closed"}}, "model", "load `model`: open (a rate) or closed (connections); default: open with --rate or --stages")
	fs.Var(positiveDurationFlag{durationFlag{&f.duration}}, "duration", "measured length of the run (default 10s unless --requests or --stages)")
	fs.Uint64Var(&f.requests, "requests", 0, "stop after `N` measured requests")
	fs.IntVar(&f.conns, "connections", 0, "closed: connections (default 10), each backing off 1ms, doubling up to 1s, while it cannot connect; open: cap of connections and requests in flight (default 1000)")
	fs.Var(durationFlag{&f.warmup}, "warmup", "send for this long first, at the first level, outside the figures")
	fs.Var(optionalDurationFlag{&f.grace}, "grace", "on Ctrl-C, how long to wait for requests in flight (default 5s; 0: cut them at once); a second Ctrl-C cuts them at once")
	fs.Var(durationFlag{&f.sendSlack}, "send-slack", "open model: send an arrival up to `D` late so that one wake-up sends all that are due by then (e.g. 1ms, as wrk2 paces): less generator CPU at high rates; latency still counts from the intended times (default 0: each at its time)")
	fs.Var(positiveDurationFlag{durationFlag{&f.interval}}, "interval", "length of the progress intervals (default 1s)")
	fs.StringVar(&f.method, "method", "GET", "HTTP `method`")
	fs.StringVar(&f.method, "X", "GET", "HTTP `method` (short for --method)")
	fs.Var(appended(&f.headers, plan.ParseHeader), "header", "request header `\"Name: value\"` (repeatable)")
	fs.Var(appended(&f.headers, plan.ParseHeader), "H", "request header `\"Name: value\"` (short for --header, repeatable)")
	fs.StringVar(&f.body, "body", "", "request `body`")
	fs.StringVar(&f.bodyFile, "body-file", "", "read the request body from `FILE`")
	fs.Var(positiveDurationFlag{durationFlag{&f.timeout}}, "timeout", "time limit of one request, from send to the last byte of the answer (default 30s)")
	fs.Var(durationFlag{&f.connectTO}, "connect-timeout", "time limit of a connection's set-up: DNS, connect, TLS (default 10s)")
	fs.BoolVar(&f.noReuse, "no-reuse", false, "open a new connection for every request (measures connection set-up)")
	fs.StringVar(&f.sender, "sender", "", "`SENDER` of HTTP/1.1 over plain TCP: auto (an event loop owning the connections, where the run allows one) or goroutines (a goroutine per connection), to compare")
	fs.BoolVar(&f.insecure, "insecure", false, "skip TLS certificate verification")
	fs.Var(&f.maxBody, "max-body", "longest answer body kept for checks (`size`, e.g. 64KiB; default 16MiB); a longer answer fails with class too-large")
	f.rpc.define(fs)
	fs.Var(choiceFlag{&f.format, runFormats}, "format", "report `format` on stdout: "+strings.Join(runFormats, ", "))
	fs.StringVar(&f.reportFile, "report-file", "", "also write the report to `FILE` (format by extension: .json, .csv, .md, .hgrm, .html; else text)")
	f.output.define(fs)
	fs.BoolVar(&f.quiet, "quiet", false, "no live progress line")
	f.traffic.define(fs)
	defineSLO(fs, &f.slo)
	f.monitor.define(fs)
	f.grpc.define(fs)
	f.h2.define(fs)
	f.h3.define(fs)
	f.segment.define(fs)
	f.profile.define(fs)
}

// defineRunOnly defines the flags of `run` alone (not of the commands that share its flags):
// --plan and its choices, --out-log, --no-verdict.
func (f *runFlags) defineRunOnly(fs *flag.FlagSet) {
	f.planf.define(fs)
	f.live.define(fs)
	f.subs.define(fs)
	fs.BoolVar(&f.output.outLog, "out-log", false, "print the result file on stdout after the report, gzip+base64 between marker lines, so that a pod's log carries it (rpcbench k8s collect)")
	fs.BoolVar(&f.noVerdict, "no-verdict", false, "exit 0 when the run completed even if an --slo objective was missed or no request succeeded (the report still says so): for a segment, whose verdict belongs to the merged run")
}

// plan turns the flags and the URL into a plan.
func (f *runFlags) plan(url string) (plan.Plan, error) {
	url, err := f.grpc.url(url)
	if err != nil {
		return plan.Plan{}, err
	}
	ep := plan.Endpoint{URL: url, Method: f.method, Header: f.headers}
	switch {
	case f.body != "" && f.bodyFile != "":
		return plan.Plan{}, usagef("--body and --body-file: give one of them")
	case f.body != "":
		ep.Body = []byte(f.body)
	case f.bodyFile != "":
		b, err := plan.ReadBodyFile(f.bodyFile)
		if err != nil {
			return plan.Plan{}, usagef("--body-file: %v", err)
		}
		ep.Body = b
	}
	p := plan.Plan{
		Endpoints: []plan.Endpoint{ep},
		Load: plan.Load{
			Model:       plan.Model(f.model),
			Rate:        f.rate.v,
			Duration:    f.duration,
			Requests:    f.requests,
			Connections: f.conns,
			Stages:      f.stages,
			Warmup:      f.warmup,
			Grace:       f.grace,
			Interval:    f.interval,
			SendSlack:   f.sendSlack,
		},
		HTTP: plan.HTTP{Timeout: f.timeout, ConnectTimeout: f.connectTO, DisableKeepAlive: f.noReuse, Insecure: f.insecure, MaxBody: int64(f.maxBody), Sender: f.sender},
		SLO:  f.slo,
	}
	if err := f.grpc.apply(&p, f.rpc.on()); err != nil {
		return p, err
	}
	if err := f.h2.apply(&p); err != nil {
		return p, err
	}
	if err := f.traffic.apply(&p, ep); err != nil {
		return p, err
	}
	if err := f.rpc.apply(&p); err != nil {
		return p, err
	}
	if err := f.subs.apply(&p); err != nil {
		return p, err
	}
	if err := f.h3.apply(&p, f.h2); err != nil {
		return p, err
	}
	f.segment.apply(&p)
	if f.rate.set && f.rate.v == 0 {
		return p, usagef("--rate: 0 sends nothing; give a rate above 0, or --connections for the closed model")
	}
	return p, nil
}

func runRun(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "run", "run [flags] URL\n\nLoad URL and report latency (from each request's intended send time), throughput and errors.", runExamples)
	f := &runFlags{format: "text"}
	f.define(fs)
	f.defineRunOnly(fs)
	pos, code, done := parseArgs(e, fs, args)
	if done {
		return code
	}
	zeroConns := false
	fs.Visit(func(fl *flag.Flag) {
		if fl.Name == "connections" && f.conns == 0 {
			zeroConns = true // a zero in the plan would mean the default
		}
	})
	if zeroConns {
		return fail(e, "run", usagef("--connections: 0 sends nothing; want 1 or more"), ExitUsage)
	}
	series, err := f.output.split(&f.live, e)
	if err != nil {
		return fail(e, "run", err, ExitUsage)
	}
	if len(pos) != 1 && (len(pos) != 0 || !f.traffic.given()) && f.planf.file == "" {
		fmt.Fprintf(e.stderr, "rpcbench run: want one URL, got %d arguments (or --targets, --endpoint)\n(see: rpcbench run --help)\n", len(pos))
		return ExitUsage
	}
	if err := distinctFiles(
		[]namedFile{{"--out", f.output.out}, {"--report-file", f.reportFile}, {"--live", f.output.live}, {"--html", f.output.html}},
		[]namedFile{{"--targets", f.traffic.targets}, {"--data", f.traffic.data}, {"--setup", f.traffic.setup}, {"--calls", f.rpc.calls}, {"--body-file", f.bodyFile}},
	); err != nil {
		return fail(e, "run", err, ExitUsage)
	}
	for _, o := range []namedFile{{"--out", f.output.out}, {"--report-file", f.reportFile}, {"--live", f.output.live}, {"--html", f.output.html}} {
		if err := checkOutput(o.flag, o.path); err != nil {
			return fail(e, "run", err, ExitUsage)
		}
	}
	var p plan.Plan
	var rr *replayRun
	if f.planf.file != "" {
		p, rr, err = f.planOfFile(e, fs, pos)
	} else {
		p, err = f.plan(strings.Join(pos, ""))
	}
	f.h3.say(e, "run", p.Protocol)
	if err != nil {
		return fail(e, "run", err, ExitUsage)
	}
	if err := f.checkSubscriptions(fs, p); err != nil {
		return fail(e, "run", err, ExitUsage)
	}
	o := f.output.outputs(f.format, f.reportFile, f.quiet, args)
	o.series = series
	o.noVerdict = f.noVerdict
	if f.output.outLog && o.out == "" {
		tmp, err := os.CreateTemp("", "rpcbench-*.rb")
		if err != nil {
			return fail(e, "run", fmt.Errorf("--out-log: %w", err), ExitCannotStart)
		}
		tmp.Close()
		defer os.Remove(tmp.Name())
		o.out = tmp.Name()
	}
	if o.monitor, err = f.monitor.prepare(f.output.showSecrets); err != nil {
		return fail(e, "run", err, ExitUsage)
	}
	if o.profile, err = f.profile.prepare(f.output.out); err != nil {
		return fail(e, "run", err, ExitUsage)
	}
	o.engine = f.segment.options()
	if rr != nil {
		prep, tl, err := bench.PrepareReplay(rr.s, rr.t, rr.b.Dir, plan.OSFiles(e.stdin))
		if err != nil {
			return fail(e, "run", usageError{planfile.ScenarioError(rr.b, rr.s, rr.t, err).Error()}, ExitUsage)
		}
		fmt.Fprintf(e.stderr, "rpcbench run: %s: %s: %s\n", rr.s.Name, rr.s.Describe(0, o.showSecrets), bench.DescribeReplay(tl))
		return executeReplay(ctx, e, prep, o, tl, rr.s.Replay.RecordedStatus)
	}
	prep, err := prepare(e, p)
	if err != nil {
		return fail(e, "run", err, ExitUsage)
	}
	return execute(ctx, e, prep, o)
}

// prepare prepares p as engine.Run would, reading its files (stdin for "-"); a problem is a usage
// error naming the flag of the file or setting at fault.
func prepare(e *env, p plan.Plan) (*plan.Prepared, error) {
	prep, err := plan.Prepare(p, plan.OSFiles(e.stdin))
	if err != nil {
		return nil, prepareError(err)
	}
	return prep, nil
}

// prepareError is a problem of plan.Prepare as a usage error naming the flag of the file or
// setting at fault.
func prepareError(err error) error {
	var ie *plan.InputError
	if errors.As(err, &ie) {
		return usagef("--%s: %v", ie.Input, ie.Err)
	}
	return usageError{strings.ReplaceAll(err.Error(), "plan: ", "")}
}

// execute runs a prepared plan (see prepare) through the runner — its pre-flight and setup phase,
// the outputs o asks for (report file, result file, live lines, request log, HTML), what it
// watches — prints its report in o.format and returns the exit code.
func execute(ctx context.Context, e *env, prep *plan.Prepared, o outputs) int {
	np := prep.Plan
	if note := raiseOpenFiles(np.Load.Connections); note != "" {
		fmt.Fprintln(e.stderr, "rpcbench:", note)
	}
	set, err := o.set(e)
	if err != nil {
		return fail(e, o.cmd(), err, ExitUsage)
	}
	watch := o.monitor
	if watch == nil {
		watch = generatorOnly()
	}
	ro := runner.Options{
		Outputs: set, Watch: watch, Profile: o.profile, Cut: e.cut, Engine: o.engine,
		Version: Version(), ShowSecrets: o.showSecrets, StageRamps: o.stageRamps, Command: o.command,
		OnSetup: func(sr engine.SetupResult) {
			fmt.Fprintf(e.stderr, "rpcbench %s: setup: %d requests to %s in %v, all ok\n", o.cmd(), sr.Sent, prep.Setup.Plan.Traffic.Targets, sr.Took.Round(time.Millisecond))
		},
		Warn: func(msg string) { fmt.Fprintf(e.stderr, "rpcbench %s: %s\n", o.cmd(), msg) },
	}
	// With --live -, stdout is the stream of JSON lines, which the report must not break: it goes
	// to stderr. The report is printed as soon as the summary is whole, before the outputs finish
	// (a live output may wait for a slow receiver).
	reportTo := e.stdout
	if o.live == "-" {
		reportTo = e.stderr
	}
	var renderErr error
	ro.OnSummary = func(res *engine.Result, s *summary.Summary) {
		segmentWarnings(e, res)
		renderErr = render(reportTo, s, o.format, o.tables)
	}
	run, err := runner.Run(ctx, prep, ro)
	if err != nil {
		var pe *runner.PreflightError
		usage := errors.As(err, &pe) && !pe.Connect // the plan asks what the server does not serve
		if o.reword != nil {
			err = o.reword(err)
		}
		switch {
		case ctx.Err() != nil:
			return fail(e, o.cmd(), err, ExitInterrupted)
		case usage:
			return fail(e, o.cmd(), usageError{err.Error()}, ExitUsage)
		}
		return fail(e, o.cmd(), err, ExitCannotStart)
	}
	res, s := run.Result, run.Summary
	code := ExitOK
	if renderErr != nil {
		fmt.Fprintf(e.stderr, "rpcbench %s: writing the report: %v\n", o.cmd(), renderErr)
		code = ExitCannotStart
	}
	if run.OutputErr != nil {
		for _, line := range strings.Split(run.OutputErr.Error(), "\n") {
			fmt.Fprintf(e.stderr, "rpcbench %s: %s\n", o.cmd(), line)
		}
		code = ExitCannotStart
	} else if o.outLog {
		if err := frameResult(reportTo, o.out); err != nil {
			fmt.Fprintf(e.stderr, "rpcbench run: --out-log: %v\n", err)
			code = ExitCannotStart
		}
	}
	if res.Interrupted {
		fmt.Fprintf(e.stderr, "rpcbench %s: interrupted; the report covers what was done until then\n", o.cmd())
		return ExitInterrupted
	}
	if res.Stop != nil {
		fmt.Fprintf(e.stderr, "rpcbench %s: stopped early: %v\n", o.cmd(), res.Stop)
		return ExitUsage
	}
	if code != ExitOK {
		return code
	}
	if (o.requireValid || s.Config.RequireValid) && !s.Validity.Valid {
		by := "--require-valid"
		if !o.requireValid {
			by = "require_valid of the plan file"
		}
		fmt.Fprintf(e.stderr, "rpcbench %s: the run is invalid (%s): %s\n", o.cmd(), by, strings.Join(s.Validity.Reasons, "; "))
		return ExitInvalid
	}
	if v := verdict(e.stderr, o.cmd(), s); !o.noVerdict {
		return v
	}
	return ExitOK
}

// cutOption makes a second Ctrl-C cut the run at once.
func cutOption(e *env) []engine.Option {
	if e.cut == nil {
		return nil
	}
	return []engine.Option{engine.WithCut(e.cut)}
}

func render(w io.Writer, s *summary.Summary, format string, o report.Options) error {
	if format == "ghz" { // ghz's summary, for `rpcbench ghz`
		return report.GHZ(w, s)
	}
	return report.Render(w, []*summary.Summary{s}, format, o)
}

// saveReport writes the report to path in the format its extension names (text when it names none),
// through a temporary file so that a half-written report never replaces a good one (see writeOutput).
func saveReport(path string, s *summary.Summary, o report.Options) error {
	return writeOutput(path, func(w io.Writer) error { return render(w, s, report.FormatForPath(path), o) })
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && isTerminalFd(f.Fd())
}
