package cli

import (
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/monitor"
	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/serve/lab"
)

func TestCapacityCommand(t *testing.T) {
	t.Parallel()
	srv, err := lab.New(lab.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	url := srv.URL() + "/"

	// every rate up to --max passes: 50/s, then 100/s, repeated twice to confirm it, and the
	// search stops there
	code, stdout, stderr := mainOut("capacity", "--slo", "errors<1%", "--start", "50", "--max", "100", "--step", "200ms", "--step-warmup", "0", "--quiet", url)
	if code != ExitOK || !strings.Contains(stdout, "max sustainable: at least 100/s, the highest tried (3 of 3 runs passed, ") || !strings.Contains(stdout, "raise --max") ||
		strings.Count(stdout, " pass\n") != 2 || strings.Count(stdout, " pass (repeat)\n") != 2 {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s\nwant exit 0, two passing steps, two passing repeats and 100/s as the answer", code, stdout, stderr)
	}

	// an objective nothing meets: exit 1, and each step on the progress line
	code, stdout, stderr = mainOut("capacity", "--slo", "p50<0.001ms", "--start", "50", "--step", "200ms", "--step-warmup", "0", "--max-steps", "2", url)
	if code != ExitSLO || !strings.Contains(stdout, "no rate tried met the objective") || strings.Count(stderr, "FAIL p50<1µs") != 2 {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s\nwant exit 1 and two failing steps", code, stdout, stderr)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"capacity", url}, "--slo: give the objective"},
		{[]string{"capacity", "--slo", "p99<", url}, "--slo"},
		{[]string{"capacity", "--slo", "p99<1s", "--rate", "10", url}, "--rate: capacity chooses it; use --start and --max"},
		{[]string{"capacity", "--slo", "p99<1s", "--duration", "10s", url}, "--duration: capacity chooses it; use --step"},
		{[]string{"capacity", "--slo", "p99<1s", "--segment", "1/2", url}, "--segment: capacity chooses it; use one generator"},
		{[]string{"capacity", "--slo", "p99<1s", "--start-at", "+1s", url}, "--start-at: capacity chooses it"},
		{[]string{"capacity", "--slo", "p99<1s", "--out", "x.rb", url}, "--out x.rb: capacity writes no result file; use --report-file, or --out TYPE=URL"},
		{[]string{"capacity", "--slo", "p99<1s", "--out", "otlp=127.0.0.1:4318", url}, `--out otlp=127.0.0.1:4318: "127.0.0.1:4318" is not an OTLP/HTTP URL`},
		{[]string{"capacity", "--slo", "p99<1s", "--metrics-addr", "9464", url}, `--metrics-addr: "9464" is not an address to listen on`},
		{[]string{"capacity", "--slo", "p99<1s", "--format", "csv", url}, "--format csv: capacity writes text, markdown, json, html"},
		{[]string{"capacity", "--slo", "p99<1s", "--start", "10", "--max", "5", url}, "max rate 5"},
		{[]string{"capacity", "--slo", "p99<1s", "--confirm", "0", url}, "--confirm 0: want 1 to 20 runs"},
		{[]string{"capacity", "--slo", "p99<1s", "--monitor-pid", "x", url}, "--monitor-pid x: want a process ID"},
		{[]string{"capacity", "--slo", "p99<1s", "--targets", "/nonexistent/t.http"}, "--targets:"},
		{[]string{"capacity", "--slo", "p99<1s"}, "want one URL"},
	} {
		code, _, stderr := mainOut(tc.args...)
		if code != ExitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 saying %q", tc.args, code, stderr, tc.want)
		}
	}
}

// The help of capacity lists the flags it takes, not those of run it refuses (each refusal is
// tested above), and still the request flags it shares with run.
func TestCapacityHelpLeavesOutRefusedFlags(t *testing.T) {
	t.Parallel()
	code, help, _ := mainOut("help", "capacity")
	if code != ExitOK {
		t.Fatalf("help capacity: exit %d", code)
	}
	for name := range capacityDecides {
		if strings.Contains(help, "\n  --"+name+" ") || strings.Contains(help, "\n  --"+name+"\n") {
			t.Errorf("help capacity lists --%s, which capacity refuses", name)
		}
	}
	for _, name := range []string{"--slo", "--start", "--step", "--step-warmup", "--connections", "--jsonrpc", "--targets", "--report-file"} {
		if !strings.Contains(help, "\n  "+name+" ") && !strings.Contains(help, "\n  "+name+"\n") {
			t.Errorf("help capacity lacks %s", name)
		}
	}
}

// With --monitor-pid, each step watches the target — here this process, which serves the lab —
// and the answer gives its CPU at the max sustainable rate.
func TestCapacityShowsTheTargetsCPUAtTheAnswer(t *testing.T) {
	t.Parallel()
	if _, err := monitor.NewSampler(monitor.Self()); err != nil {
		t.Skip(err)
	}
	srv, err := lab.New(lab.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	pid := strconv.Itoa(os.Getpid())
	code, stdout, stderr := mainOut("capacity", "--slo", "errors<1%", "--start", "50", "--max", "50", "--confirm", "2", "--step", "400ms", "--step-warmup", "0",
		"--interval", "100ms", "--monitor-pid", pid, "--quiet", "--format", "json", srv.URL()+"/")
	var doc struct {
		Answer string
		Steps  []struct {
			Report struct{ Resources []result.Resources }
		}
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil || code != ExitOK {
		t.Fatalf("exit %d, %v\nstdout:\n%s\nstderr:\n%s", code, err, stdout, stderr)
	}
	if len(doc.Steps) != 2 {
		t.Fatalf("%d steps; want 2 (50/s and its repeat)", len(doc.Steps))
	}
	for i, st := range doc.Steps {
		var watched *result.Resources
		for j, r := range st.Report.Resources {
			if r.Target == "pid "+pid {
				watched = &st.Report.Resources[j]
			}
		}
		// the target watched through the step: a first reading (the baseline, at the step's start
		// or, on a loaded machine, a little after it) and one at its end (the step lasts 400 ms;
		// the last reading comes with its last tick, or at most a quarter of an interval before
		// it), with a CPU figure between. How many readings at 100 ms fall between depends on how
		// fast /proc is read on a loaded machine (a slow first reading pushes the ticks back), so
		// the count is not asked for
		if watched == nil || watched.Summary.CPUPercent.Samples < 1 || len(watched.Samples) < 2 ||
			watched.Samples[len(watched.Samples)-1].At < 350*time.Millisecond {
			t.Errorf("step %d: resources %+v; want pid %s read at least twice, the last time at the step's end (350 ms in, at least), with a CPU figure", i, st.Report.Resources, pid)
		}
	}
	if want := "; CPU of pid " + pid + " at 50/s: "; !strings.Contains(doc.Answer, want) || !strings.HasSuffix(doc.Answer, " peak of one core") {
		t.Errorf("answer %q; want it to end with %q… peak of one core", doc.Answer, want)
	}
}
