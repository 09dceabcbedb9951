package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// readRepoFile reads a file of the repository by its path from the module root.
func readRepoFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(path)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// CI runs exactly the test commands the README starts with, in the same order.
func TestCIRunsTheREADMETestCommands(t *testing.T) {
	t.Parallel()
	readme := readRepoFile(t, "README.md")
	start := strings.Index(readme, "```sh\n")
	if start < 0 {
		t.Fatal("README.md has no sh block")
	}
	block := readme[start+len("```sh\n"):]
	block = block[:strings.Index(block, "```")]
	var want []string
	for line := range strings.Lines(block) {
		cmd, _, _ := strings.Cut(line, "#")
		if cmd = strings.TrimSpace(cmd); strings.HasPrefix(cmd, "go test") {
			want = append(want, cmd)
		}
	}
	var got []string
	for line := range strings.Lines(readRepoFile(t, ".ci/run")) {
		if cmd := strings.TrimSpace(line); strings.HasPrefix(cmd, "go test") {
			got = append(got, cmd)
		}
	}
	if len(want) == 0 || !slices.Equal(got, want) {
		t.Errorf(".ci/run runs %q; want the README's first commands %q", got, want)
	}
}

// Every test docs/performance.md names as a guard exists.
func TestPerformanceDocNamesRealTests(t *testing.T) {
	t.Parallel()
	doc := readRepoFile(t, "docs/performance.md")
	names := regexp.MustCompile("`((?:Test|Fuzz|Benchmark)[A-Za-z0-9_]+)`").FindAllStringSubmatch(doc, -1)
	if len(names) < 5 {
		t.Fatalf("docs/performance.md names %d tests; want the guards of its claims", len(names))
	}
	defined := map[string]bool{}
	def := regexp.MustCompile(`(?m)^func ((?:Test|Fuzz|Benchmark)[A-Za-z0-9_]+)\(`)
	err := filepath.WalkDir(filepath.Join("..", ".."), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return err
		}
		b, err := os.ReadFile(path)
		for _, m := range def.FindAllStringSubmatch(string(b), -1) {
			defined[m[1]] = true
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range names {
		if !defined[m[1]] {
			t.Errorf("docs/performance.md names %s; no such test, fuzz test or benchmark", m[1])
		}
	}
}
