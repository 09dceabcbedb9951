package cli

import (
	"strings"
	"testing"

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

	// every rate up to --max passes: 50/s, then 100/s, and the search stops there
	code, stdout, stderr := mainOut("capacity", "--slo", "errors<1%", "--start", "50", "--max", "100", "--step", "200ms", "--step-warmup", "0", "--quiet", url)
	if code != ExitOK || !strings.Contains(stdout, "max sustainable: 100/s") || !strings.Contains(stdout, "raise --max") || strings.Count(stdout, " pass\n") != 2 {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s\nwant exit 0, two passing steps and 100/s as the answer", code, stdout, stderr)
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
		{[]string{"capacity", "--slo", "p99<1s", "--format", "csv", url}, "--format csv: capacity writes text, markdown, json, html"},
		{[]string{"capacity", "--slo", "p99<1s", "--start", "10", "--max", "5", url}, "max rate 5"},
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
