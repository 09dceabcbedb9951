package cli

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/serve/lab"
)

// countedLab starts a lab service that counts the requests it answers.
func countedLab(t *testing.T) (*lab.Server, *atomic.Int64) {
	var n atomic.Int64
	srv := startLab(t, lab.Config{}, lab.WithMiddleware(func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { n.Add(1); h.ServeHTTP(w, r) })
	}))
	return srv, &n
}

func writePlan(t *testing.T, text string) string {
	t.Helper()
	name := filepath.Join(t.TempDir(), "plan.yaml")
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

// A plan with two targets: one result file per scenario, step and target, the steps side by side
// in the JSON report, a command scenario's test counts, and the requests the servers answered.
func TestBench(t *testing.T) {
	t.Parallel()
	a, na := countedLab(t)
	b, nb := countedLab(t)
	name := writePlan(t, fmt.Sprintf(`targets:
  a: {url: %q}
  b: {url: %q}
scenarios:
  stepped:
    path: /v0/entity?id={{randInt 1 9}}
    steps: [1, 2]
    step: 300ms
    interval: 100ms
  e2e:
    command: printf '{"Action":"pass","Test":"T1"}\n{"Action":"fail","Test":"T2"}\n'
`, a.URL(), b.URL()))
	dir := filepath.Join(t.TempDir(), "run")
	code, stdout, stderr := mainOut("bench", "--quiet", "--format", "json", "--out-dir", dir, name)
	if code != ExitOK {
		t.Fatalf("exit %d; want 0\n%s", code, stderr)
	}
	for _, f := range []string{"stepped.step1.a.rb", "stepped.step1.b.rb", "stepped.step2.a.rb", "stepped.step2.b.rb", "e2e.a.out", "stepped.step1.html", "stepped.step2.html", "report.txt", "report.md", "report.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("run directory: %v", err)
		}
	}
	var rep struct {
		Scenarios []struct {
			Steps []struct {
				Targets []string
				Report  struct {
					Runs []struct {
						Config   struct{ Load struct{ Connections int } }
						Requests struct{ Sent, OK int64 }
					}
					Comparison struct{ Labels []string }
				}
			}
			Commands []struct {
				Target   string
				ExitCode int `json:"exit_code"`
				Tests    struct{ Passed, Failed int }
			}
		}
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("report: %v\n%s", err, stdout)
	}
	if len(rep.Scenarios) != 2 || len(rep.Scenarios[0].Steps) != 2 || len(rep.Scenarios[1].Commands) != 2 {
		t.Fatalf("report: got %+v", rep)
	}
	var sent [2]int64
	for k, st := range rep.Scenarios[0].Steps {
		if got := strings.Join(st.Report.Comparison.Labels, ","); got != "a,b" {
			t.Errorf("step %d labels: got %q; want a,b", k+1, got)
		}
		for i, r := range st.Report.Runs {
			if r.Config.Load.Connections != k+1 || r.Requests.OK != r.Requests.Sent {
				t.Errorf("step %d run %d: %d connections, %+v; want %d connections, all ok", k+1, i, r.Config.Load.Connections, r.Requests, k+1)
			}
			sent[i] += r.Requests.Sent
		}
	}
	if sent[0] != na.Load() || sent[1] != nb.Load() {
		t.Errorf("the report counts a=%d b=%d requests; the servers answered a=%d b=%d", sent[0], sent[1], na.Load(), nb.Load())
	}
	if c := rep.Scenarios[1].Commands[1]; c.Target != "b" || c.ExitCode != 0 || c.Tests.Passed != 1 || c.Tests.Failed != 1 {
		t.Errorf("command on b: got %+v; want exit 0, 1 passed, 1 failed", c)
	}
	// the result files render as rpcbench report renders any
	code, out, stderr := mainOut("report", "--format", "markdown", "--label", "a", "--label", "b",
		filepath.Join(dir, "stepped.step2.a.rb"), filepath.Join(dir, "stepped.step2.b.rb"))
	if code != ExitOK || !strings.Contains(out, "| b vs a |") {
		t.Errorf("report of the result files: exit %d\n%s\n%s", code, out, stderr)
	}
}

// --dry-run lists the runs in order with their lengths and sends nothing.
func TestBenchDryRun(t *testing.T) {
	t.Parallel()
	a, na := countedLab(t)
	name := writePlan(t, fmt.Sprintf(`targets:
  a: {url: %q}
  b: {url: "http://127.0.0.1:1/", command: "exit 1"}
scenarios:
  stepped: {steps: [1, 2], step: 2m, ramp: 30s}
  rated: {model: open, rate: 100, duration: 1m}
`, a.URL()))
	code, stdout, stderr := mainOut("bench", "--dry-run", name)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	want := []string{
		"2 targets, 2 scenarios, 6 runs, about 12m0s", // (2 steps × 2m30s + 1m) × 2 targets
		"  b  http://127.0.0.1:1/",
		"  stepped step 1/2 (1 connection) on a: closed model, 1 connection, 30s warm-up, 2m0s measured\n" +
			"  stepped step 1/2 (1 connection) on b: closed model, 1 connection, 30s warm-up, 2m0s measured\n" +
			"  stepped step 2/2 (2 connections) on a:",
		"  rated on b: open model, 100/s, 1m0s measured",
	}
	for _, w := range want {
		if !strings.Contains(stdout, w) {
			t.Errorf("dry run lacks %q:\n%s", w, stdout)
		}
	}
	if na.Load() != 0 {
		t.Errorf("a dry run sent %d requests; want none", na.Load())
	}
}

// A command scenario's build comes first, then its rounds, each in the reverse order of the one
// before; each round's runs count.
func TestBenchDryRunCommandRounds(t *testing.T) {
	t.Parallel()
	name := writePlan(t, `targets:
  a: {url: "http://127.0.0.1:1/"}
  b: {url: "http://127.0.0.1:2/"}
scenarios:
  e2e: {build: make e2e, command: ./e2e, repeat: 2}
`)
	code, stdout, stderr := mainOut("bench", "--dry-run", name)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"2 targets, 1 scenario, 4 runs", `
runs, in order:
  e2e build (timed apart): make e2e
  e2e on a (round 1): command: ./e2e
  e2e on b (round 1): command: ./e2e
  e2e on b (round 2): command: ./e2e
  e2e on a (round 2): command: ./e2e
`} {
		if !strings.Contains(stdout, want) {
			t.Errorf("dry run lacks %q:\n%s", want, stdout)
		}
	}
}

// A command's time limit is how long it may take, not how long it takes: "at least" leaves it out.
func TestBenchDryRunCommandIsNoMinimum(t *testing.T) {
	t.Parallel()
	name := writePlan(t, `targets:
  a: {url: "http://127.0.0.1:1/"}
  b: {url: "http://127.0.0.1:2/"}
scenarios:
  rated: {model: open, rate: 100, duration: 1m, warmup: 10s}
  e2e: {command: "exit 0", timeout: 5m}
`)
	code, stdout, stderr := mainOut("bench", "--dry-run", name)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	// (10 s warm-up + 1 m) × 2 targets; the commands' 5 m limits are at most, not at least
	if want := "2 targets, 2 scenarios, 4 runs, at least 2m20s"; !strings.Contains(stdout, want) {
		t.Errorf("dry run lacks %q:\n%s", want, stdout)
	}
	if want := "e2e on b: command: exit 0 (at most 5m0s)"; !strings.Contains(stdout, want) {
		t.Errorf("dry run lacks %q:\n%s", want, stdout)
	}
}

func TestBenchErrors(t *testing.T) {
	t.Parallel()
	srv, _ := countedLab(t)
	full := t.TempDir()
	os.WriteFile(filepath.Join(full, "x"), nil, 0o644)
	tests := []struct {
		name, plan string
		args       []string
		code       int
		want       string
	}{
		{"an unknown key", "targets:\n  a: {url: %q}\nscenarios:\n  s:\n    duraton: 1s\n", nil, ExitUsage,
			`plan.yaml:5:5: scenarios.s.duraton: unknown key "duraton"`},
		{"a missing target file", "targets:\n  a: {url: %q}\nscenarios:\n  s: {targets_file: none.http}\n", nil, ExitUsage,
			"plan.yaml:4:3: scenarios.s: targets: open "},
		{"an output that is a file", "outputs: [x.json]\ntargets:\n  a: {url: %q}\nscenarios:\n  s: {requests: 1}\n", nil, ExitUsage,
			`plan.yaml:1:11: outputs: want TYPE=URL, TYPE one of prometheus-rw, otlp, otlp-grpc, got "x.json"`},
		{"an output of no type", "outputs:\n  - prometheus-rw=http://127.0.0.1:1/\n  - influxdb=http://127.0.0.1:1/\ntargets:\n  a: {url: %q}\nscenarios:\n  s: {requests: 1}\n", nil, ExitUsage,
			`plan.yaml:3:5: outputs[1]: no output is named "influxdb": expected one of prometheus-rw, otlp, otlp-grpc`},
		{"an output's bad URL", "outputs: prometheus-rw=127.0.0.1:9090\ntargets:\n  a: {url: %q}\nscenarios:\n  s: {requests: 1}\n", nil, ExitUsage,
			`plan.yaml:1:10: outputs: "127.0.0.1:9090" is not a remote-write URL`},
		{"--out a file", "targets:\n  a: {url: %q}\nscenarios:\n  s: {requests: 1}\n", []string{"--out", "x.rb"}, ExitUsage,
			"--out x.rb: bench writes a result file per run into --out-dir; --out takes TYPE=URL"},
		{"a run directory with files", "targets:\n  a: {url: %q}\nscenarios:\n  s: {requests: 1}\n", []string{"--out-dir", full}, ExitUsage,
			"holds files already"},
		{"a failed SLO", "targets:\n  a: {url: %q}\nscenarios:\n  s: {requests: 5, connections: 1, slo: p50<1µs}\n", nil, ExitSLO,
			"s on a: SLO failed: p50<1µs"},
		{"a target that does not start", "targets:\n  a: {url: %q}\n  b: {url: \"http://127.0.0.1:1/\", command: \"exit 5\"}\nscenarios:\n  s: {requests: 1}\n", nil, ExitCannotStart,
			"the command \"exit 5\" ended before the target was ready (exit status 5)"},
		{"a target whose port is in use", "targets:\n  a: {url: %q, command: \"exec sleep 30\"}\nscenarios:\n  s: {requests: 1}\n", nil, ExitCannotStart,
			"is in use before its command starts"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			name := writePlan(t, fmt.Sprintf(tc.plan, srv.URL()))
			args := append([]string{"bench", "--quiet"}, tc.args...)
			if tc.args == nil {
				args = append(args, "--out-dir", filepath.Join(t.TempDir(), "run"))
			}
			code, _, stderr := mainOut(append(args, name)...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr:\n%s\nwant exit %d and %q", code, stderr, tc.code, tc.want)
			}
		})
	}
}

// SIGINT or SIGTERM during a plan file's run: the child stops the target it started, still writes
// the report and the result file of what it did, and exits 3.
func TestBenchInterruptedBySignal(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			addr := ln.Addr().String()
			ln.Close()
			// the target is this test binary serving lab, as `rpcbench serve lab` would
			name := writePlan(t, fmt.Sprintf(`targets:
  lab:
    url: http://%s/
    command: [%q, "-test.run=^TestHelperProcess$", "--", serve, lab, --addr, %q]
    ready_timeout: 1m
scenarios:
  long: {steps: [1, 2], step: 1h}
`, addr, os.Args[0], addr))
			dir := filepath.Join(t.TempDir(), "run")
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "--", "bench", "--format", "markdown", "--out-dir", dir, name)
			cmd.Env = append(os.Environ(), "RPCBENCH_HELPER_PROCESS=1")
			lw := newLineWriter()
			var stdout strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, lw.w
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			var seen []string
			deadline := time.After(time.Minute)
		wait:
			for {
				select {
				case line, ok := <-lw.lines:
					if !ok {
						t.Fatalf("the child ended before its run:\n%s", strings.Join(seen, "\n"))
					}
					seen = append(seen, line)
					if strings.Contains(line, "long step 1/2 (1 connection) on lab: 1 connection for 1h0m0s") {
						break wait
					}
				case <-deadline:
					cmd.Process.Kill()
					t.Fatalf("no run began within a minute:\n%s", strings.Join(seen, "\n"))
				}
			}
			go func() {
				for range lw.lines { // keep the pipe flowing
				}
			}()
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(time.Minute):
				cmd.Process.Kill()
				t.Fatalf("the child did not stop within a minute of %v", sig)
			}
			lw.w.Close()
			if code := cmd.ProcessState.ExitCode(); code != ExitInterrupted {
				t.Errorf("exit %d; want %d", code, ExitInterrupted)
			}
			if c, err := net.DialTimeout("tcp", addr, 5*time.Second); err == nil {
				c.Close()
				t.Errorf("the target still answers on %s after the child exited", addr)
			}
			if !strings.Contains(stdout.String(), "## long · step 1/2: 1 connection") || !strings.Contains(stdout.String(), "interrupted") {
				t.Errorf("report:\n%s", stdout.String())
			}
			for _, f := range []string{"long.step1.lab.rb", "report.md", "lab.log"} {
				if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
					t.Errorf("run directory: %v", err)
				}
			}
		})
	}
}
