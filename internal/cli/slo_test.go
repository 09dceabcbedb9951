package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/serve/lab"
	"github.com/rpcbench/rpcbench/summary"
)

// --slo text that plan.ParseSLO refuses is a usage error naming the flag and what was expected,
// for run and report alike; nothing is sent.
func TestSLOUsageErrors(t *testing.T) {
	t.Parallel()
	runCLICases(t, nil, []cliCase{
		{"no unit", []string{"run", "--requests", "1", "--slo", "p99<50", "http://127.0.0.1:1/"}, ExitUsage, nil,
			[]string{"--slo: p99<50: 50 has no unit: want µs, ms or s", "want objectives such as p99<50ms"}},
		{"two problems on one line", []string{"run", "--requests", "1", "--slo", "p98<1ms,rate<0.5", "http://127.0.0.1:1/"}, ExitUsage, nil,
			[]string{`--slo: p98<1ms: metric "p98": want one of p50`, "; rate<0.5: rate is a lower bound: want > or >="}},
		{"report", []string{"report", "--slo", "errors>1%", "nonexistent.rb"}, ExitUsage, nil,
			[]string{"--slo: errors>1%: errors is an upper bound"}},
	})
}

// A run is judged against --slo: the verdict is in every report format, and the exit code is 1 when
// an objective is missed. The lab answers each request after 20 ms, so a p99 under 5 ms cannot
// hold and one under 10 s cannot fail.
func TestRunSLOExitCodes(t *testing.T) {
	t.Parallel()
	srv := startLab(t, lab.Config{Latency: 20 * time.Millisecond})
	dir := t.TempDir()
	run := func(slo string, extra ...string) (int, string, string) {
		args := append([]string{"run", "--quiet", "--requests", "10", "--connections", "2", "--slo", slo}, extra...)
		return mainOut(append(args, srv.URL())...)
	}

	code, stdout, stderr := run("p99<10s,errors<1%")
	if code != ExitOK {
		t.Fatalf("p99<10s: got exit %d; want 0\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "SLO: PASS (2 objectives met)") || !strings.Contains(stdout, "pass  p99<10s") {
		t.Errorf("p99<10s: the text report lacks the passing verdict:\n%s", stdout)
	}

	html := filepath.Join(dir, "miss.html")
	code, stdout, stderr = run("p99<5ms,errors<1%", "--format", "json", "--html", html)
	if code != ExitSLO {
		t.Fatalf("p99<5ms: got exit %d; want %d\n%s", code, ExitSLO, stderr)
	}
	if !strings.Contains(stderr, "rpcbench run: SLO missed: p99<5ms (measured ") || strings.Contains(stderr, "errors<1%") {
		t.Errorf("p99<5ms: stderr should name the missed objective alone:\n%s", stderr)
	}
	var s summary.Summary
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		t.Fatalf("the JSON report: %v\n%s", err, stdout)
	}
	if s.SLO == nil || s.SLO.Pass || len(s.SLO.Objectives) != 2 || s.SLO.Objectives[0].Pass || !s.SLO.Objectives[1].Pass {
		t.Errorf("JSON slo: got %+v; want p99<5ms failed, errors<1%% met", s.SLO)
	} else if v := s.SLO.Objectives[0].Value; v < 20 {
		t.Errorf("JSON slo: p99 measured %v ms; want at least the lab's 20 ms", v)
	}
	if s.Config.SLO.String() != "p99<5ms,errors<1%" {
		t.Errorf("JSON config.slo: got %q; want the objectives as given", s.Config.SLO)
	}
	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), "SLO: FAIL (1 of 2 objectives failed)") || !strings.Contains(string(page), "<code>p99&lt;5ms</code>") {
		t.Errorf("the HTML report lacks the failing verdict")
	}

	code, stdout, _ = run("p99<5ms", "--format", "markdown")
	if code != ExitSLO || !strings.Contains(stdout, "SLO: **FAIL (1 of 1 objective failed)**") || !strings.Contains(stdout, "| `p99<5ms` |") {
		t.Errorf("markdown: got exit %d; want %d and the failing verdict:\n%s", code, ExitSLO, stdout)
	}
}

// A run in which no request succeeded exits 1 with a one-line reason, with or without --slo.
func TestRunNothingSucceeded(t *testing.T) {
	t.Parallel()
	srv := startLab(t, lab.Config{ErrorRate: 1})
	code, _, stderr := mainOut("run", "--quiet", "--requests", "6", "--connections", "2", srv.URL())
	if code != ExitSLO {
		t.Fatalf("got exit %d; want %d\n%s", code, ExitSLO, stderr)
	}
	if want := "rpcbench run: no request succeeded: 6 of 6 failed (status 6)\n"; !strings.Contains(stderr, want) {
		t.Errorf("stderr: got %q; want %q", stderr, want)
	}
	// nothing listens on a closed port: every request fails before it is sent
	code, _, stderr = mainOut("run", "--quiet", "--requests", "3", "--connections", "1", "--slo", "errors<50%", "http://127.0.0.1:1/")
	if code != ExitSLO || !strings.Contains(stderr, "no request succeeded: 3 of 3 failed (refused 3)") || !strings.Contains(stderr, "SLO missed: errors<50% (measured 100%)") {
		t.Errorf("refused: got exit %d; want %d with both reasons\n%s", code, ExitSLO, stderr)
	}
}

// report --slo judges saved runs again, in place of the objectives saved with them, and exits 1 when
// one misses; without --slo it shows the saved verdict and exits 0.
func TestReportSLO(t *testing.T) {
	t.Parallel()
	srv := startLab(t, lab.Config{Latency: 20 * time.Millisecond})
	rb := filepath.Join(t.TempDir(), "run.rb")
	if code, _, stderr := mainOut("run", "--quiet", "--requests", "10", "--connections", "2", "--slo", "p99<5ms", "--out", rb, srv.URL()); code != ExitSLO {
		t.Fatalf("run: got exit %d; want %d\n%s", code, ExitSLO, stderr)
	}
	runCLICases(t, []string{"report"}, []cliCase{
		{"saved verdict", []string{rb}, ExitOK, []string{"SLO: FAIL (1 of 1 objective failed)", "FAIL  p99<5ms"}, nil},
		{"judged again: met", []string{"--slo", "p99<10s,rate>=0", rb}, ExitOK, []string{"SLO: PASS (2 objectives met)"}, nil},
		{"judged again: missed", []string{"--slo", "p50<1ms", "--format", "json", rb}, ExitSLO, []string{`"objective": "p50\u003c1ms"`, `"pass": false`},
			[]string{"rpcbench report: run.rb: SLO missed: p50<1ms (measured "}},
		{"markdown of two", []string{"--slo", "p99<10s", "--format", "markdown", rb, rb}, ExitOK, []string{"; SLO **PASS (1 objective met)**"}, nil},
	})
}
