package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The hand-written go test -bench outputs whose figures gobench's tests work out by hand.
const oldBenchFile, newBenchFile = "../../tools/gobench/testdata/old.txt", "../../tools/gobench/testdata/new.txt"

// TestReportGoBench: Go benchmark output is recognised by content and compared as benchstat does.
func TestReportGoBench(t *testing.T) {
	t.Parallel()
	code, out, stderr := cliRun(t, "report", oldBenchFile, newBenchFile)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"sec/op         old.txt      new.txt  vs old.txt\n",
		// Encode: medians 1002.5 → 901 ns, every new value below every old one: p = 2/924
		"Encode-8  1002.5n ± 2%  901.0n ± 1%  -10.12% (p=0.002 n=6)\n",
		"Decode-8   1.995µ ± 5%  2.008µ ± 4%  ~ (p=0.699 n=6)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
}

func TestReportGoBenchFormats(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	page := filepath.Join(dir, "bench.html")
	// the format follows -o's extension; --label names the columns
	code, _, stderr := cliRun(t, "report", "--gobench", "-o", page, "--label", "before", "--label", "after", oldBenchFile, newBenchFile)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if s := string(b); !strings.HasPrefix(s, "<!DOCTYPE html>") || !strings.Contains(s, `<td class="better">-10.12% (p=0.002 n=6)</td>`) || !strings.Contains(s, "<th>after</th>") {
		t.Errorf("got a page without the labels or the Encode change:\n%.600s", s)
	}
	code, out, stderr := cliRun(t, "report", "--format", "markdown", "--alpha", "0.001", oldBenchFile, newBenchFile)
	if code != ExitOK {
		t.Fatalf("markdown: exit %d: %s", code, stderr)
	}
	// at alpha 0.001 the Encode change, p = 0.00216, is no longer significant, and a note says that
	// 6+6 values cannot reach such a p
	if !strings.Contains(out, "| Encode-8 | 1002.5n ± 2% | 901.0n ± 1% | ~ (p=0.002 n=6)¹ |") {
		t.Errorf("markdown --alpha 0.001: got\n%s", out)
	}
}

func TestReportGoBenchBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes.txt")
	os.WriteFile(notes, []byte("nothing to see\n"), 0o644)
	skip := filepath.Join(dir, "skip.txt")
	os.WriteFile(skip, []byte("BenchmarkA-2\t10\t5 ns/op\nBenchmarkB-2\tmany\t5 ns/op\n"), 0o644)
	for _, c := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"a result file among benchmark files", []string{oldBenchFile, "../../report/testdata/one.rb"}, ExitUsage, "old.txt is go test -bench output and ../../report/testdata/one.rb is not"},
		{"--gobench on a file without results", []string{"--gobench", notes}, ExitUsage, "notes.txt: no benchmark results: want lines like"},
		{"a format that does not render benchmarks", []string{"--format", "csv", oldBenchFile}, ExitUsage, "--format csv does not render Go benchmarks; want one of text, json, markdown, html"},
		{"alpha out of range", []string{"--alpha", "5", oldBenchFile}, ExitUsage, "--alpha 5: want a level between 0 and 1"},
		{"a label per file", []string{"--label", "x", oldBenchFile, newBenchFile}, ExitUsage, "--label: got 1 names for 2 files"},
		{"-o over an input", []string{"-o", oldBenchFile, oldBenchFile}, ExitUsage, "is also a benchmark file to read"},
		{"a line that is not a result is skipped and named", []string{skip}, ExitOK, "skip.txt:2: parsing iteration count: invalid syntax (line skipped)"},
	} {
		code, _, stderr := cliRun(t, append([]string{"report"}, c.args...)...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: got exit %d, stderr %q; want %d and %q", c.name, code, stderr, c.code, c.want)
		}
	}
}

// TestReportGoBenchLeavesResultFiles: result files still go to the load report, and its help lists
// the benchmark flags.
func TestReportGoBenchLeavesResultFiles(t *testing.T) {
	t.Parallel()
	code, out, stderr := cliRun(t, "report", "../../report/testdata/one.rb")
	if code != ExitOK || strings.Contains(out, "sec/op") || !strings.Contains(out, "Latency") && !strings.Contains(out, "latency") {
		t.Errorf("a result file: exit %d, stderr %s, out:\n%.300s", code, stderr, out)
	}
	_, help, _ := cliRun(t, "report", "--help")
	if strings.Count(help, "Usage:") != 1 || !strings.HasPrefix(help, "Usage: rpcbench report") || !strings.Contains(help, "--gobench") || !strings.Contains(help, "go test -bench . -benchmem -count 6 > old.txt") {
		t.Errorf("report --help says nothing of Go benchmarks:\n%s", help)
	}
}

// The Go benchmark section of the docs (docs/reports.md) works as printed: its rpcbench commands run on two files of
// go test -bench output (the hand-written ones, under the names the go test lines give them), and
// the output it shows is the report of those files.
func TestREADMEGoBench(t *testing.T) {
	t.Parallel()
	page, sec := docSection(t, "Go benchmarks beside load results\n")
	dir := t.TempDir()
	for name, src := range map[string]string{"old.txt": oldBenchFile, "new.txt": newBenchFile} {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, name), b, 0o644)
	}
	ran := 0
	for _, line := range strings.Split(sec, "\n") {
		if !strings.HasPrefix(line, "rpcbench report ") {
			continue
		}
		line, _, _ = strings.Cut(line, "  #")
		words := shellWords(t, line)[1:]
		for i, w := range words {
			if w == "old.txt" || w == "new.txt" || w == "bench.html" {
				words[i] = filepath.Join(dir, w)
			}
		}
		code, out, stderr := cliRun(t, words...)
		if code != ExitOK || strings.Contains(line, "-o ") != (out == "") {
			t.Errorf("%s: exit %d, stderr %s", line, code, stderr)
		}
		ran++
	}
	if ran < 3 {
		t.Errorf("ran %d report commands of the Go benchmark section of %s; want 3", ran, page)
	}
	if _, err := os.Stat(filepath.Join(dir, "bench.html")); err != nil {
		t.Errorf("%s: the html command wrote no page: %v", page, err)
	}
	_, shown, _ := strings.Cut(sec, "tools/gobench/testdata/old.txt tools/gobench/testdata/new.txt`):\n\n```\n")
	shown, _, _ = strings.Cut(shown, "```\n")
	_, got, _ := cliRun(t, "report", oldBenchFile, newBenchFile)
	if shown != got {
		t.Errorf("%s shows:\n%s\nthe report of the two files is:\n%s", page, shown, got)
	}
}
