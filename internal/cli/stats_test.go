package cli

import (
	"regexp"
	"strings"
	"testing"
)

// --stats chooses the figures of the table that puts runs side by side: base.rb's latencies are
// 5, 6 and 7 ms (400, 300 and 300 answers), slow.rb's 20, 21 and 22 ms, 1,000 answers each, so the
// means are 5.9 and 20.9 ms, the p95s 7 and 22 ms, the stdevs both √0.69 ≈ 0.83 ms (to the histogram's precision).
func TestReportStats(t *testing.T) {
	t.Parallel()
	base, slow, _ := compareFiles(t, t.TempDir())
	code, stdout, stderr := cliRun(t, "report", "--format", "markdown", "--stats", "mean,stdev,p95,requests", "--label", "base", "--label", "slow", base, slow)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, w := range []string{`\| mean \| 5\.90ms \| 20\.9ms \|`, `\| stdev \| 83[01]µs \| 83[01]µs \|`, `\| p95 \| 7\.00ms \| 22\.0ms \|`, `\| requests \| 1000 \| 1000 \|`} {
		if !regexp.MustCompile(w).MatchString(stdout) {
			t.Errorf("report lacks %s:\n%s", w, stdout)
		}
	}
	if strings.Contains(stdout, "| p99.9 |") {
		t.Errorf("report shows p99.9, not asked for:\n%s", stdout)
	}
	code, _, stderr = cliRun(t, "report", "--stats", "p50,avg", base, slow)
	if code != ExitUsage || !strings.Contains(stderr, `"avg" is not a statistic a table shows; want some of rps, transfer/s, requests`) {
		t.Errorf("--stats avg: exit %d, %s; want %d naming the statistics", code, stderr, ExitUsage)
	}
}
