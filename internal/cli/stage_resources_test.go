package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rpcbench/rpcbench/serve/lab"
)

// A run with stages gives the watched targets' resources per stage (here the generator, which
// watches itself in every run): one row per stage kept (the two steps of 1 s; the zero-length
// steps are no stage of their own), in text, Markdown and HTML.
func TestStageResources(t *testing.T) {
	t.Parallel()
	srv, err := lab.New(lab.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	args := []string{"run", "--stages", "0s:20,1s:20,0s:40,1s:40", "--interval", "250ms", "--quiet", srv.URL() + "/"}
	code, md, stderr := mainOut(append(args, "--format", "markdown")...)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	_, table, ok := strings.Cut(md, "Resources per stage:")
	rows := regexp.MustCompile(`(?m)^\| ([0-9]+) \| rpcbench \(self\) \| [0-9.]+% \| [0-9.]+% \| [0-9.]+ MiB \| [0-9.]+ MiB \|`).FindAllStringSubmatch(table, -1)
	if !ok || len(rows) != 2 || rows[0][1] != "2" || rows[1][1] != "4" {
		t.Errorf("Markdown: got rows %v; want the generator's resources in stages 2 and 4\n%s", rows, md)
	}
	page := filepath.Join(t.TempDir(), "run.html")
	code, text, stderr := mainOut(append(args, "--html", page)...)
	if code != ExitOK || !strings.Contains(text, "CPU peak") || strings.Count(text, "rpcbench (self)") < 3 {
		t.Errorf("text: exit %d, %s; want a per-stage resources table beside the run's\n%s", code, stderr, text)
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if got := regexp.MustCompile(`<tr><td>[24]</td><td>rpcbench \(self\)</td><td>[0-9.]+%</td>`).FindAll(html, -1); len(got) != 2 {
		t.Errorf("HTML: %d rows of the generator's resources per stage; want 2 (stages 2 and 4)", len(got))
	}
}
