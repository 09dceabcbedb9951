package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rpcbench/rpcbench/k8s/frame"
	"github.com/rpcbench/rpcbench/serve/lab"
)

// run --plan runs one scenario of a plan file against one target: the plan's load, the target's
// URL joined to the scenario's path; the figures as any run's, here 30 requests.
func TestRunPlanFile(t *testing.T) {
	t.Parallel()
	srv := startLab(t, lab.Config{})
	path := writePlanFile(t, "targets:\n  lab:\n    url: "+srv.URL()+"\n  other:\n    url: http://127.0.0.1:1/\nscenarios:\n  read:\n    path: /v0/entity?id=7\n    rate: 300\n    requests: 30\n    slo: p99<1µs\n", nil)
	out := filepath.Join(t.TempDir(), "read.rb")
	code, stdout, stderr := mainOut("run", "--plan", path, "--target", "lab", "--quiet", "--out", out, "--out-log", "--no-verdict")
	if code != ExitOK {
		t.Fatalf("exit %d; want 0 with --no-verdict though the SLO is missed\n%s", code, stderr)
	}
	for _, want := range []string{srv.URL() + "/v0/entity?id=7", "intended 30, sent 30, completed 30, ok 30", "SLO: FAIL"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the report lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "SLO missed") {
		t.Errorf("stderr does not say the SLO was missed:\n%s", stderr)
	}
	// --out-log prints the result file --out wrote, byte for byte
	frames, err := frame.Read(strings.NewReader(stdout))
	if err != nil {
		t.Fatal(err)
	}
	file, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(frames) != 1 || !bytes.Equal(frames[0].Data, file) {
		t.Errorf("%d frames in the report; want one holding the %d bytes of --out", len(frames), len(file))
	}
	// without --no-verdict, the missed objective exits 1
	if code, _, stderr := mainOut("run", "--plan", path, "--target", "lab", "--quiet"); code != ExitSLO {
		t.Errorf("exit %d; want %d for a missed SLO\n%s", code, ExitSLO, stderr)
	}
}

func TestRunPlanFileBadInput(t *testing.T) {
	t.Parallel()
	path := writePlanFile(t, twoByTwo, map[string]string{"cart.http": "GET /cart\n"})
	cmd := "targets:\n  a:\n    url: http://127.0.0.1:1/\nscenarios:\n  e2e:\n    command: go test ./e2e\n"
	cmdPath := writePlanFile(t, cmd, nil)
	runCLICases(t, []string{"run"}, []cliCase{
		{"a load flag", []string{"--plan", path, "--scenario", "cart", "--target", "blue", "--rate", "5"}, ExitUsage, nil, []string{"--plan " + path + " and --rate: the plan file says what to send"}},
		{"a URL too", []string{"--plan", path, "--scenario", "cart", "--target", "blue", "http://127.0.0.1:1/"}, ExitUsage, nil, []string{"the plan file names the target"}},
		{"no scenario", []string{"--plan", path}, ExitUsage, nil, []string{"--scenario: ", "one of cart, levels"}},
		{"a step of a scenario without", []string{"--plan", path, "--scenario", "cart", "--target", "blue", "--step", "1"}, ExitUsage, nil, []string{"--step: 1: scenario cart has no steps"}},
		{"a command scenario", []string{"--plan", cmdPath, "--scenario", "e2e"}, ExitUsage, nil, []string{`"e2e" is a command scenario`}},
		{"no plan file", []string{"--plan", "no-such.yaml"}, ExitUsage, nil, []string{"no-such.yaml"}},
	})
}

// writePlanFile writes a plan file (and the files it names) into a new directory and returns its
// path.
func writePlanFile(t *testing.T, text string, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		writeFile(t, dir, name, body)
	}
	return writeFile(t, dir, "shop.yaml", text)
}

const twoByTwo = `targets:
  blue:
    url: http://blue.shop.svc:8080/
  green:
    url: http://green.shop.svc:8080/
scenarios:
  cart:
    targets_file: cart.http
    rate: 1000
    duration: 1m
  levels:
    path: /
    steps: [10, 20]
    step: 30s
`

// run --plan of a step of a sweep of a target's flag sends to the target as it runs, and says
// that it does not start it again with the step's value, as bench does.
func TestRunPlanTargetFlagSweep(t *testing.T) {
	t.Parallel()
	srv := startLab(t, lab.Config{})
	path := writePlanFile(t, "targets:\n  lab:\n    url: "+srv.URL()+"\n    command: serve --pool 4\nscenarios:\n  pool:\n    requests: 5\n    connections: 1\n    sweep: {lab --pool: [1, 2]}\n", nil)
	code, stdout, stderr := mainOut("run", "--plan", path, "--step", "2", "--quiet")
	if code != ExitOK || !strings.Contains(stdout, "sent 5, completed 5, ok 5") {
		t.Fatalf("exit %d; want 5 requests answered\n%s%s", code, stdout, stderr)
	}
	if want := "scenario pool sweeps lab --pool, which rpcbench bench sets by starting target lab again at each value; run --plan does not: lab stays as it runs now"; !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
}

// run --plan of a plan with reports: writes none of the files bench would, and says so once, with
// the flags that give them; those flags do as it says.
func TestRunPlanSaysItWritesNoReports(t *testing.T) {
	t.Parallel()
	srv := startLab(t, lab.Config{})
	path := writePlanFile(t, "targets:\n  lab:\n    url: "+srv.URL()+"\nreports: [vegeta, plot]\nscenarios:\n  read:\n    requests: 5\n    connections: 1\n", nil)
	logFile := filepath.Join(t.TempDir(), "read.csv")
	code, stdout, stderr := mainOut("run", "--plan", path, "--format", "vegeta", "--log", logFile)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	want := "rpcbench run: the plan's reports: [vegeta, plot] are files rpcbench bench writes into its run directory; run --plan writes none of them: --format vegeta prints vegeta's text report; --log FILE keeps the per-request log, which rpcbench plot FILE draws\n"
	if n := strings.Count(stderr, want); n != 1 {
		t.Errorf("stderr says it %d times; want once %q:\n%s", n, want, stderr)
	}
	// vegeta's text report starts "Requests [total, rate, throughput]"; 5 requests in the log
	if !regexp.MustCompile(`^Requests +\[total, rate, throughput\] +5, `).MatchString(stdout) {
		t.Errorf("--format vegeta: %.300s; want vegeta's text report of 5 requests", stdout)
	}
	page := filepath.Join(t.TempDir(), "p.html")
	if code, _, stderr := mainOut("plot", "-o", page, logFile); code != ExitOK {
		t.Fatalf("plot of the --log: exit %d\n%s", code, stderr)
	}
	b, _ := os.ReadFile(page)
	if got := plotData(t, string(b)); got["read.csv: OK"]+got["read.csv: errors"] != 5 {
		t.Errorf("plot of the --log: points %v; want 5", got)
	}
	// without reports: no word of them
	plain := writePlanFile(t, "targets:\n  lab:\n    url: "+srv.URL()+"\nscenarios:\n  read:\n    requests: 1\n", nil)
	if _, _, stderr := mainOut("run", "--plan", plain, "--quiet"); strings.Contains(stderr, "reports:") {
		t.Errorf("a plan without reports: %s", stderr)
	}
}
