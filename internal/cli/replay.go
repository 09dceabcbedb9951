package cli

import (
	"context"
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/replay"
	"github.com/rpcbench/rpcbench/result"
)

func init() {
	register(command{name: "replay", summary: "send recorded traffic (access logs, HAR, JSON-RPC logs) at its recorded pace, scaled", run: runReplay})
}

const replayExamples = `  rpcbench replay examples/replay/access.log http://127.0.0.1:8080        nginx/Apache log at its recorded pace
  rpcbench replay --speed 2 access.log.1 access.log http://127.0.0.1:8080   two files as one recording, twice as fast
  rpcbench replay --rate 500 --loop 3 access.log http://127.0.0.1:8080      in recorded order at 500/s, three times
  rpcbench replay --from 10m --to 15m --include '^/api/' access.log http://127.0.0.1:8080   five minutes of the API's traffic
  rpcbench replay --log-format '$remote_addr [$time_iso8601] "$request" $status' custom.log http://127.0.0.1:8080
  rpcbench replay --drop-header Cookie -H 'Authorization: Bearer test' session.har https://127.0.0.1:8443 --insecure
  rpcbench replay --sample 0.1 --seed 7 --out replay.rb rpc.jsonl http://127.0.0.1:18545   a tenth of a JSON-RPC log
  rpcbench replay --every 10 --log requests.csv old-requests.csv http://127.0.0.1:8080   every 10th request of a run's --log
  rpcbench replay --expect-recorded-status --speed 10 access.log http://127.0.0.1:8080   do the statuses match the recorded ones?`

// replayFlags are the flags of `replay`.
type replayFlags struct {
	inputFormat, logFormat string
	speed, sample          float64
	rate                   rateFlag
	from, to               string
	loop, reorder, window  int
	every, seed            uint64
	include, exclude       string
	drop                   []string
	headers                []result.RequestHeader
	conns                  int
	timeout, connectTO     time.Duration
	insecure               bool
	expectStatus           string
	recordedStatus         bool
	format, reportFile     string
	quiet                  bool
	output                 outputFlags
	live                   liveFlags
}

func (f *replayFlags) define(fs *flag.FlagSet) {
	fs.Var(choiceFlag{&f.inputFormat, replay.Formats}, "input-format", "the files' `format`: "+strings.Join(replay.Formats, ", ")+" (default: told by each file's content)")
	fs.StringVar(&f.logFormat, "log-format", "", "an access log's `LAYOUT` in nginx's log_format syntax, e.g. '$remote_addr [$time_local] \"$request\" $status'")
	fs.Float64Var(&f.speed, "speed", 1, "replay at `X` times the recorded pace (2: twice as fast, 0.5: half as fast)")
	fs.Var(&f.rate, "rate", "send the records in their recorded order at a constant `RATE` (5000, 300/m) instead of at their recorded times")
	fs.StringVar(&f.from, "from", "", "send the records recorded from `T` on: a time (2024-03-01T10:00:00Z) or an offset from the first record (10m)")
	fs.StringVar(&f.to, "to", "", "send the records recorded before `T`: a time or an offset from the first record")
	fs.IntVar(&f.loop, "loop", 1, "send the recording `N` times, each pass one mean interval after the last")
	fs.IntVar(&f.reorder, "reorder", replay.DefaultReorder, "a record may be written up to `N` records after its place in time and still go in time order; further is an error")
	fs.IntVar(&f.window, "window", replay.DefaultWindow, "records read ahead of the schedule: `N` bounds the memory a replay holds")
	fs.Uint64Var(&f.every, "every", 0, "send every `K`-th record only")
	fs.Float64Var(&f.sample, "sample", 0, "send a `FRACTION` of the records (0.1: about one in ten), chosen by --seed")
	fs.Uint64Var(&f.seed, "seed", 1, "the `SEED` that --sample chooses records by (the same seed, the same records)")
	fs.StringVar(&f.include, "include", "", "send only the records whose path (with the query) matches `REGEXP`")
	fs.StringVar(&f.exclude, "exclude", "", "leave out the records whose path matches `REGEXP`")
	fs.Var(appended(&f.drop, asIs), "drop-header", "do not send the recorded header `NAME` (repeatable; e.g. Cookie)")
	fs.Var(appended(&f.headers, plan.ParseHeader), "header", "send `\"Name: value\"` instead of the recorded header of that name, or add it (repeatable)")
	fs.Var(appended(&f.headers, plan.ParseHeader), "H", "`\"Name: value\"` (short for --header, repeatable)")
	fs.IntVar(&f.conns, "connections", 0, "cap of connections and requests in flight (default 1000)")
	fs.Var(positiveDurationFlag{durationFlag{&f.timeout}}, "timeout", "time limit of one request (default 30s)")
	fs.Var(durationFlag{&f.connectTO}, "connect-timeout", "time limit of a connection's set-up (default 10s)")
	fs.BoolVar(&f.insecure, "insecure", false, "skip TLS certificate verification")
	fs.StringVar(&f.expectStatus, "expect-status", "", "status `codes` that count as success, e.g. 200,404 or 2xx (default 2xx and 3xx)")
	fs.BoolVar(&f.recordedStatus, "expect-recorded-status", false, "an answer succeeds when its status is the one recorded for its request (a recorded 404 answered 404 too), else fails as a check; requests recorded without a status are judged as usual")
	fs.Var(choiceFlag{&f.format, runFormats}, "format", "report `format` on stdout: "+strings.Join(runFormats, ", "))
	fs.StringVar(&f.reportFile, "report-file", "", "also write the report to `FILE` (format by extension)")
	fs.BoolVar(&f.quiet, "quiet", false, "no live progress line")
	f.output.define(fs)
	f.live.define(fs)
}

// options turns the flags into the replay's options; files and base are the arguments.
func (f *replayFlags) options(files []string, base string) (replay.Options, error) {
	o := replay.Options{Files: files, Base: base, Speed: f.speed, Rate: f.rate.v, Loop: f.loop, Reorder: f.reorder,
		Window: f.window, Every: f.every, Fraction: f.sample, Seed: f.seed, DropHeaders: f.drop, SetHeaders: f.headers}
	switch {
	case !(f.speed > 0) || math.IsInf(f.speed, 0):
		return o, usagef("--speed %v: want a number above 0 (2: twice as fast, 0.5: half as fast)", f.speed)
	case f.rate.set && f.rate.v == 0:
		return o, usagef("--rate: 0 sends nothing; give a rate above 0")
	case f.loop < 1:
		return o, usagef("--loop %d: want 1 or more passes", f.loop)
	case f.reorder < 1:
		return o, usagef("--reorder %d: want 1 or more records", f.reorder)
	case f.window < 1:
		return o, usagef("--window %d: want 1 or more records", f.window)
	case !(f.sample >= 0 && f.sample <= 1):
		return o, usagef("--sample %v: want a fraction from 0 to 1, e.g. 0.1", f.sample)
	case f.expectStatus != "" && f.recordedStatus:
		return o, usagef("--expect-status and --expect-recorded-status: give one of them")
	case f.inputFormat != "" && f.logFormat != "":
		return o, usagef("--input-format and --log-format: give one of them (a --log-format is an access log's)")
	}
	o.Format = f.inputFormat
	if f.logFormat != "" {
		o.Format = "log_format:" + f.logFormat
	}
	var err error
	if o.From, o.FromOffset, err = timeBound("--from", f.from); err != nil {
		return o, err
	}
	if o.To, o.ToOffset, err = timeBound("--to", f.to); err != nil {
		return o, err
	}
	if err := o.SetFilters(f.include, f.exclude); err != nil {
		return o, usagef("--%v", err)
	}
	return o, nil
}

// timeBound reads --from or --to: an RFC 3339 time, or an offset from the first record.
func timeBound(name, s string) (time.Time, time.Duration, error) {
	if s == "" {
		return time.Time{}, 0, nil
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return time.Time{}, d, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, 0, nil
	}
	return time.Time{}, 0, usagef("%s %q: want a time such as 2024-03-01T10:00:00Z or an offset from the first record such as 10m", name, s)
}

func runReplay(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "replay", "replay [flags] FILE… URL\n\nSend the requests recorded in FILEs to URL, each at its recorded instant (scaled by --speed), "+
		"and report latency from that instant, throughput and errors as run does.", replayExamples)
	f := &replayFlags{format: "text"}
	f.define(fs)
	pos, code, done := parseArgs(e, fs, args)
	if done {
		return code
	}
	series, err := f.output.split(&f.live, e)
	if err != nil {
		return fail(e, "replay", err, ExitUsage)
	}
	if len(pos) < 2 {
		fmt.Fprintf(e.stderr, "rpcbench replay: want FILE… URL, got %d arguments\n(see: rpcbench replay --help)\n", len(pos))
		return ExitUsage
	}
	files, base := pos[:len(pos)-1], pos[len(pos)-1]
	if !strings.Contains(base, "://") {
		return fail(e, "replay", usagef("the last argument, %q, is not a URL: want FILE… URL, e.g. access.log http://127.0.0.1:8080", base), ExitUsage)
	}
	var outs, ins []namedFile
	for _, o := range []namedFile{{"--out", f.output.out}, {"--report-file", f.reportFile}, {"--live", f.output.live}, {"--html", f.output.html}, {"--log", f.output.log}} {
		outs = append(outs, o)
	}
	for _, file := range files {
		if file == "-" {
			return fail(e, "replay", usagef("FILE -: standard input cannot be replayed: a replay reads its files twice (once to count and check them, once to send); save it to a file"), ExitUsage)
		}
		ins = append(ins, namedFile{"FILE", file})
	}
	if err := distinctFiles(outs, ins); err != nil {
		return fail(e, "replay", err, ExitUsage)
	}
	for _, o := range outs[:4] {
		if err := checkOutput(o.flag, o.path); err != nil {
			return fail(e, "replay", err, ExitUsage)
		}
	}
	ro, err := f.options(files, base)
	if err != nil {
		return fail(e, "replay", err, ExitUsage)
	}
	tl, err := replay.Scan(ro)
	if err != nil {
		return fail(e, "replay", usagef("%s", strings.TrimPrefix(err.Error(), "replay: ")), ExitUsage)
	}
	prep, err := f.prepare(e, tl, base)
	if err != nil {
		return fail(e, "replay", err, ExitUsage)
	}
	o := f.output.outputs(f.format, f.reportFile, f.quiet, args)
	o.cmdName = "replay"
	o.series = series
	o.command[0] = "replay"
	describeReplay(e, tl, ro)
	return executeReplay(ctx, e, prep, o, tl, f.recordedStatus)
}

// executeReplay runs a prepared replay through execute (and so the runner), paced by its timeline
// and, with recorded, judged by the recorded statuses: the one place a replay's load runs.
func executeReplay(ctx context.Context, e *env, prep *plan.Prepared, o outputs, tl *replay.Timeline, recorded bool) int {
	tl.Start()
	defer tl.Close()
	o.engine = append(o.engine, tl.Engine(prep, recorded)...)
	return execute(ctx, e, prep, o)
}

// prepare makes the plan a replay runs (see replay.Timeline.Plan) with the flags' HTTP settings
// and checks; a JSON-RPC recording's answers are judged as JSON-RPC answers.
func (f *replayFlags) prepare(e *env, tl *replay.Timeline, base string) (*plan.Prepared, error) {
	p := tl.Plan(base)
	p.Load.Connections = f.conns
	p.HTTP = plan.HTTP{Timeout: f.timeout, ConnectTimeout: f.connectTO, Insecure: f.insecure}
	p.Checks = plan.Checks{Status: f.expectStatus}
	prep, err := prepare(e, p)
	if err != nil {
		return nil, err
	}
	tl.Judge(prep)
	return prep, nil
}

// describeReplay says on stderr what the replay sends and when.
func describeReplay(e *env, tl *replay.Timeline, o replay.Options) {
	info := tl.Info()
	pace := "at " + strconv.FormatFloat(o.Speed, 'f', -1, 64) + "× the recorded pace"
	if o.Rate > 0 {
		pace = "in recorded order at " + strconv.FormatFloat(o.Rate, 'f', -1, 64) + "/s"
	}
	loops := ""
	if o.Loop > 1 {
		loops = fmt.Sprintf(" × %d passes", o.Loop)
	}
	recorded := ""
	if !info.First.IsZero() {
		recorded = fmt.Sprintf(", recorded over %v from %s", info.Last.Sub(info.First), info.First.UTC().Format(time.RFC3339))
	}
	mean := " (the report's rate is their mean)"
	if o.Rate > 0 {
		mean = ""
	}
	fmt.Fprintf(e.stderr, "rpcbench replay: %d records%s%s, sent %s, the last %v after the first%s\n",
		info.Records, loops, recorded, pace, tl.Last().Round(time.Millisecond), mean)
	if info.Skips.Count > 0 {
		fmt.Fprintf(e.stderr, "rpcbench replay: %d lines skipped: they do not parse, e.g.\n  %s\n", info.Skips.Count, strings.Join(info.Skips.Samples, "\n  "))
	}
}
