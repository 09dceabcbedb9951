package cli

import (
	"os"
	"path/filepath"
	"testing"
)

// rpcbench report compares several files in every format that shows several runs, names the runs
// by --label (one per file, in order) instead of their file names, and refuses a --label count
// that does not match as a usage error.
func TestReportLabelsAndComparison(t *testing.T) {
	t.Parallel()
	fixture := func(name string) string { return filepath.Join("..", "..", "report", "testdata", name) }
	one, two, multi := fixture("one.rb"), fixture("two.rb"), fixture("multi.rb")
	// a second generator of one.rb's run: the same figures at the same time (one.rb and two.rb ran
	// one after the other, which --merge refuses)
	oneAgain := filepath.Join(t.TempDir(), "one-again.rb")
	if b, err := os.ReadFile(one); err != nil || os.WriteFile(oneAgain, b, 0o644) != nil {
		t.Fatalf("copying %s: %v", one, err)
	}
	labels := []string{"--label", "before", "--label", "after"}
	cases := []cliCase{
		{"text compares", append(labels, one, two), ExitOK, []string{
			"══ before ══", "══ after ══", "══ compared with before ══", "after vs before",
			// one.rb: 300.0 req/s, p99 25.7ms; two.rb: 298.2 req/s, p99 180.6ms (report/testdata/compare.md);
			// both of the open model: the throughput is not judged
			"0.99× the requests/s\n", "7.0× the p99 (worse)", "compared at their own inputs: length 3s vs 2s",
		}, nil},
		{"file names without --label", []string{one, two}, ExitOK, []string{"══ one.rb ══", "two.rb vs one.rb"}, nil},
		{"endpoints compared", append(labels, multi, multi), ExitOK, []string{"Endpoints compared", "endpoint  figure"}, nil},
		{"markdown", append(append([]string{"--format", "markdown"}, labels...), one, two), ExitOK, []string{"| after vs before |"}, nil},
		{"json", append(append([]string{"--format", "json"}, labels...), one, two), ExitOK, []string{`"schema": "rpcbench.comparison/v1"`, `"labels": [`, `"before",`}, nil},
		{"csv", append(append([]string{"--format", "csv"}, labels...), one, two), ExitOK, []string{",p99_vs_first\n", "\nafter,,,all,600,594,6,298.2,"}, nil},
		{"html", append(append([]string{"--format", "html"}, labels...), one, two), ExitOK, []string{"Compared with A", "before", "after"}, nil},
		{"merged, one label", []string{"--merge", "--label", "both", one, oneAgain}, ExitOK, []string{"rpcbench"}, nil},
		{"too few labels", []string{"--label", "before", one, two}, ExitUsage, nil, []string{"--label: got 1 names for 2 files", "one --label per file"}},
		{"too many labels", append(labels, "--label", "x", one, two), ExitUsage, nil, []string{"--label: got 3 names for 2 files"}},
		{"two labels, merged", append(append([]string{"--merge"}, labels...), one, oneAgain), ExitUsage, nil, []string{"--merge makes one run"}},
		{"empty label", []string{"--label", " ", one}, ExitUsage, nil, []string{"-label", "want a name"}},
	}
	runCLICases(t, []string{"report"}, cases)
}
