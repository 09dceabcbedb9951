package report

import (
	"encoding/csv"
	"strings"
	"testing"

	"github.com/rpcbench/rpcbench/summary"
)

// A check's failing values are introduced as all it received when there are fewer than a check
// keeps, and as some of them when the check kept its most; Markdown fences a value holding
// backticks with more of them.
func TestChecksSamplesTitle(t *testing.T) {
	t.Parallel()
	s := &summary.Summary{}
	s.Checks = []summary.Check{
		{Name: "few", Passed: 1, Failed: 3, FailedSamples: []string{"`a`", "b"}},
		{Name: "many", Failed: 9, FailedSamples: []string{"1", "2", "3", "4", "5"}},
		{Name: "none failed", Passed: 4},
	}
	var b strings.Builder
	checksText(&b, &s.Stats)
	for _, w := range []string{"few failed 3 times, receiving:\n    `a`\n    b\n", "many failed 9 times; 5 of the values it received:\n",
		"  few          1       3       75.0%", "  none failed  4       0       0.0%"} {
		if !strings.Contains(b.String(), w) {
			t.Errorf("text lacks %q:\n%s", w, b.String())
		}
	}
	if strings.Contains(b.String(), "none failed failed") {
		t.Errorf("text introduces the values of a check that never failed:\n%s", b.String())
	}
	b.Reset()
	checksMarkdown(&b, &s.Stats, "")
	if w := "- `` `a` ``\n"; !strings.Contains(b.String(), w) {
		t.Errorf("markdown lacks %q:\n%s", w, b.String())
	}
}

// In a CSV with stages each check's row says its kind, and the columns stay as many as the header's.
func TestChecksCSVStaged(t *testing.T) {
	t.Parallel()
	s := stagedRun()
	s.Checks = []summary.Check{{Name: "has result", Passed: 7, Failed: 3, FailedSamples: []string{"x"}}}
	var b strings.Builder
	if err := CSV(&b, []*summary.Summary{s}, []string{"run"}); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(strings.NewReader(b.String())).ReadAll() // fails on a row of another width
	if err != nil {
		t.Fatalf("%v:\n%s", err, b.String())
	}
	want := "run,,,check: has result,10,7,3,,,,,,check,,,"
	for _, r := range rows {
		if strings.Join(r, ",") == want {
			return
		}
	}
	t.Errorf("no row %q in\n%s", want, b.String())
}
