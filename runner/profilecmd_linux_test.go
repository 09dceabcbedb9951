package runner

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/summary"
)

// A profiler command that outlives the run, started by a shell that does not exec it (a compound
// command), is interrupted and killed whole: no process of it is left running, attached to the
// target (the shell alone was signalled, its child reparented and left running).
func TestProfilerCommandLeavesNoProcess(t *testing.T) {
	t.Parallel()
	const marker = "61.7301"
	dir := t.TempDir()
	ready := filepath.Join(dir, "ready")
	if err := syscall.Mkfifo(ready, 0o600); err != nil {
		t.Fatal(err)
	}
	r := &ProfilerCommand{Name: "test", Command: "echo > " + ready + "; sleep " + marker + "; true", PID: os.Getpid(), Out: filepath.Join(dir, "p.out")}
	r.start(plan.Plan{})
	if b, err := os.ReadFile(ready); err != nil || len(b) == 0 { // returns once the command is running
		t.Fatalf("the command did not start: %v", err)
	}
	s := &summary.Summary{}
	r.stop(s, func(string) {})
	if len(s.Notes) == 0 || !strings.Contains(s.Notes[0], "interrupted") {
		t.Errorf("notes %q; want the command interrupted at the run's end", s.Notes)
	}
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err == nil && strings.Contains(string(b), "sleep\x00"+marker) {
			t.Errorf("%s: %q is still running after the run", filepath.Dir(p), strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
}
