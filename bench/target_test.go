package bench

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/rpcbench/rpcbench/monitor"
)

// A target whose port takes connections before its command starts (a server left running) is
// refused before the command starts: the error names the port and, on Linux, the process that holds
// it (this test's), and nothing is sent to that server.
func TestRunRefusesATargetWhosePortIsInUse(t *testing.T) {
	t.Parallel()
	held, answered := countingLab(t)
	dir := t.TempDir()
	bench := readBench(t, dir, fmt.Sprintf(`targets:
  a:
    url: http://alice:SEKRET@%s/
    command: "echo started > started.txt; exec sleep 30"
scenarios:
  read: {requests: 20, connections: 1}
`, held.Addr()))
	out, err := Run(context.Background(), bench, Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(held.Addr())
	want := fmt.Sprintf("target a: port %s (http://REDACTED@%s/) is in use before its command starts", port, held.Addr())
	if runtime.GOOS == "linux" {
		want += fmt.Sprintf(", held by pid %d (", os.Getpid())
	}
	if out.TargetErr == nil || !strings.Contains(out.TargetErr.Error(), want) || strings.Contains(out.TargetErr.Error(), "SEKRET") {
		t.Errorf("target error: got %v; want it to hold %q", out.TargetErr, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "started.txt")); err == nil {
		t.Error("the target's command was started")
	}
	if len(out.Runs) != 0 || answered.Load() != 0 {
		t.Errorf("%d runs, %d requests answered by the server holding the port; want none", len(out.Runs), answered.Load())
	}
}

// A target's command that exits while a run goes on against it fails that run, and the runs after
// it against that target do not run; the runs against another target go on.
func TestRunTargetCommandEndsDuringAScenario(t *testing.T) {
	t.Parallel()
	other, _ := countingLab(t)
	dir := t.TempDir()
	addr := freeAddr(t)
	bench := readBench(t, dir, fmt.Sprintf(`targets:
  a:
    url: http://%s/
    command: [%q]
    env: {%s: %q, %s: "5"}
    ready_timeout: 1m
  b: {url: %s/}
scenarios:
  read: {requests: 10, connections: 1}
  after: {command: "true", timeout: 1m}
`, addr, os.Args[0], helperEnv, addr, helperExitAfter, other.URL()))
	out, err := Run(context.Background(), bench, Options{})
	if err != nil || out.TargetErr != nil {
		t.Fatal(err, out.TargetErr)
	}
	const ended = "target a's command ended (exit status 3)"
	if len(out.Runs) != 2 || out.Runs[0].TargetEnded != ended || out.Runs[1].TargetEnded != "" || out.Runs[1].Err != nil {
		t.Fatalf("runs: got %+v; want read on a failed, %q, and read on b done", out.Runs, ended)
	}
	if len(out.Commands) != 2 || out.Commands[0].Err != "not run: "+ended || !out.Commands[1].OK() {
		t.Errorf("commands: got %+v; want after on a not run, after on b done", out.Commands)
	}
	want := []string{"read on a: " + ended + " while this ran", "after on a: not run: " + ended}
	if got := out.Failures(); !slices.Equal(got, want) {
		t.Errorf("failures: got %q; want %q", got, want)
	}
}

// The watched process of a started target is the one that answers on its port, inside its
// command's process tree — the server the shell of a one-text command starts, not the shell.
func TestRunWatchesTheProcessThatAnswers(t *testing.T) {
	t.Parallel()
	if _, err := monitor.Listeners(net.IPv4(127, 0, 0, 1), 1); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	addr := freeAddr(t)
	pidFile := filepath.Join(dir, "pid")
	bench := readBench(t, dir, fmt.Sprintf(`targets:
  a:
    url: http://%s/
    command: "%s; exit 0"
    env: {%s: %q, HELPER_PID_FILE: %q}
    ready_timeout: 1m
scenarios:
  read: {requests: 20, connections: 1, interval: 100ms}
`, addr, os.Args[0], helperEnv, addr, pidFile))
	out, err := Run(context.Background(), bench, Options{})
	if err != nil || out.TargetErr != nil {
		t.Fatal(err, out.TargetErr)
	}
	server := helperPID(t, pidFile)
	if len(out.Runs) != 1 || out.Runs[0].Summary == nil {
		t.Fatalf("runs: got %+v", out.Runs)
	}
	var watched []string
	for _, r := range out.Runs[0].Summary.Resources {
		watched = append(watched, r.Target)
	}
	want := []string{fmt.Sprintf("command, pid %d", server), SelfLabel}
	if !slices.Equal(watched, want) {
		t.Errorf("watched: got %q; want %q (the server, pid %d; not the shell that started it)", watched, want, server)
	}
}

// A target whose runs watch another target's command, not its own, answers from a process that is
// not watched: its runs are invalid, naming both; the other target's runs, watching the command
// that answers them, are not.
func TestRunVerdictNamesTheProcessThatAnswered(t *testing.T) {
	t.Parallel()
	if _, err := monitor.Listeners(net.IPv4(127, 0, 0, 1), 1); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	addrA, addrB := freeAddr(t), freeAddr(t)
	pidA, pidB := filepath.Join(dir, "a.pid"), filepath.Join(dir, "b.pid")
	bench := readBench(t, dir, fmt.Sprintf(`targets:
  big:
    url: http://%s/
    command: [%q]
    env: {%s: %q, HELPER_PID_FILE: %q}
    ready_timeout: 1m
  small:
    url: http://%s/
    command: [%q]
    env: {%s: %q, HELPER_PID_FILE: %q}
    ready_timeout: 1m
    monitor: {command: false, targets: [big]}
scenarios:
  read: {requests: 20, connections: 1, interval: 100ms}
`, addrA, os.Args[0], helperEnv, addrA, pidA, addrB, os.Args[0], helperEnv, addrB, pidB))
	out, err := Run(context.Background(), bench, Options{})
	if err != nil || out.TargetErr != nil {
		t.Fatal(err, out.TargetErr)
	}
	a, b := helperPID(t, pidA), helperPID(t, pidB)
	comm := filepath.Base(os.Args[0])
	comm = comm[:min(len(comm), 15)] // the kernel keeps 15 bytes of it
	if len(out.Runs) != 2 {
		t.Fatalf("runs: got %d; want 2", len(out.Runs))
	}
	for _, m := range out.Runs {
		if m.Summary == nil {
			t.Fatalf("%s: %v", m.RunID, m.Err)
		}
		var answered []string
		for _, r := range m.Summary.Validity.Reasons {
			if strings.Contains(r, "answered from") {
				answered = append(answered, r)
			}
		}
		var want []string
		if m.Target == "small" {
			want = []string{fmt.Sprintf("the target answered from pid %d (%s) on %s, not from the monitored process(es): big's command, pid %d", b, comm, addrB, a)}
		}
		if !slices.Equal(answered, want) {
			t.Errorf("%s: reasons naming who answered: got %q; want %q", m.RunID, answered, want)
		}
	}
}
