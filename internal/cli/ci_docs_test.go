package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
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

// userDoc is a page a user reads — README.md or a page of docs/ — by its path from the module root.
type userDoc struct{ path, text string }

// userDocs reads README.md and every docs/*.md page: the pages whose commands the tests check.
func userDocs(t *testing.T) []userDoc {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) < 12 {
		t.Fatalf("found %d pages in docs/; want one per job (at least 12)", len(pages))
	}
	docs := []userDoc{{"README.md", readRepoFile(t, "README.md")}}
	for _, p := range pages {
		path := "docs/" + filepath.Base(p)
		docs = append(docs, userDoc{path, readRepoFile(t, path)})
	}
	return docs
}

// allUserDocs is the text of README.md and every docs/*.md page, one after the other.
func allUserDocs(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	for _, d := range userDocs(t) {
		b.WriteString(d.text)
		b.WriteString("\n")
	}
	return b.String()
}

// docSection finds the section under a heading (## or deeper) that starts with heading, in
// README.md or a page of docs/, and returns the page and the section, from its heading to the next
// heading of ## or deeper. One page only may hold it.
func docSection(t *testing.T, heading string) (path, section string) {
	t.Helper()
	head := regexp.MustCompile(`(?m)^##+ ` + regexp.QuoteMeta(heading))
	for _, d := range userDocs(t) {
		loc := head.FindStringIndex(d.text)
		if loc == nil {
			continue
		}
		if path != "" {
			t.Fatalf("%s and %s both have a section %q; want one", path, d.path, heading)
		}
		path, section = d.path, d.text[loc[0]:]
		if next := regexp.MustCompile(`\n##+ `).FindStringIndex(section); next != nil {
			section = section[:next[0]]
		}
	}
	if path == "" {
		t.Fatalf("README.md and docs/ have no section %q", heading)
	}
	return path, section
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

// The README is a front door: at most 250 lines, with a link to every page of docs/. And every
// relative link of README.md and docs/ leads to a file of the repository and, with #anchor, to a
// heading of that page (as GitHub makes anchors: lower case, punctuation dropped, spaces to
// hyphens), so that moving a section cannot leave a link behind.
func TestDocsLinksResolve(t *testing.T) {
	t.Parallel()
	docs := userDocs(t)
	readme := docs[0].text
	if n := strings.Count(readme, "\n"); n > 250 {
		t.Errorf("README.md has %d lines; want at most 250 (the rest belongs in docs/)", n)
	}
	anchors := map[string]map[string]bool{} // page → its headings' anchors
	for _, d := range docs {
		anchors[d.path] = headingAnchors(d.text)
		if d.path != "README.md" && !strings.Contains(readme, "]("+d.path+")") {
			t.Errorf("README.md does not link %s; want every page of docs/ in its table of contents", d.path)
		}
	}
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	for _, d := range docs {
		for _, m := range link.FindAllStringSubmatch(d.text, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			page := d.path
			if file != "" {
				page = filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(d.path), file)))
				if _, err := os.Stat(filepath.Join("..", "..", filepath.FromSlash(page))); err != nil {
					t.Errorf("%s: the link %s leads to no file: %v", d.path, target, err)
					continue
				}
			}
			if anchor == "" {
				continue
			}
			want, ok := anchors[page]
			if !ok {
				want = headingAnchors(readRepoFile(t, page))
			}
			if !want[anchor] {
				t.Errorf("%s: the link %s leads to no heading of %s", d.path, target, page)
			}
		}
	}
}

// headingAnchors is the set of anchors GitHub gives the headings of a Markdown page, leaving out
// lines in code blocks.
func headingAnchors(text string) map[string]bool {
	anchors := map[string]bool{}
	fenced := false
	for line := range strings.Lines(text) {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced || !strings.HasPrefix(line, "#") {
			continue
		}
		title := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(title) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		anchors[b.String()] = true
	}
	return anchors
}
