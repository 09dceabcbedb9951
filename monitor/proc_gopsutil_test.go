//go:build linux

package monitor

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/prometheus/procfs"
	"github.com/shirou/gopsutil/v4/process"
)

// The reader of macOS, Windows and FreeBSD (gopsutil) agrees with the /proc reader of Linux, a
// route of its own through prometheus/procfs, on a child that wrote 4 MiB to disk and now waits on its input:
// every figure the same, but CPU within one clock tick (10 ms), since both read it as ticks and
// turn it into seconds differently, and resident memory within the kernel's per-CPU slack (below). (This process would not do: each reader's own open files count.)
func TestGopsutilAgreesWithProc(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	file := filepath.Join(t.TempDir(), "w")
	cmd, out := startShell(t, ctx, "dd if=/dev/zero of="+file+" bs=1M count=4 conv=fsync 2>/dev/null; echo ready; read x")
	var ready string
	if _, err := fmt.Fscan(out, &ready); err != nil || ready != "ready" {
		t.Fatalf("child said %q, %v", ready, err)
	}
	pfs, err := procfs.NewFS(procfs.DefaultMountPoint)
	if err != nil {
		t.Fatal(err)
	}
	r := &reader{fs: pfs}
	pid := cmd.Process.Pid
	want, ok1 := r.readProc(pid)
	g, ok := gopsReadProc(ctx, pid, "linux")
	again, ok2 := r.readProc(pid)
	if !ok || !ok1 || !ok2 {
		t.Fatalf("reads of the child failed: gopsutil %v, /proc %v %v", ok, ok1, ok2)
	}
	if again != want {
		t.Fatalf("the idle child changed between the reads: %+v, then %+v", want, again)
	}
	t.Logf("/proc %+v\ngopsutil %+v", want, g)
	if d := g.CPU - want.CPU; d < -10*time.Millisecond || d > 10*time.Millisecond {
		t.Errorf("cpu %v, want %v within 10 ms", g.CPU, want.CPU)
	}
	// resident memory: /proc/PID/stat gives the kernel's per-CPU counters as they were last
	// folded in, statm (gopsutil) their exact sum; they differ by at most a batch of pages per CPU
	// (percpu_counter_batch, max(32, 2 × CPUs))
	n := runtime.NumCPU()
	slack := uint64(n * max(32, 2*n) * os.Getpagesize())
	if g.RSS+slack < want.RSS || g.RSS > want.RSS+slack {
		t.Errorf("rss %d, want %d within %d", g.RSS, want.RSS, slack)
	}
	if g.Threads != want.Threads || g.FDs != want.FDs {
		t.Errorf("threads %d open files %d, want %d, %d", g.Threads, g.FDs, want.Threads, want.FDs)
	}
	if !g.IOKnown || g.ReadBytes != want.ReadBytes || g.WriteBytes != want.WriteBytes || want.WriteBytes < 4<<20 {
		t.Errorf("disk read %d write %d (known %v), want read %d, write %d (at least the 4 MiB written)",
			g.ReadBytes, g.WriteBytes, g.IOKnown, want.ReadBytes, want.WriteBytes)
	}
	// what the other systems give is left out rather than mislabelled
	for _, goos := range []string{"windows", "freebsd"} {
		if x, _ := gopsReadProc(ctx, pid, goos); x.IOKnown || x.FDs != -1 {
			t.Errorf("%s: disk known %v, open files %d: want neither (Windows counts every I/O and handle, FreeBSD blocks)", goos, x.IOKnown, x.FDs)
		}
	}
	if x, _ := gopsReadProc(ctx, pid, "darwin"); !x.IOKnown || x.FDs < 0 {
		t.Errorf("darwin: disk known %v, open files %d: want both", x.IOKnown, x.FDs)
	}
}

// The process tree and the names as gopsutil lists them are those of /proc: a shell and the sleep
// it waits for, found from the shell's PID, and the sleep by its name.
func TestGopsutilTreeAndNames(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cmd, out := startShell(t, ctx, "sleep 30 & echo $!; wait")
	var sleepPID int
	if _, err := fmt.Fscan(out, &sleepPID); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if p, err := os.FindProcess(sleepPID); err == nil {
			p.Kill()
		}
	}()
	procs, err := process.ProcessesWithContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := gopsDescendants(ctx, procs, []int{cmd.Process.Pid})
	slices.Sort(got)
	if want := []int{min(cmd.Process.Pid, sleepPID), max(cmd.Process.Pid, sleepPID)}; !slices.Equal(got, want) {
		t.Errorf("descendants of sh %d: %v, want sh and its sleep %v", cmd.Process.Pid, got, want)
	}
	if names := gopsByName(ctx, procs, "sleep"); !slices.Contains(names, sleepPID) || slices.Contains(names, cmd.Process.Pid) {
		t.Errorf("processes named sleep: %v, want %d among them and not the shell %d", names, sleepPID, cmd.Process.Pid)
	}
	// a sampler of that tree through gopsutil counts both, and the host's interfaces
	s, err := newGopsSampler(PIDs(cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	x, err := s.Sample(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if x.Procs != 2 || !x.NetKnown || !x.NetHost {
		t.Errorf("sample %+v: want 2 processes, host-wide network figures", x)
	}
	if _, err := newGopsSampler(Cgroup("/sys/fs/cgroup")); err == nil {
		t.Error("a cgroup through gopsutil: want ErrUnsupported")
	}
}

// startShell starts sh -c script, its input held open (a read in it waits, idle) until the test
// ends, when the shell is killed; out is its standard output.
func startShell(t *testing.T, ctx context.Context, script string) (*exec.Cmd, io.Reader) {
	t.Helper()
	cmd := exec.CommandContext(ctx, "sh", "-c", script)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait(); in.Close() })
	return cmd, out
}
