package cli

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/serve/lab"
)

// compareFiles saves two bounded runs (1 s at 100/s, 10 intervals of 100 ms) in dir: base.rb of a
// server that answers at once, slow.rb of one that takes 80 ms, far beyond what noise adds.
func compareFiles(t *testing.T, dir string) (base, slow string) {
	t.Helper()
	base, slow = filepath.Join(dir, "base.rb"), filepath.Join(dir, "slow.rb")
	for _, r := range []struct {
		path string
		cfg  lab.Config
	}{{base, lab.Config{}}, {slow, lab.Config{Latency: 80 * time.Millisecond}}} {
		srv := startLab(t, r.cfg)
		code, _, stderr := cliRun(t, "run", "--rate", "100", "--duration", "1s", "--interval", "100ms", "--quiet", "--out", r.path, srv.URL()+"/r")
		srv.Close()
		if code != ExitOK {
			t.Fatalf("run: exit %d: %s", code, stderr)
		}
	}
	return base, slow
}

func TestCompareGates(t *testing.T) {
	t.Parallel()
	base, slow := compareFiles(t, t.TempDir())

	// every interval of slow.rb has a p99 of 80 ms or more: beyond the noise and far beyond +10%
	code, stdout, stderr := cliRun(t, "compare", "--fail-on", "p99:+10%,errors:+0.5pp", base, slow)
	if code != ExitSLO {
		t.Fatalf("exit %d; want %d (a failed gate); stdout:\n%s\nstderr: %s", code, ExitSLO, stdout, stderr)
	}
	if !strings.Contains(stdout, "FAIL  p99:+10%") || !strings.Contains(stdout, "pass  errors:+0.5pp") || !strings.Contains(stderr, "--fail-on p99:+10%: p99 rose") {
		t.Errorf("want the p99 gate failed and the errors gate passed; stdout:\n%s\nstderr: %s", stdout, stderr)
	}

	// the other way round, slow.rb as the base: p99 fell, better, no gate fails
	code, stdout, stderr = cliRun(t, "compare", "--fail-on", "p99:+10%", "--format", "json", slow, base)
	if code != ExitOK {
		t.Fatalf("reversed: exit %d; want 0; stderr: %s", code, stderr)
	}
	var got struct {
		Failed bool
		Delta  struct {
			Labels  []string
			Changes []struct {
				Name, Verdict string
				Samples       []int
			}
		}
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("%v: %s", err, stdout)
	}
	if got.Failed || got.Delta.Labels[0] != "slow.rb" {
		t.Errorf("got failed %v, labels %v; want not failed, slow.rb first", got.Failed, got.Delta.Labels)
	}
	for _, c := range got.Delta.Changes {
		if c.Name == "p99" && (c.Verdict != "better" || c.Samples[0] < 5 || c.Samples[1] < 5) {
			t.Errorf("p99: got %q on %v intervals; want better on 5 or more each (10 unless a busy machine merged intervals)", c.Verdict, c.Samples)
		}
	}

	// a run against itself: every figure the same, no gate fails
	code, stdout, _ = cliRun(t, "compare", "--fail-on", "p99:+0%,rps:-0%", "--label", "a", "--label", "b", base, base)
	if code != ExitOK || strings.Contains(stdout, "worse") || !strings.Contains(stdout, "b compared with a") {
		t.Errorf("against itself: exit %d; want 0, nothing worse; stdout:\n%s", code, stdout)
	}
	code, stdout, _ = cliRun(t, "compare", "--format", "markdown", base, slow)
	if code != ExitOK || !strings.Contains(stdout, "| p99 |") || !strings.Contains(stdout, "**worse**") {
		t.Errorf("markdown: exit %d; stdout:\n%s", code, stdout)
	}
}

func TestCompareUsageErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"compare", "a.rb"}, "want two result files, BASE and NEW, got 1"},
		{[]string{"compare", "--fail-on", "p99:10", "a.rb", "b.rb"}, `--fail-on: "p99:10": the limit "10" has no unit`},
		{[]string{"compare", "--fail-on", "p99.9:+10%", "a.rb", "b.rb"}, `--fail-on: "p99.9:+10%": unknown figure "p99.9"`},
		{[]string{"compare", "--fail-on", "rps:+5%", "a.rb", "b.rb"}, "rps gets worse as it falls; write rps:-5%"},
		{[]string{"compare", "--alpha", "0", "a.rb", "b.rb"}, "--alpha: want a significance level between 0 and 1"},
		{[]string{"compare", "--format", "html", "a.rb", "b.rb"}, "--format"},
		{[]string{"compare", "--label", "x", "a.rb", "b.rb"}, "--label: got 1 names for 2 files"},
		{[]string{"compare", filepath.Join(dir, "none.rb"), filepath.Join(dir, "none2.rb")}, "none.rb"},
	}
	for _, tc := range tests {
		code, _, stderr := cliRun(t, tc.args...)
		if code != ExitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, stderr, ExitUsage, tc.want)
		}
	}
}

// compare's flags have examples in its help and in the README, as printed.
func TestCompareFlagsHaveExamples(t *testing.T) {
	t.Parallel()
	readme := readRepoFile(t, "README.md")
	_, help, _ := mainOut("help", "compare")
	examples, _, _ := strings.Cut(help, "\nFlags:")
	for _, flag := range []string{"--fail-on", "--alpha", "--format", "-o"} {
		line := regexp.MustCompile(`(?m)^\s*rpcbench compare .*` + flag + ` `)
		if !line.MatchString(examples) {
			t.Errorf("help compare: got no example with %s; want one", flag)
		}
		if !line.MatchString(readme) {
			t.Errorf("README.md: got no rpcbench compare command with %s; want one", flag)
		}
	}
}
