package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

func init() {
	register(command{name: "k8s", summary: "run a plan split over N generators as a Kubernetes Indexed Job: write the manifests, or apply, wait, collect and merge (the program rpcbench-k8s)", run: runK8s})
}

// k8sProgram is the program of the k8s commands (internal/cli/k8scmd), which rpcbench k8s runs.
// They link the Kubernetes client (k8s.io/api, client-go), which would more than double rpcbench's
// binary, and a Go process maps most of its binary at start: every rpcbench command would start
// with 17 to 35 MB more (docs/performance.md).
const k8sProgram = "rpcbench-k8s"

// k8sMissing says what to do when rpcbench-k8s is not found; %s is where rpcbench looked beside it.
const k8sMissing = `rpcbench k8s: rpcbench-k8s is neither beside rpcbench%s nor on your PATH.
The k8s commands (job, run, collect) are that program of their own, to keep rpcbench small: the
Kubernetes client they link would more than double rpcbench's binary, and the memory every other
command starts with. Install it from a checkout of rpcbench with
  go install ./cmd/rpcbench-k8s
or run it from the checkout without installing it: go run ./cmd/rpcbench-k8s job …
`

// runK8s runs rpcbench-k8s with args: with the process's own streams, in its place (exec), so that
// its signals, streams and exit code are the command's; with others (tests), as a child.
func runK8s(_ context.Context, e *env, args []string) int {
	exe, err := os.Executable()
	if err != nil {
		exe = ""
	}
	path, err := findProgram(k8sProgram, exe)
	if err != nil {
		beside := ""
		if exe != "" {
			beside = " (in " + filepath.Dir(exe) + ")"
		}
		fmt.Fprintf(e.stderr, k8sMissing, beside)
		return ExitCannotStart
	}
	if e.stdin == os.Stdin && e.stdout == os.Stdout && e.stderr == os.Stderr {
		err := execProgram(path, append([]string{k8sProgram}, args...)) // returns only when it failed
		if !errors.Is(err, errors.ErrUnsupported) {
			return fail(e, "k8s", fmt.Errorf("cannot run %s: %w", path, err), ExitCannotStart)
		}
	}
	// Not ctx: a first interrupt reaches the child too, which stops as it sees fit (k8s run collects).
	cmd := exec.Command(path, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = e.stdin, e.stdout, e.stderr
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit) && exit.ExitCode() >= 0:
		return exit.ExitCode()
	case errors.As(err, &exit):
		return fail(e, "k8s", fmt.Errorf("%s: %v", k8sProgram, err), ExitInterrupted) // killed by a signal
	case err != nil:
		return fail(e, "k8s", fmt.Errorf("cannot run %s: %w", path, err), ExitCannotStart)
	}
	return ExitOK
}

// findProgram returns the path of the program name: beside the executable exe (when not empty),
// else on PATH.
func findProgram(name, exe string) (string, error) {
	if exe != "" {
		if path, err := exec.LookPath(filepath.Join(filepath.Dir(exe), name)); err == nil {
			return path, nil
		}
	}
	return exec.LookPath(name)
}
