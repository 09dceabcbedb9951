package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/engine"
	"github.com/rpcbench/rpcbench/output"
	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/plan/planfile"
	"github.com/rpcbench/rpcbench/report"
	"github.com/rpcbench/rpcbench/serve/lab"
	"github.com/rpcbench/rpcbench/summary"
)

// helperEnv makes the test binary, run again as a target's command, serve lab at the address it
// holds, write its pid to $HELPER_PID_FILE, and serve until SIGTERM.
const helperEnv = "RPCBENCH_BENCHRUN_HELPER_ADDR"

func TestMain(m *testing.M) {
	if addr := os.Getenv(helperEnv); addr != "" {
		os.Exit(serveHelper(addr))
	}
	os.Exit(m.Run())
}

// helperPID returns the PID a helper wrote to its $HELPER_PID_FILE, file.
func helperPID(t *testing.T, file string) int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(string(b))
	if err != nil {
		t.Fatalf("%s: %q is not a PID", file, b)
	}
	return n
}

func serveHelper(addr string) int {
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	if mib, _ := strconv.Atoi(os.Getenv(helperHoldMiB)); mib > 0 {
		hold = make([]byte, mib<<20)
		for i := range hold {
			hold[i] = 1 // touched: resident, before the port opens
		}
	}
	var opts []lab.Option
	if n, _ := strconv.Atoi(os.Getenv(helperExitAfter)); n > 0 {
		var answered atomic.Int64
		opts = append(opts, lab.WithMiddleware(func(h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				h.ServeHTTP(w, r)
				if answered.Add(1) == int64(n) {
					os.Exit(3)
				}
			})
		}))
	}
	if text := os.Getenv(helperReady); text != "" {
		opts = append(opts, lab.WithMiddleware(func(h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/ready" {
					h.ServeHTTP(w, r)
					return
				}
				fmt.Fprintf(w, "%s\nsecond line\n", text)
			})
		}))
	}
	if f := os.Getenv(helperTagLog); f != "" {
		tag := "none" // the value of --tag in the helper's arguments
		if i := slices.Index(os.Args, "--tag"); i > 0 && i+1 < len(os.Args) {
			tag = os.Args[i+1]
		}
		var mu sync.Mutex
		opts = append(opts, lab.WithMiddleware(func(h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock() // written before the answer: a run that has its answers has their lines
				if l, err := os.OpenFile(f, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644); err == nil {
					fmt.Fprintln(l, tag)
					l.Close()
				}
				mu.Unlock()
				h.ServeHTTP(w, r)
			})
		}))
	}
	s, err := lab.New(lab.Config{Addr: addr}, opts...)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if f := os.Getenv("HELPER_PID_FILE"); f != "" {
		os.WriteFile(f, []byte(strconv.Itoa(os.Getpid())), 0o644)
	}
	<-term
	s.Close()
	return len(hold) & 0 // keeps hold alive until the end
}

// helperHoldMiB makes the helper hold that many MiB of touched memory while it serves.
const helperHoldMiB = "HELPER_HOLD_MIB"

// helperReady makes the helper answer GET /ready with this text, then a second line.
const helperReady = "HELPER_READY"

// helperTagLog makes the helper add a line to the file it names for each request it answers: the
// value of its --tag argument.
const helperTagLog = "HELPER_TAG_LOG"

// helperExitAfter makes the helper exit with status 3 as it answers that many requests.
const helperExitAfter = "HELPER_EXIT_AFTER"

var hold []byte

// freeAddr returns a loopback address no one listens on now.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// countingLab starts a lab server that counts the requests it answers.
func countingLab(t *testing.T) (*lab.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	s, err := lab.New(lab.Config{}, lab.WithMiddleware(func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { n.Add(1); h.ServeHTTP(w, r) })
	}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, &n
}

func readBench(t *testing.T, dir, text string) *plan.Bench {
	t.Helper()
	name := filepath.Join(dir, "bench.yaml")
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := planfile.ReadFile(name, strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRunInterleavesTargets runs a stepped scenario against two targets: the runs go step by step,
// each target in turn, each at its step's level, and each target answered exactly the requests its
// summary counts.
func TestRunInterleavesTargets(t *testing.T) {
	t.Parallel()
	a, na := countingLab(t)
	b, nb := countingLab(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "t.http"), []byte("# name: read\nGET /v0/entity?id={{randInt 1 9}}\n"), 0o644)
	bench := readBench(t, dir, fmt.Sprintf(`targets:
  a: {url: %q}
  b: {url: %q}
scenarios:
  steps:
    targets_file: t.http
    steps: [1, 2]
    step: 300ms
    interval: 100ms
  counted:
    model: open
    rate: 50
    requests: 5
    path: /x
`, a.URL(), b.URL()))
	var observed []string
	out, err := Run(context.Background(), bench, Options{
		Outputs: func(id RunID) output.Set {
			return output.Set{&probe{start: func(r output.Run) {
				observed = append(observed, fmt.Sprintf("%s/%d/%s/%d", id.Scenario, id.Step, id.Target, r.Plan.Load.Connections))
			}}}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"steps/0/a/1", "steps/0/b/1", "steps/1/a/2", "steps/1/b/2", "counted/0/a/1000", "counted/0/b/1000"}
	if strings.Join(observed, " ") != strings.Join(want, " ") {
		t.Errorf("runs: got %v; want %v", observed, want)
	}
	var sent [2]int64
	for _, m := range out.Runs {
		if m.Err != nil {
			t.Fatalf("%s: %v", m.RunID, m.Err)
		}
		if m.Summary.Requests.Errors != 0 {
			t.Errorf("%s: %d errors; want none", m.RunID, m.Summary.Requests.Errors)
		}
		sent[strings.Index("ab", m.Target)] += int64(m.Summary.Requests.Sent)
	}
	if sent[0] != na.Load() || sent[1] != nb.Load() {
		t.Errorf("requests: summaries count a=%d b=%d; the servers answered a=%d b=%d", sent[0], sent[1], na.Load(), nb.Load())
	}
	if g := out.Groups(); len(g) != 3 || g[1].Title() != "steps · step 2/2: 2 connections" || len(g[2].Runs) != 2 {
		t.Errorf("groups: got %+v", g)
	}
	var text bytes.Buffer
	if err := Render(&text, out, "text", report.Options{}); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"═══ steps · step 1/2: 1 connection ═══", "══ a ══", "══ b ══", "═══ counted ═══"} {
		if !strings.Contains(text.String(), w) {
			t.Errorf("text report lacks %q:\n%s", w, text.String())
		}
	}
	var js bytes.Buffer
	if err := Render(&js, out, "json", report.Options{}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Schema    string
		Scenarios []struct {
			Name  string
			Steps []struct {
				Step    int
				Targets []string
				Report  struct{ Schema string }
			}
		}
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Schema != Schema || len(doc.Scenarios) != 2 || len(doc.Scenarios[0].Steps) != 2 || doc.Scenarios[0].Steps[1].Report.Schema != report.CompareSchema {
		t.Errorf("json: got %+v", doc)
	}
	if f := out.Failures(); len(f) != 0 {
		t.Errorf("failures: got %v; want none", f)
	}
}

// TestRunStartsAndStopsTargets starts a target by its command, runs against it, and stops it:
// when the run ends and when it is interrupted.
func TestRunStartsAndStopsTargets(t *testing.T) {
	t.Parallel()
	for _, interrupt := range []bool{false, true} {
		t.Run(fmt.Sprintf("interrupted=%v", interrupt), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			addr := freeAddr(t)
			pidFile := filepath.Join(dir, "pid")
			bench := readBench(t, dir, fmt.Sprintf(`targets:
  started:
    url: http://%s/
    command: [%q]
    env: {%s: %q, HELPER_PID_FILE: %q}
    ready_timeout: 1m
scenarios:
  long:
    steps: [1, 2]
    step: 1h
    interval: 100ms
`, addr, os.Args[0], helperEnv, addr, pidFile))
			if !interrupt {
				bench.Scenarios[0].Steps, bench.Scenarios[0].Step = nil, 0
				bench.Scenarios[0].Plan.Load.Requests = 20
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			logDir := t.TempDir()
			out, err := Run(ctx, bench, Options{
				LogDir: logDir,
				Outputs: func(RunID) output.Set {
					// the first measured interval ends the run: an interruption, as Ctrl-C makes
					return output.Set{&probe{tick: func(tk *engine.Tick) {
						if interrupt && tk.Interval.Sent() > 0 {
							cancel()
						}
					}}}
				},
			})
			if err != nil {
				t.Fatal(err)
			}
			if out.TargetErr != nil {
				t.Fatal(out.TargetErr)
			}
			if out.Interrupted != interrupt {
				t.Errorf("interrupted: got %v; want %v", out.Interrupted, interrupt)
			}
			if len(out.Runs) != 1 || out.Runs[0].Summary == nil || out.Runs[0].Summary.Requests.OK == 0 {
				t.Fatalf("runs: got %+v; want one run with answers", out.Runs)
			}
			if got := out.Runs[0].Summary.Interrupted; got != interrupt {
				t.Errorf("summary interrupted: got %v; want %v", got, interrupt)
			}
			b, err := os.ReadFile(pidFile)
			if err != nil {
				t.Fatal(err)
			}
			pid, _ := strconv.Atoi(string(b))
			if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
				t.Errorf("target process %d after the run: kill -0 says %v; want it gone", pid, err)
			}
			if _, err := os.Stat(filepath.Join(logDir, "started.log")); err != nil {
				t.Errorf("target log: %v", err)
			}
		})
	}
}

func TestRunTargetThatDoesNotStart(t *testing.T) {
	t.Parallel()
	bench := readBench(t, t.TempDir(), fmt.Sprintf(`targets:
  broken: {url: "http://%s/", command: "echo no such server; exit 7"}
scenarios:
  s: {requests: 1}
`, freeAddr(t)))
	out, err := Run(context.Background(), bench, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if out.TargetErr == nil || !strings.Contains(out.TargetErr.Error(), "ended before the target was ready (exit status 7)") {
		t.Errorf("target error: got %v", out.TargetErr)
	}
	if len(out.Runs) != 0 || len(out.Failures()) != 1 {
		t.Errorf("runs %v, failures %v; want no run and one failure", out.Runs, out.Failures())
	}
}

// TestCommandScenario runs a command against two targets: its exit status, its `go test -json`
// counts and the target's URL in its environment.
// runScriptOnTwo runs a plan in dir whose one scenario, e2e, is script run against targets a and
// b, and returns what it did: one command run against each.
func runScriptOnTwo(t *testing.T, dir, script string, o Options) *Outcome {
	t.Helper()
	bench := readBench(t, dir, fmt.Sprintf(`targets:
  a: {url: "http://127.0.0.1:1/"}
  b: {url: "http://127.0.0.1:2/"}
scenarios:
  e2e:
    command: %q
    timeout: 1m
`, script))
	out, err := Run(context.Background(), bench, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Commands) != 2 {
		t.Fatalf("commands: got %+v", out.Commands)
	}
	return out
}

func TestCommandScenario(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script := `printf '{"Action":"run","Test":"TestA"}\n{"Action":"pass","Test":"TestA"}\n{"Action":"pass","Test":"TestA/sub"}\n'
printf '{"Action":"skip","Test":"TestC"}\nnot json\n{"Action":"pass","Package":"p"}\n'
if [ "$RPCBENCH_TARGET_NAME" = b ]; then printf '{"Action":"fail","Test":"TestB"}'; exit 3; fi
echo "$RPCBENCH_TARGET_URL" > url.txt`
	logDir := t.TempDir()
	out := runScriptOnTwo(t, dir, script, Options{LogDir: logDir})
	a, b := out.Commands[0], out.Commands[1]
	if a.ExitCode != 0 || !a.OK() || a.Tests == nil || *a.Tests != (TestCounts{Passed: 2, Skipped: 1}) {
		t.Errorf("a: got %+v, tests %+v; want exit 0, 2 passed, 1 skipped", a, a.Tests)
	}
	if b.ExitCode != 3 || b.OK() || b.Tests == nil || *b.Tests != (TestCounts{Passed: 2, Failed: 1, Skipped: 1}) {
		t.Errorf("b: got %+v, tests %+v; want exit 3, 2 passed, 1 failed, 1 skipped", b, b.Tests)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "url.txt")); string(got) != "http://127.0.0.1:1/\n" {
		t.Errorf("the command's RPCBENCH_TARGET_URL, run in the plan's directory: got %q", got)
	}
	if got, _ := os.ReadFile(filepath.Join(logDir, "e2e.b.out")); !strings.Contains(string(got), `"Test":"TestB"`) {
		t.Errorf("output file: got %q", got)
	}
	if f := out.Failures(); len(f) != 1 || f[0] != "e2e on b: exit status 3" {
		t.Errorf("failures: got %q", f)
	}
	var md bytes.Buffer
	if err := Render(&md, out, "markdown", report.Options{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "| b | 3 | ") || !strings.Contains(md.String(), "| 2 | 1 | 1 |") {
		t.Errorf("markdown:\n%s", md.String())
	}
}

// A command's `go test -json` output gives the suite's own time, the Elapsed of its package events
// (summed over packages): what ran before the test binaries (here a sleep standing in for the
// build) is in the wall time only, and the report compares the suite times.
func TestCommandSuiteTime(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script := `sleep 0.3
printf '{"Action":"pass","Package":"p","Test":"TestA","Elapsed":0.1}\n{"Action":"pass","Package":"p","Elapsed":0.2}\n'
if [ "$RPCBENCH_TARGET_NAME" = b ]; then printf '{"Action":"fail","Package":"q","Elapsed":0.3}\n{"Action":"output","Package":"q","Elapsed":9}\n'; fi`
	out := runScriptOnTwo(t, dir, script, Options{})
	// a: package p's 0.2 s; b: p's 0.2 s and q's 0.3 s; the test's own 0.1 s and an output line's
	// Elapsed are no package's time
	for i, want := range []time.Duration{200 * time.Millisecond, 500 * time.Millisecond} {
		c := out.Commands[i]
		if c.Suite != want || c.Wall < 300*time.Millisecond {
			t.Errorf("%s: suite time %v, wall time %v; want %v, and a wall time of at least the 300ms before the suite", c, c.Suite, c.Wall, want)
		}
	}
	var md bytes.Buffer
	if err := Render(&md, out, "markdown", report.Options{}); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"| target | exit | wall time | suite time | passed | failed | skipped | suite time vs a |", "| 0 | ", " | 200ms | 1 | 0 | 0 |  |", " | 500ms | 1 | 0 | 0 | 2.50× longer |"} {
		if !strings.Contains(md.String(), w) {
			t.Errorf("markdown lacks %q:\n%s", w, md.String())
		}
	}
}

func TestCommandTimeout(t *testing.T) {
	t.Parallel()
	bench := readBench(t, t.TempDir(), `targets:
  a: {url: "http://127.0.0.1:1/"}
scenarios:
  slow: {command: "sleep 60", timeout: 200ms}
`)
	out, err := Run(context.Background(), bench, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c := out.Commands[0]; c.Err != "timed out after 200ms" || c.ExitCode != -1 {
		t.Errorf("got %+v; want a timeout and exit -1", c)
	}
}

func TestCountTests(t *testing.T) {
	t.Parallel()
	got, err := CountTests(strings.NewReader("PASS\nok  p 0.1s\n"))
	if err != nil || got != nil {
		t.Errorf("plain output: got %+v, %v; want none", got, err)
	}
	got, _ = CountTests(strings.NewReader(`{"Action":"fail","Test":"T"}`))
	if got == nil || got.Failed != 1 {
		t.Errorf("one failure without a final newline: got %+v", got)
	}
}

// A command scenario's build runs once, before any run and in no target's wall time; its rounds
// go a, b, then b, a; the report names the order and each target's mean wall time.
func TestCommandScenarioBuildAndRounds(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bench := readBench(t, dir, `targets:
  a: {url: "http://127.0.0.1:1/"}
  b: {url: "http://127.0.0.1:2/"}
scenarios:
  e2e:
    build: echo built >> log.txt
    command: echo "run $RPCBENCH_TARGET_NAME" >> log.txt
    repeat: 2
    timeout: 1m
`)
	logDir := t.TempDir()
	out, err := Run(context.Background(), bench, Options{LogDir: logDir})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "log.txt")); string(got) != "built\nrun a\nrun b\nrun b\nrun a\n" {
		t.Errorf("what ran, in order: got %q; want the build, then a, b, b, a", got)
	}
	if len(out.Builds) != 1 || !out.Builds[0].OK() || out.Builds[0].Output != filepath.Join(logDir, "e2e.build.out") {
		t.Errorf("builds: got %+v", out.Builds)
	}
	var got []string
	for _, c := range out.Commands {
		got = append(got, c.String())
		if _, err := os.Stat(c.Output); err != nil || !c.OK() {
			t.Errorf("%s: %+v, its output: %v", c, c, err)
		}
	}
	want := []string{"e2e on a (round 1)", "e2e on b (round 1)", "e2e on b (round 2)", "e2e on a (round 2)"}
	if !slices.Equal(got, want) {
		t.Errorf("runs: got %q; want %q", got, want)
	}
	var md bytes.Buffer
	if err := Render(&md, out, "markdown", report.Options{}); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{
		"build, before the runs and in no target's wall time: exit 0 in ",
		"| round | target | exit | wall time |",
		"| 2 | a | 0 | ",
		"2 rounds, in the order a, b, b, a (each round the reverse of the one before, so that going first favours no target); mean wall time: a ",
	} {
		if !strings.Contains(md.String(), w) {
			t.Errorf("markdown lacks %q:\n%s", w, md.String())
		}
	}
}

// A build that fails leaves the scenario's runs out and fails it.
func TestCommandScenarioBuildFails(t *testing.T) {
	t.Parallel()
	bench := readBench(t, t.TempDir(), `targets:
  a: {url: "http://127.0.0.1:1/"}
scenarios:
  e2e: {build: "exit 4", command: "true"}
`)
	out, err := Run(context.Background(), bench, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Commands) != 0 {
		t.Errorf("commands: got %+v; want none after a failed build", out.Commands)
	}
	if f := out.Failures(); !slices.Equal(f, []string{"e2e build: exit status 4"}) {
		t.Errorf("failures: got %q", f)
	}
}

// probe is an output that tells a test of each run's start, ticks and stop.
type probe struct {
	start func(output.Run)
	tick  func(*engine.Tick)
	stop  func(*engine.Result, *summary.Summary)
}

func (p *probe) Name() string { return "probe" }
func (p *probe) Start(r output.Run) error {
	if p.start != nil {
		p.start(r)
	}
	return nil
}
func (p *probe) Tick(t *engine.Tick) {
	if p.tick != nil {
		p.tick(t)
	}
}
func (p *probe) Stop(res *engine.Result, s *summary.Summary) error {
	if p.stop != nil {
		p.stop(res, s)
	}
	return nil
}

// A plan file's load that does not validate is told by Check at the scenario's key, line and
// column, as the file's own mistakes are; with several targets, naming the one it was run against.
func TestCheckPlacesAProblemAtItsScenario(t *testing.T) {
	t.Parallel()
	head := "targets:\n  a: {url: http://127.0.0.1:1/}\nscenarios:\n"
	for _, tc := range []struct{ name, text, want string }{
		{"a plan that does not validate", head + "  s:\n    model: closed\n    rate: 10\n",
			"p.yaml:4:3: scenarios.s: rate 10/s with the closed model"},
		{"a send slack with the closed model", head + "  s:\n    model: closed\n    send_slack: 1ms\n",
			"p.yaml:4:3: scenarios.s: send slack 1ms with the closed model"},
		{"two targets", "targets:\n  a: {url: http://127.0.0.1:1/}\n  b: {url: http://127.0.0.1:2/}\nscenarios:\n  s:\n    model: closed\n    rate: 10\n",
			"p.yaml:5:3: scenarios.s: against a: rate 10/s with the closed model"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := planfile.ReadFile("p.yaml", strings.NewReader(tc.text))
			if err != nil {
				t.Fatal(err)
			}
			_, err = Check(b, nil)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want+": ") || strings.Count(err.Error(), "\n") > 0 {
				t.Errorf("got %v; want one problem, %q and why", err, tc.want)
			}
		})
	}
}
