package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rpcbench/rpcbench/internal/testnet"
	"github.com/rpcbench/rpcbench/serve/lab"
)

// An output path that is a symbolic link stays a link: the report lands in the file it points to.
func TestOutputThroughSymlink(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rb := filepath.Join(dir, "run.rb")
	outs := map[string]string{} // link -> target
	for _, n := range []string{"report.json", "page.html", "again.md", "fresh.txt"} {
		target, link := filepath.Join(dir, "real-"+n), filepath.Join(dir, n)
		if n != "fresh.txt" { // fresh.txt's link dangles: its target does not exist yet
			if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Symlink(target, link); err != nil {
			t.Skipf("no symbolic links here: %v", err)
		}
		outs[link] = target
	}
	labRun(t, lab.Config{}, "--out", rb, "--report-file", filepath.Join(dir, "report.json"), "--html", filepath.Join(dir, "page.html"))
	for _, args := range [][]string{
		{"report", "--format", "markdown", "-o", filepath.Join(dir, "again.md"), rb},
		{"report", "-o", filepath.Join(dir, "fresh.txt"), rb},
	} {
		if code, _, stderr := cliRun(t, args...); code != ExitOK {
			t.Fatalf("%v: got exit %d (%s); want 0", args, code, stderr)
		}
	}
	want := map[string]string{"report.json": `"schema"`, "page.html": "<html", "again.md": "|", "fresh.txt": "Latency"}
	for link, target := range outs {
		if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s: got mode %v (%v); want it still a symbolic link", filepath.Base(link), fi.Mode(), err)
		}
		b, err := os.ReadFile(target)
		if w := want[filepath.Base(link)]; err != nil || !strings.Contains(string(b), w) {
			t.Errorf("%s: got %.40q (%v); want the report, holding %q", filepath.Base(target), b, err, w)
		}
	}
}

// Outputs that cannot be written are usage errors found before anything is sent.
func TestOutputPathsCheckedFirst(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	missing := filepath.Join(dir, "no-such-dir", "x")
	rb := filepath.Join(dir, "run.rb")
	labRun(t, lab.Config{}, "--out", rb)
	url := "http://" + testnet.RefusedAddr(t) + "/"
	run := []string{"run", "--rate", "20", "--duration", "300ms", "--quiet"}
	with := func(extra ...string) []string { return append(append(append([]string(nil), run...), extra...), url) }
	runCLICases(t, nil, []cliCase{
		{name: "report file in a missing directory", args: with("--report-file", missing+".json"), wantCode: ExitUsage,
			wantStderr: []string{"--report-file", "does not exist"}},
		{name: "html in a missing directory", args: with("--html", missing+".html"), wantCode: ExitUsage,
			wantStderr: []string{"--html", "does not exist"}},
		{name: "result file in a missing directory", args: with("--out", missing+".rb"), wantCode: ExitUsage,
			wantStderr: []string{"--out", "does not exist"}},
		{name: "live lines in a missing directory", args: with("--live", missing+".jsonl"), wantCode: ExitUsage,
			wantStderr: []string{"--live", "does not exist"}},
		{name: "report file is a directory", args: with("--report-file", dir), wantCode: ExitUsage,
			wantStderr: []string{"--report-file", "is a directory"}},
		{name: "report -o in a missing directory", args: []string{"report", "-o", missing + ".txt", rb}, wantCode: ExitUsage,
			wantStderr: []string{"-o", "does not exist"}},
	})
}
