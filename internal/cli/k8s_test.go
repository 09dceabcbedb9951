package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// standIn writes an executable rpcbench-k8s into dir that prints its arguments one a line and the
// first line of its standard input on stdout, a line on stderr, and exits 7; it returns its path.
func standIn(t *testing.T, dir string) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in rpcbench-k8s is a shell script")
	}
	path := filepath.Join(dir, k8sProgram)
	script := "#!/bin/sh\nprintf 'arg: %s\\n' \"$@\"\nread line\nprintf 'stdin: %s\\n' \"$line\"\necho 'stand-in: a problem' >&2\nexit 7\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// rpcbench k8s runs rpcbench-k8s, found on PATH here, with the arguments after k8s, the streams
// and the exit code: in the test, a child with the test's streams; in a process of its own
// (TestHelperProcess), in its place.
func TestK8sRunsTheProgram(t *testing.T) {
	dir := t.TempDir()
	standIn(t, dir)
	t.Setenv("PATH", dir)
	var out, errb bytes.Buffer
	code := Main([]string{"k8s", "job", "--parallelism", "2", "a b"}, strings.NewReader("from stdin\n"), &out, &errb)
	if code != 7 {
		t.Errorf("in process: exit %d; want rpcbench-k8s's 7\nstderr:\n%s", code, errb.String())
	}
	want := "arg: job\narg: --parallelism\narg: 2\narg: a b\nstdin: from stdin\n"
	if out.String() != want || errb.String() != "stand-in: a problem\n" {
		t.Errorf("in process: stdout %q, stderr %q; want %q and the stand-in's line", out.String(), errb.String(), want)
	}

	code, stdout, stderr := child("k8s", "collect", "--job", "x")
	if code != 7 {
		t.Errorf("in place: exit %d; want rpcbench-k8s's 7\nstderr:\n%s", code, stderr)
	}
	if want := "arg: collect\narg: --job\narg: x\nstdin: \n"; stdout != want || stderr != "stand-in: a problem\n" {
		t.Errorf("in place: stdout %q, stderr %q; want %q and the stand-in's line", stdout, stderr, want)
	}
}

// Without rpcbench-k8s, rpcbench k8s (its help too) says it is a program of its own and how to get
// it, and exits 4; rpcbench help still lists k8s.
func TestK8sProgramMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	for _, args := range [][]string{{"k8s", "job", "--parallelism", "2"}, {"k8s", "--help"}, {"help", "k8s"}, {"k8s"}} {
		code, stdout, stderr := mainOut(args...)
		if code != ExitCannotStart {
			t.Errorf("%q: exit %d; want %d", args, code, ExitCannotStart)
		}
		for _, want := range []string{
			"rpcbench k8s: rpcbench-k8s is neither beside rpcbench (in ",
			"nor on your PATH",
			"The k8s commands (job, run, collect) are that program of their own, to keep rpcbench small",
			"\n  go install ./cmd/rpcbench-k8s\n",
			"go run ./cmd/rpcbench-k8s job …",
		} {
			if !strings.Contains(stderr, want) {
				t.Errorf("%q: stderr lacks %q:\n%s", args, want, stderr)
			}
		}
		if stdout != "" {
			t.Errorf("%q: stdout %q; want nothing", args, stdout)
		}
	}
	if _, stdout, _ := mainOut("help"); !strings.Contains(stdout, "\n  k8s          run a plan split over N generators") {
		t.Errorf("rpcbench help does not list k8s:\n%s", stdout)
	}
}

// rpcbench-k8s beside the rpcbench that runs comes first, then PATH's; a file beside it that is not
// executable is passed over.
func TestFindProgramBesideFirst(t *testing.T) {
	beside, onPath := t.TempDir(), t.TempDir()
	exe := filepath.Join(beside, "rpcbench")
	want := standIn(t, onPath)
	t.Setenv("PATH", onPath)
	if err := os.WriteFile(filepath.Join(beside, k8sProgram), []byte("not a program"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := findProgram(k8sProgram, exe); got != want || err != nil {
		t.Errorf("beside: a file not executable: got %q, %v; want PATH's %s", got, err, want)
	}
	if err := os.Remove(filepath.Join(beside, k8sProgram)); err != nil {
		t.Fatal(err)
	}
	want = standIn(t, beside)
	if got, err := findProgram(k8sProgram, exe); got != want || err != nil {
		t.Errorf("got %q, %v; want the one beside rpcbench, %s", got, err, want)
	}
	if got, err := findProgram(k8sProgram, ""); got != filepath.Join(onPath, k8sProgram) || err != nil {
		t.Errorf("no executable known: got %q, %v; want PATH's", got, err)
	}
}

// rpcbench links no Kubernetes package: they are rpcbench-k8s's, and would more than double the
// binary and the memory every command starts with (docs/performance.md).
func TestNoKubernetesPackages(t *testing.T) {
	t.Parallel()
	deps := rpcbenchDeps(t, "{{.ImportPath}}")
	if !slices.Contains(deps, "github.com/rpcbench/rpcbench/internal/cli") {
		t.Fatalf("go list -deps does not list internal/cli among %d packages: not rpcbench's list", len(deps))
	}
	for _, p := range deps {
		if strings.HasPrefix(p, "k8s.io/") || strings.HasPrefix(p, "sigs.k8s.io/") || strings.Contains(p, "client-go") || p == "github.com/rpcbench/rpcbench/k8s" {
			t.Errorf("rpcbench links %s; want the k8s commands' packages in rpcbench-k8s alone", p)
		}
	}
}
