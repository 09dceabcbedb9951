package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rpcbench/rpcbench/serve/lab"
)

// A run with stages gives the watched targets' resources per stage (here the generator, which
// watches itself in every run): one row per stage kept (the two steps of 1 s; the zero-length
// steps are no stage of their own), in text, Markdown and HTML; and, with a target watched (the
// test's own process), in the CSV that `rpcbench report` makes of the result file.
func TestStageResources(t *testing.T) {
	t.Parallel()
	srv, err := lab.New(lab.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	args := []string{"run", "--stages", "0s:20,1s:20,0s:40,1s:40", "--interval", "250ms", "--quiet", srv.URL() + "/"}
	out := filepath.Join(t.TempDir(), "run.rb")
	code, md, stderr := mainOut(append(args, "--format", "markdown", "--out", out, "--monitor-pid", strconv.Itoa(os.Getpid()))...)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	_, table, ok := strings.Cut(md, "Resources per stage:")
	rows := regexp.MustCompile(`(?m)^\| ([0-9]+) \| rpcbench \(self\) \| [0-9.]+% \| [0-9.]+% \| [0-9.]+ MiB \| [0-9.]+ MiB \|`).FindAllStringSubmatch(table, -1)
	if !ok || len(rows) != 2 || rows[0][1] != "2" || rows[1][1] != "4" {
		t.Errorf("Markdown: got rows %v; want the generator's resources in stages 2 and 4\n%s", rows, md)
	}
	code, csv, stderr := mainOut("report", "--format", "csv", out)
	pid := fmt.Sprintf("pid %d", os.Getpid())
	stages := regexp.MustCompile(`(?m)^run\.rb,[0-9.]+,[0-9.]+,,,,,,,,,,stage,([0-9]+),,,([^,]+),,,[0-9.]+,[0-9]+,,,,,,,,,[0-9]+,[0-9.]+,[0-9]+,`).FindAllStringSubmatch(csv, -1)
	var got []string
	for _, m := range stages {
		got = append(got, m[1]+" "+m[2])
	}
	if want := []string{"2 " + pid, "2 rpcbench (self)", "4 " + pid, "4 rpcbench (self)"}; code != ExitOK || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("CSV: exit %d, %s; got stage resource rows %q; want %q\n%s", code, stderr, got, want, csv)
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
