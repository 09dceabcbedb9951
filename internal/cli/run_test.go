package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/serve/lab"
	"github.com/rpcbench/rpcbench/summary"
)

func startLab(t *testing.T, cfg lab.Config, opts ...lab.Option) *lab.Server {
	t.Helper()
	srv, err := lab.New(cfg, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// mainOut runs Main with args and returns its exit code and output.
func mainOut(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = Main(args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func TestRunUsageErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want string // in stderr
	}{
		{"no URL", []string{"run", "--rate", "10"}, "want one URL, got 0 arguments"},
		{"bad rate", []string{"run", "--rate", "5k/m", "http://127.0.0.1:1/"}, `--rate: "5k/m" is not a rate; use e.g. 500/s`},
		{"zero rate", []string{"run", "--rate", "0", "http://127.0.0.1:1/"}, "--rate: 0 sends nothing"},
		{"bad duration", []string{"run", "--duration", "ten", "http://127.0.0.1:1/"}, `--duration: "ten" is not a duration`},
		{"bad stages", []string{"run", "--stages", "30s", "http://127.0.0.1:1/"}, `--stages: stage 1 "30s": want DURATION:TARGET`},
		{"bad header", []string{"run", "-H", "NoColon", "http://127.0.0.1:1/"}, `run: -H: "NoColon" is not a header`},
		{"unknown flag", []string{"run", "--rat", "10", "http://127.0.0.1:1/"}, "unknown flag --rat"},
		{"bad scheme", []string{"run", "ftp://127.0.0.1/"}, `scheme "ftp" is not supported`},
		{"no scheme", []string{"run", "127.0.0.1:8080"}, "has no scheme"},
		{"rate and stages", []string{"run", "--rate", "10", "--stages", "1s:10", "http://127.0.0.1:1/"}, "both a rate and stages"},
		{"closed model with a rate", []string{"run", "--model", "closed", "--rate", "10", "http://127.0.0.1:1/"}, "closed model"},
		{"body twice", []string{"run", "--body", "x", "--body-file", "f", "http://127.0.0.1:1/"}, "--body and --body-file"},
		{"missing body file", []string{"run", "--body-file", "/nonexistent/body.json", "http://127.0.0.1:1/"}, "--body-file: open /nonexistent/body.json"},
		{"bad format", []string{"run", "--format", "xml", "http://127.0.0.1:1/"}, `--format: "xml": want one of text, json`},
		{"unknown command", []string{"rnu"}, `unknown command "rnu"`},
		{"zero connections", []string{"run", "--connections", "0", "http://127.0.0.1:1/"}, "--connections: 0 sends nothing"},
		{"negative count", []string{"run", "--requests", "-1", "http://127.0.0.1:1/"}, `--requests: "-1" is not a whole number ≥ 0`},
		{"quickstart at rate 0", []string{"quickstart", "--rate", "0"}, "--rate: want a rate above 0"},
		{"quickstart for 0s", []string{"quickstart", "--duration", "0s"}, "--duration: want a duration above 0"},
		{"port out of range", []string{"run", "--requests", "1", "http://127.0.0.1:99999/"}, "port 99999: want 1 to 65535"},
		{"ws without calls", []string{"run", "--requests", "1", "ws://127.0.0.1:1/"}, "a WebSocket URL carries JSON-RPC calls: give --jsonrpc METHOD or --calls FILE"},
		{"http and ws mixed", []string{"run", "--requests", "1", "--endpoint", "a=GET http://127.0.0.1:1/", "--endpoint", "b=GET ws://127.0.0.1:1/"}, "protocol http1 does not carry ws:// URLs"},
		{"space in the URL", []string{"run", "--requests", "1", "http://127.0.0.1:1/a b"}, "holds a space"},
		{"duration past the maximum", []string{"run", "--rate", "1", "--duration", "10001h", "http://127.0.0.1:1/"}, "duration 10001h0m0s: the run would last 10001h0m0s; want at most 10000h0m0s"},
		{"zero duration", []string{"run", "--rate", "1", "--duration", "0", "http://127.0.0.1:1/"}, `--duration: "0": want a duration above 0`},
		{"zero timeout", []string{"run", "--rate", "1", "--timeout", "0s", "http://127.0.0.1:1/"}, `--timeout: "0s": want a duration above 0`},
		{"zero interval", []string{"run", "--rate", "1", "--interval", "0", "http://127.0.0.1:1/"}, `--interval: "0": want a duration above 0`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, _, stderr := mainOut(tt.args...)
			if code != ExitUsage {
				t.Errorf("exit code %d; want %d", code, ExitUsage)
			}
			if !strings.Contains(stderr, tt.want) {
				t.Errorf("stderr %q; want it to say %q", stderr, tt.want)
			}
			if strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "panic") {
				t.Errorf("stderr shows a panic: %s", stderr)
			}
		})
	}
}

func TestHelpHasExamples(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{"run", "quickstart", "serve"} {
		code, stdout, _ := mainOut(cmd, "--help")
		if code != ExitOK || !strings.Contains(stdout, "rpcbench "+cmd) {
			t.Errorf("%s --help: exit %d, stdout %q; want 0 and usage with examples", cmd, code, stdout)
		}
	}
}

// The JSON report carries the fields of schema rpcbench.report/v1.
func TestRunJSONReport(t *testing.T) {
	t.Parallel()
	srv := startLab(t, lab.Config{BodyBytes: 10})
	dir := t.TempDir()
	file := filepath.Join(dir, "out.json")
	code, stdout, stderr := mainOut("run", "--rate", "200", "--duration", "1s", "--format", "json", "--report-file", file, srv.URL()+"/x")
	if code != ExitOK {
		t.Fatalf("exit %d; stderr %s", code, stderr)
	}
	saved, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if string(saved) != stdout {
		t.Error("the saved report differs from the printed one")
	}
	var rep map[string]any
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("report is not JSON: %v\n%s", err, stdout)
	}
	for _, path := range []string{
		"schema", "tool.version", "target", "config", "started_at", "duration_s",
		"requests.intended", "requests.sent", "requests.completed", "requests.ok", "requests.errors",
		"throughput_rps", "intended_rate_rps", "latency_ms.min", "latency_ms.mean", "latency_ms.stdev",
		"latency_ms.p50", "latency_ms.p75", "latency_ms.p90", "latency_ms.p95", "latency_ms.p99",
		"latency_ms.p999", "latency_ms.p9999", "latency_ms.max", "service_time_ms.p99",
		"send_lag_ms.p99", "send_lag_ms.max", "status.200", "errors", "bytes.in", "bytes.out", "endpoints",
	} {
		if _, ok := lookup(rep, path); !ok {
			t.Errorf("report lacks %s", path)
		}
	}
	if v, _ := lookup(rep, "schema"); v != "rpcbench.report/v1" {
		t.Errorf("schema %v; want rpcbench.report/v1", v)
	}
	if v, _ := lookup(rep, "requests.ok"); v != 200.0 {
		t.Errorf("requests.ok %v; want 200", v)
	}
	if eps, _ := lookup(rep, "endpoints"); len(eps.([]any)) != 1 {
		t.Errorf("endpoints %v; want one", eps)
	}
}

func lookup(m map[string]any, path string) (any, bool) {
	var cur any = m
	for _, k := range strings.Split(path, ".") {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = mm[k]; !ok {
			return nil, false
		}
	}
	return cur, true
}

func TestRunTextReport(t *testing.T) {
	t.Parallel()
	srv := startLab(t, lab.Config{ErrorRate: 0.5, Seed: 1})
	code, stdout, stderr := mainOut("run", "--connections", "2", "--requests", "100", srv.URL())
	if code != ExitOK {
		t.Fatalf("exit %d; stderr %s", code, stderr)
	}
	for _, want := range []string{"closed model, 2 connections", "intended 100, sent 100", "p99.99", "Latency distribution",
		"Status codes", "500", "(counted as failed)", "Failures by class", "status", "connections"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("text report lacks %q:\n%s", want, stdout)
		}
	}
}

func TestQuickstart(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := mainOut("quickstart", "--duration", "1s", "--rate", "200")
	if code != ExitOK {
		t.Fatalf("exit %d; stderr %s", code, stderr)
	}
	if !strings.Contains(stdout, "intended 200, sent 200") || !strings.Contains(stderr, "built-in lab service on http://127.0.0.1:") {
		t.Errorf("quickstart output:\n%s\n%s", stdout, stderr)
	}
}

// TestHelperProcess is not a test: it runs Main in a child process for the signal test.
func TestHelperProcess(t *testing.T) {
	if os.Getenv("RPCBENCH_HELPER_PROCESS") != "1" {
		t.Skip("runs only as a child of TestRunInterruptedBySignal")
	}
	args := os.Args
	for i, a := range args {
		if a == "--" {
			args = args[i+1:]
			break
		}
	}
	os.Exit(Main(args, os.Stdin, os.Stdout, os.Stderr))
}

// SIGINT or SIGTERM in the middle of a run: the child stops, still prints the whole report of what
// it did, saves the report file, and exits 3.
func TestRunInterruptedBySignal(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			testInterruptedBy(t, sig)
		})
	}
}

func testInterruptedBy(t *testing.T, sig syscall.Signal) {
	reached := make(chan struct{})
	var served atomic.Int64
	srv := startLab(t, lab.Config{}, lab.WithMiddleware(func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h.ServeHTTP(w, r)
			if served.Add(1) == 100 {
				close(reached)
			}
		})
	}))
	file := filepath.Join(t.TempDir(), "report.json")
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "--",
		"run", "--rate", "200", "--duration", "1m", "--format", "json", "--report-file", file, srv.URL())
	cmd.Env = append(os.Environ(), "RPCBENCH_HELPER_PROCESS=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-reached:
	case err := <-done:
		t.Fatalf("child ended before the signal: %v\n%s", err, stderr.String())
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the server did not see 100 requests within 20s")
	}
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("the child did not stop within 20s of %v", sig)
	}
	if code := cmd.ProcessState.ExitCode(); code != ExitInterrupted {
		t.Errorf("exit code %d; want %d\n%s", code, ExitInterrupted, stderr.String())
	}
	var rep struct {
		Interrupted bool `json:"interrupted"`
		Requests    struct{ Sent, OK uint64 }
	}
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("no complete JSON report after %v: %v\n%s", sig, err, stdout.String())
	}
	if !rep.Interrupted || rep.Requests.Sent < 100 || rep.Requests.OK < 100 {
		t.Errorf("report: interrupted %v, sent %d, ok %d; want true and at least 100", rep.Interrupted, rep.Requests.Sent, rep.Requests.OK)
	}
	if saved, err := os.ReadFile(file); err != nil || !bytes.Equal(saved, stdout.Bytes()) {
		t.Errorf("report file after %v: %v; want the printed report", sig, err)
	}
}

// A bad flag prints one error line, not the whole help.
func TestBadFlagPrintsNoHelp(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := mainOut("run", "--rate", "fast", "http://127.0.0.1:1/")
	if code != ExitUsage || stdout != "" || strings.Count(stderr, "\n") > 2 {
		t.Errorf("exit %d, stdout %q, stderr %q; want 2, nothing on stdout and a short error", code, stdout, stderr)
	}
}

// Help on help prints the general help once, in every spelling, instead of recursing.
func TestHelpOnHelp(t *testing.T) {
	t.Parallel()
	runCLICases(t, nil, []cliCase{
		{name: "help help", args: []string{"help", "help"}, wantCode: ExitOK, wantStdout: []string{"Usage: rpcbench COMMAND"}},
		{name: "help --help", args: []string{"help", "--help"}, wantCode: ExitOK, wantStdout: []string{"Usage: rpcbench COMMAND"}},
		{name: "--help --help", args: []string{"--help", "--help"}, wantCode: ExitOK, wantStdout: []string{"Usage: rpcbench COMMAND"}},
		{name: "-h help", args: []string{"-h", "help"}, wantCode: ExitOK, wantStdout: []string{"Usage: rpcbench COMMAND"}},
		{name: "help run", args: []string{"help", "run"}, wantCode: ExitOK, wantStdout: []string{"Usage: rpcbench run"}},
	})
}

// The quickstart's next step works as printed: its serve command starts a service where its run
// command sends. The test runs both, on a free port instead of 8080 and for 1s instead of 30s.
func TestQuickstartNextStepWorks(t *testing.T) {
	t.Parallel()
	code, _, stderr := mainOut("quickstart", "--duration", "200ms", "--rate", "50")
	if code != ExitOK {
		t.Fatalf("quickstart: got exit %d; want 0\n%s", code, stderr)
	}
	var serveArgs, runArgs []string
	for _, line := range strings.Split(stderr, "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) > 2 && f[0] == "rpcbench" && f[1] == "serve":
			serveArgs = f[2:]
		case len(f) > 2 && f[0] == "rpcbench" && f[1] == "run":
			runArgs = f[2:]
		}
	}
	if len(serveArgs) < 2 || serveArgs[len(serveArgs)-1] != "&" || len(runArgs) == 0 {
		t.Fatalf("got no \"rpcbench serve … &\" then \"rpcbench run …\" in:\n%s", stderr)
	}
	serveArgs = serveArgs[:len(serveArgs)-1]
	addr := ""
	for i, a := range serveArgs {
		if a == "--addr" && i+1 < len(serveArgs) {
			addr = serveArgs[i+1]
			serveArgs = append(serveArgs[:i:i], serveArgs[i+2:]...)
			break
		}
	}
	target := runArgs[len(runArgs)-1]
	if want := "http://" + addr + "/"; addr == "" || target != want {
		t.Fatalf("serve listens on %q, run sends to %q; want run to send to %q", addr, target, want)
	}
	lw, stop := startServeKind(t, serveArgs[0], false, serveArgs[1:]...)
	url, ok := strings.CutPrefix(lw.next(t), "lab listening on ")
	if !ok {
		t.Fatalf("serve %v printed no address", serveArgs)
	}
	runArgs[len(runArgs)-1] = url + "/"
	for i, a := range runArgs {
		if a == "--duration" && i+1 < len(runArgs) {
			runArgs[i+1] = "1s"
		}
	}
	code, stdout, stderr := mainOut(append([]string{"run"}, runArgs...)...)
	if code != ExitOK || !strings.Contains(stdout, "failed 0") {
		t.Errorf("run %v: got exit %d; want 0 and no failure\n%s\n%s", runArgs, code, stdout, stderr)
	}
	if err := stop(); err != nil {
		t.Errorf("serve: %v", err)
	}
}

// A second SIGINT or SIGTERM does not wait out --grace: against a server that never answers, with
// a grace of a minute, the child cuts its requests in flight at once, prints its whole report,
// leaves a result file that report re-renders, and exits 3.
func TestRunCutBySecondSignal(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			testCutBySecondSignal(t, sig)
		})
	}
}

func testCutBySecondSignal(t *testing.T, sig syscall.Signal) {
	reached := make(chan struct{})
	var received atomic.Int64
	srv := startLab(t, lab.Config{}, lab.WithMiddleware(func(http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if received.Add(1) == 10 {
				close(reached)
			}
			<-r.Context().Done() // never answers
		})
	}))
	rb := filepath.Join(t.TempDir(), "run.rb")
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "--",
		"run", "--rate", "100", "--duration", "1m", "--timeout", "1m", "--grace", "1m", "--format", "json", "--out", rb, srv.URL())
	cmd.Env = append(os.Environ(), "RPCBENCH_HELPER_PROCESS=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// stderr line by line: the child says when it took the first signal
	stopping, eof := make(chan struct{}), make(chan struct{})
	var errMu sync.Mutex
	go func() {
		defer close(eof)
		said := false
		sc := bufio.NewScanner(errPipe)
		for sc.Scan() {
			errMu.Lock()
			stderr.WriteString(sc.Text() + "\n")
			errMu.Unlock()
			if strings.Contains(sc.Text(), "interrupt again") && !said {
				close(stopping)
				said = true
			}
		}
	}()
	done := make(chan error, 1)
	go func() { <-eof; done <- cmd.Wait() }()
	wait := func(what string, c <-chan struct{}) {
		t.Helper()
		select {
		case <-c:
		case err := <-done:
			errMu.Lock()
			defer errMu.Unlock()
			t.Fatalf("child ended before %s: %v\n%s", what, err, stderr.String())
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("no %s within 20s", what)
		}
	}
	wait("10 requests at the server", reached)
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	wait("word of the first signal", stopping)
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	signalled := time.Now()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("the child did not stop within 20s of a second %v (its grace is 1m)", sig)
	}
	if took := time.Since(signalled); took > 10*time.Second {
		t.Errorf("the child took %v to stop after the second %v; want far less than its 1m grace", took, sig)
	}
	if code := cmd.ProcessState.ExitCode(); code != ExitInterrupted {
		t.Fatalf("exit code %d; want %d\n%s", code, ExitInterrupted, stderr.String())
	}
	var printed summary.Summary
	if err := json.Unmarshal(stdout.Bytes(), &printed); err != nil {
		t.Fatalf("no complete JSON report after a second %v: %v\n%s", sig, err, stdout.String())
	}
	if !printed.Interrupted || printed.Requests.Sent < 10 || printed.Errors["canceled"] < 10 {
		t.Errorf("report: interrupted %v, sent %d, canceled %d; want true, at least 10 sent and cut", printed.Interrupted, printed.Requests.Sent, printed.Errors["canceled"])
	}
	code, again, errs := mainOut("report", "--format", "json", rb)
	if code != ExitOK {
		t.Fatalf("report of the result file: exit %d, %s", code, errs)
	}
	var read summary.Summary
	if err := json.Unmarshal([]byte(again), &read); err != nil {
		t.Fatal(err)
	}
	if read.Requests != printed.Requests || !read.Interrupted {
		t.Errorf("the result file re-renders %+v, interrupted %v; want the printed %+v, interrupted", read.Requests, read.Interrupted, printed.Requests)
	}
}

// The first Ctrl-C says what happens next: a load waits for its requests in flight and a second
// Ctrl-C cuts them (a diff too, which runs as a load); a service or a crawl has no grace period
// and no cut, and says neither.
func TestStoppingMessage(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{
		"run":   "rpcbench run: stopping, waiting for the requests in flight (their grace period); interrupt again to cut them at once",
		"bench": "rpcbench bench: stopping, waiting for the requests in flight (their grace period); interrupt again to cut them at once",
		"diff":  "rpcbench diff: stopping, waiting for the requests in flight (their grace period); interrupt again to cut them at once",
		"serve": "rpcbench serve: stopping",
		"gen":   "rpcbench gen: stopping",
	} {
		if got := stoppingMessage(name); got != want {
			t.Errorf("%s: got %q; want %q", name, got, want)
		}
	}
}
