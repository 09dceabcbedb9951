//go:build linux

package monitor

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/procfs"
	"golang.org/x/sys/unix"
)

// childEnv selects what a re-executed test binary does instead of running tests.
const childEnv = "MONITOR_TEST_CHILD"

const (
	burnMiB    = 64                      // memory the burner holds, every page faulted in
	burnShare  = 0.5                     // of one core
	burnWindow = 100 * time.Millisecond  // the share is kept over each window
	childLife  = 60 * time.Second        // a child left behind exits by itself
	window     = 1500 * time.Millisecond // measurement window
)

func TestMain(m *testing.M) {
	switch os.Getenv(childEnv) {
	case "burn":
		burn()
		return
	case "parent":
		parent()
		return
	case "tcp":
		tcpChild()
		return
	}
	os.Exit(m.Run())
}

// burn holds burnMiB of touched memory, busies one core about half the time, and answers each
// line on stdin with its own CPU time (getrusage, in nanoseconds) until stdin closes.
func burn() {
	// Mapped and faulted in by the kernel (MAP_POPULATE) rather than touched from Go, so the race
	// detector's shadow memory does not double the figure under -race.
	mem, err := syscall.Mmap(-1, 0, burnMiB<<20, syscall.PROT_READ|syscall.PROT_WRITE,
		syscall.MAP_ANON|syscall.MAP_PRIVATE|syscall.MAP_POPULATE)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	go func() {
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
			fmt.Println(int64(ownCPU()))
		}
		os.Exit(0)
	}()
	fmt.Println("ready")
	// Each window of burnWindow aims at burnShare of one core by the process's own CPU clock:
	// busy while behind, asleep while ahead. No debt is carried between windows, so a starved
	// window on a busy machine is not made up by a burst in the next.
	for end := time.Now().Add(childLife); time.Now().Before(end); {
		t0, c0 := time.Now(), ownCPU()
		for time.Since(t0) < burnWindow {
			if ownCPU()-c0 < time.Duration(burnShare*float64(time.Since(t0))) {
				for i := 0; i < 10000; i++ {
					sink++
				}
			} else {
				time.Sleep(time.Millisecond)
			}
		}
	}
	_ = syscall.Munmap(mem)
}

var sink int

func ownCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// parent starts a burner as its own child, passing stdin and stdout through, and waits.
func parent() {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), childEnv+"=burn")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	_ = cmd.Run()
}

// burner is a running child process and a way to ask the burning process its own CPU time.
type burner struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
}

func startBurner(t *testing.T, mode, path string) *burner {
	t.Helper()
	cmd := exec.Command(path)
	cmd.Env = append(os.Environ(), childEnv+"="+mode)
	cmd.Stderr = os.Stderr
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
	b := &burner{cmd: cmd, in: in, out: bufio.NewScanner(out)}
	t.Cleanup(func() {
		in.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	if !b.out.Scan() || b.out.Text() != "ready" {
		t.Fatalf("child did not start: %q %v", b.out.Text(), b.out.Err())
	}
	return b
}

// cpu asks the burning process for its CPU time so far.
func (b *burner) cpu(t *testing.T) time.Duration {
	t.Helper()
	if _, err := io.WriteString(b.in, "?\n"); err != nil {
		t.Fatal(err)
	}
	if !b.out.Scan() {
		t.Fatalf("child gave no CPU time: %v", b.out.Err())
	}
	n, err := strconv.ParseInt(b.out.Text(), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return time.Duration(n)
}

// measure samples s, waits the window, samples again, and returns the second sample and the
// burner's own CPU share over the same span, in percent of one core.
func measure(t *testing.T, s *Sampler, b *burner) (Sample, float64) {
	t.Helper()
	x0, err := s.Sample(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	c0 := b.cpu(t)
	<-time.After(window) // the span measured, not a synchronisation
	x1, err := s.Sample(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	c1 := b.cpu(t)
	return x1, 100 * (c1 - c0).Seconds() / x1.Time.Sub(x0.Time).Seconds()
}

// checkBurn checks a sample of a target holding one burner: CPU near the burner's own figure and
// near 50, RSS the memory it holds plus the Go runtime's own.
func checkBurn(t *testing.T, x Sample, want float64, procs int) {
	t.Helper()
	t.Logf("CPU %.1f%% (child's own %.1f%%), RSS %.1f MiB, %d threads, %d fds", x.CPUPercent, want, float64(x.RSS)/(1<<20), x.Threads, x.FDs)
	if x.Procs != procs {
		t.Errorf("got %d processes; want %d", x.Procs, procs)
	}
	if d := x.CPUPercent - want; d < -6 || d > 6 {
		t.Errorf("got CPU %.1f%%; want %.1f%% ± 6 (the child's own getrusage)", x.CPUPercent, want)
	}
	// The child never burns more than half a core; it gets less only when the machine is too busy
	// to give it that, which its own figure shows.
	if x.CPUPercent > 60 || (want >= 40 && x.CPUPercent < 40) {
		t.Errorf("got CPU %.1f%%; want about 50%% of one core (40..60)", x.CPUPercent)
	}
	if want < 40 {
		t.Logf("the machine gave the child only %.1f%% of a core; the lower bound of 50%% ± 10 is not checked", want)
	}
	const mib = 1 << 20
	if x.RSS < burnMiB*mib || x.RSS > (burnMiB+40)*mib*uint64(procs) {
		t.Errorf("got RSS %.1f MiB over %d processes; want %d MiB held plus at most 40 MiB runtime per process", float64(x.RSS)/mib, procs, burnMiB)
	}
	if x.Threads < procs || !x.FDsKnown || x.FDs < 3*procs {
		t.Errorf("got %d threads, %d fds (known %v); want ≥ %d threads and ≥ %d fds", x.Threads, x.FDs, x.FDsKnown, procs, 3*procs)
	}
	if !x.DiskKnown || !x.NetKnown {
		t.Errorf("got disk known %v, net known %v; want both readable for our own child", x.DiskKnown, x.NetKnown)
	}
}

func TestSamplerPID(t *testing.T) {
	t.Parallel()
	b := startBurner(t, "burn", os.Args[0])
	s, err := NewSampler(PIDs(b.cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	x, want := measure(t, s, b)
	checkBurn(t, x, want, 1)
}

// A grandchild's CPU and memory count for the PID of its grandparent... here its parent, an idle
// process: everything burnt is the grandchild's.
func TestSamplerDescendants(t *testing.T) {
	t.Parallel()
	b := startBurner(t, "parent", os.Args[0])
	s, err := NewSampler(PIDs(b.cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	x, want := measure(t, s, b)
	checkBurn(t, x, want, 2)
}

// Processes are matched by comm: the child runs through a symlink with a name of its own.
func TestSamplerName(t *testing.T) {
	t.Parallel()
	name := fmt.Sprintf("mburn%d", os.Getpid())
	link := filepath.Join(t.TempDir(), name)
	if err := os.Symlink(os.Args[0], link); err != nil {
		t.Fatal(err)
	}
	b := startBurner(t, "burn", link)
	s, err := NewSampler(Name(name))
	if err != nil {
		t.Fatal(err)
	}
	x, want := measure(t, s, b)
	checkBurn(t, x, want, 1)
}

func TestSamplerSelf(t *testing.T) {
	t.Parallel()
	s, err := NewSampler(Self())
	if err != nil {
		t.Fatal(err)
	}
	var r0, r1 syscall.Rusage
	x0, err := s.Sample(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &r0)
	for end := time.Now().Add(300 * time.Millisecond); time.Now().Before(end); {
	}
	x1, err := s.Sample(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &r1)
	cpu := time.Duration(r1.Utime.Nano() + r1.Stime.Nano() - r0.Utime.Nano() - r0.Stime.Nano())
	want := 100 * cpu.Seconds() / x1.Time.Sub(x0.Time).Seconds()
	// Other tests of this binary run meanwhile, so the tolerance is wider than for a child.
	if d := x1.CPUPercent - want; d < -15 || d > 15 {
		t.Errorf("got CPU %.1f%%; want %.1f%% ± 15 (getrusage)", x1.CPUPercent, want)
	}
	if x1.Procs != 1 || x1.RSS == 0 || x1.Threads < 2 || x1.FDs < 3 {
		t.Errorf("got %d procs, RSS %d, %d threads, %d fds; want 1 process, RSS > 0, ≥ 2 threads (Go runtime), ≥ 3 fds", x1.Procs, x1.RSS, x1.Threads, x1.FDs)
	}
	// the host's CPUs: those sched_getaffinity allows, of the cpuN lines of /proc/stat
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		t.Fatal(err)
	}
	online := len(regexp.MustCompile(`(?m)^cpu[0-9]+ `).FindAll(b, -1))
	if h := x1.Host; h == nil || h.CPUs != set.Count() || h.Online != online || h.OthersPercent < 0 || h.Running == 0 {
		t.Errorf("got host %+v; want %d CPUs of %d online, others ≥ 0, ≥ 1 running (this test)", x1.Host, set.Count(), online)
	}
}

func TestNewSamplerBadInput(t *testing.T) {
	t.Parallel()
	// A PID that ran and was reaped: nothing has it now (PIDs are not reused this soon).
	done := exec.Command("true")
	if err := done.Run(); err != nil {
		t.Fatal(err)
	}
	gone := done.ProcessState.Pid()
	notCgroup := t.TempDir()
	tests := []struct {
		name   string
		target Target
		want   []string // in the error
	}{
		{"exited pid", PIDs(gone), []string{fmt.Sprintf("pid %d", gone), "want a running process"}},
		{"negative pid", PIDs(-3), []string{"pid -3", "want a positive"}},
		{"no pid", PIDs(), []string{"want at least one PID"}},
		{"name matches nothing", Name("no-such-proc-q7"), []string{`"no-such-proc-q7"`, "found none"}},
		{"name with slash", Name("/usr/bin/x"), []string{`"/usr/bin/x"`, "without '/'"}},
		{"plain directory", Cgroup(notCgroup), []string{notCgroup, "want a cgroup v2 directory", "cgroup.controllers"}},
		{"missing directory", Cgroup(notCgroup + "/nope"), []string{notCgroup + "/nope", "found no directory"}},
		{"zero target", Target{}, []string{"want pids, name, cgroup, container or self"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := NewSampler(tt.target)
			if err == nil {
				t.Fatalf("got no error; want one naming %q", tt.want)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("got error %q; want it to contain %q", err, w)
				}
			}
		})
	}
}

// writeCgroup writes a fake cgroup v2 directory's files.
func writeCgroup(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// A cgroup read from its files: figures worked out by hand from the numbers written.
func TestSamplerCgroup(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	self := strconv.Itoa(os.Getpid())
	writeCgroup(t, dir, map[string]string{
		"cgroup.controllers": "cpu io memory pids\n",
		"cgroup.procs":       self + "\n",
		"cpu.stat":           "usage_usec 2000000\nuser_usec 1500000\nsystem_usec 500000\n",
		"memory.current":     "73400320\n",
		"io.stat":            "8:0 rbytes=1000 wbytes=2000 rios=1 wios=2 dbytes=0 dios=0\n",
		"pids.current":       "7\n",
	})
	s, err := NewSampler(Cgroup(dir))
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if _, err := s.Sample(t0); err != nil {
		t.Fatal(err)
	}
	writeCgroup(t, dir, map[string]string{
		"cpu.stat":       "usage_usec 3500000\nuser_usec 2500000\nsystem_usec 1000000\n",
		"memory.current": "83886080\n",
		"io.stat":        "8:0 rbytes=5096 wbytes=2000 rios=1 wios=2 dbytes=0 dios=0\n253:0 rbytes=0 wbytes=8192\n",
	})
	x, err := s.Sample(t0.Add(2 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	// 1.5 s of CPU in 2 s = 75%; 80 MiB; 4096 bytes read; 8192 bytes written; 7 tasks.
	if x.CPUPercent != 75 || x.RSS != 80<<20 || x.DiskRead != 4096 || x.DiskWrite != 8192 || x.Threads != 7 {
		t.Errorf("got CPU %v%%, RSS %d, read %d, write %d, threads %d; want 75%%, %d, 4096, 8192, 7",
			x.CPUPercent, x.RSS, x.DiskRead, x.DiskWrite, x.Threads, 80<<20)
	}
	if !x.FDsKnown || x.FDs < 3 || !x.NetKnown {
		t.Errorf("got %d fds (known %v), net known %v; want this process's fds and network namespace", x.FDs, x.FDsKnown, x.NetKnown)
	}
}

// Run hands samples to its callback each tick until the context ends, starting with the baseline.
func TestRun(t *testing.T) {
	t.Parallel()
	s, err := NewSampler(Self())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var got []Sample
	err = s.Run(ctx, 10*time.Millisecond, func(x Sample) {
		got = append(got, x)
		if len(got) == 3 {
			cancel()
		}
	})
	if err != nil || len(got) != 3 {
		t.Fatalf("got %d samples, error %v; want 3 and nil", len(got), err)
	}
	if got[0].Interval != 0 || got[1].Interval <= 0 || !got[2].Time.After(got[1].Time) {
		t.Errorf("got intervals %v, %v; want the baseline at 0 and then positive, in time order", got[0].Interval, got[1].Interval)
	}
	if err := s.Run(ctx, 0, func(Sample) {}); err == nil || !strings.Contains(err.Error(), "interval 0s") {
		t.Errorf("got %v; want an error naming interval 0s", err)
	}
}

// A target whose processes all exited gives empty samples, not errors: the run goes on.
func TestSamplerTargetExits(t *testing.T) {
	t.Parallel()
	b := startBurner(t, "burn", os.Args[0])
	s, err := NewSampler(PIDs(b.cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	if x, err := s.Sample(time.Now()); err != nil || x.Procs != 1 {
		t.Fatalf("got %d procs, %v; want 1 and no error", x.Procs, err)
	}
	_ = b.cmd.Process.Kill()
	_ = b.cmd.Wait()
	x, err := s.Sample(time.Now())
	if err != nil || x.Procs != 0 || x.RSS != 0 || x.CPUPercent != 0 {
		t.Errorf("got %d procs, RSS %d, CPU %v%%, %v; want an empty sample and no error", x.Procs, x.RSS, x.CPUPercent, err)
	}
}

// startNamed starts `sleep 60` through a symlink called name, so its comm is name; the process is
// killed and reaped when the test ends, or by the caller through the returned command.
func startNamed(t *testing.T, dir, name string) *exec.Cmd {
	t.Helper()
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep on PATH")
	}
	link := filepath.Join(dir, name)
	if _, err := os.Lstat(link); err != nil {
		if err := os.Symlink(sleep, link); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(link, "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return cmd
}

// A name target counts every process so named and gives their PIDs; the Series says how many there
// were at least and at most, the first sample's PIDs, and when the set changed.
func TestSamplerNamePIDs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	name := fmt.Sprintf("mpids%d", os.Getpid())
	a, b := startNamed(t, dir, name), startNamed(t, dir, name)
	s, err := NewSampler(Name(name))
	if err != nil {
		t.Fatal(err)
	}
	sorted := func(pids ...int) []int {
		slices.Sort(pids)
		return pids
	}
	var series Series
	sample := func(want []int) Sample {
		t.Helper()
		x, err := s.Sample(time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if x.Procs != len(want) || !slices.Equal(x.PIDs, want) {
			t.Fatalf("got %d processes, PIDs %v; want %d, %v", x.Procs, x.PIDs, len(want), want)
		}
		series.Add(x)
		return x
	}
	sample(sorted(a.Process.Pid, b.Process.Pid))
	sample(sorted(a.Process.Pid, b.Process.Pid)) // no change
	c := startNamed(t, dir, name)
	x2 := sample(sorted(a.Process.Pid, b.Process.Pid, c.Process.Pid))
	_ = a.Process.Kill()
	_ = a.Wait() // reaped: no zombie left with the name
	x3 := sample(sorted(b.Process.Pid, c.Process.Pid))

	sm := series.Summary()
	want := []PIDChange{
		{Time: x2.Time, Procs: 3, Started: []int{c.Process.Pid}},
		{Time: x3.Time, Procs: 2, Exited: []int{a.Process.Pid}},
	}
	if sm.ProcsMin != 2 || sm.ProcsMax != 3 || !slices.Equal(sm.PIDs, sorted(a.Process.Pid, b.Process.Pid)) ||
		sm.PIDChangesTotal != 2 || !reflect.DeepEqual(sm.PIDChanges, want) {
		t.Errorf("got procs %d..%d, PIDs %v, %d changes %+v; want 2..3, the first two children, 2 changes %+v",
			sm.ProcsMin, sm.ProcsMax, sm.PIDs, sm.PIDChangesTotal, sm.PIDChanges, want)
	}
}

// tcpEnv gives the tcp child the address to dial, how many bytes to read and then to write.
const tcpEnv = "MONITOR_TEST_TCP"

// tcpChild dials the address in tcpEnv, reads exactly N bytes, writes M, and then holds the
// connection open until the other end closes it (or childLife runs out).
func tcpChild() {
	var addr string
	var n, m int
	if _, err := fmt.Sscanf(os.Getenv(tcpEnv), "%s %d %d", &addr, &n, &m); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	c, err := net.DialTimeout("tcp", addr, childLife)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	_ = c.SetDeadline(time.Now().Add(childLife))
	if _, err := io.ReadFull(c, make([]byte, n)); err != nil {
		os.Exit(1)
	}
	if _, err := c.Write(bytes.Repeat([]byte{'x'}, m)); err != nil {
		os.Exit(1)
	}
	_, _ = io.Copy(io.Discard, c)
}

// A process's network figures are its own TCP sockets' where they can be read: a child that
// receives 300000 bytes and sends 7000 over loopback shows exactly those, not the namespace's
// traffic (which counts both ends, and everything else on the machine).
func TestSamplerOwnSockets(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	const in, out = 300000, 7000
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), childEnv+"=tcp", fmt.Sprintf("%s=%s %d %d", tcpEnv, ln.Addr(), in, out))
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}()
	_ = ln.(*net.TCPListener).SetDeadline(time.Now().Add(30 * time.Second))
	c, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	s, err := NewSampler(PIDs(cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Sample(time.Now()); err != nil { // the baseline: connected, nothing sent
		t.Fatal(err)
	}
	if _, err := c.Write(bytes.Repeat([]byte{'y'}, in)); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(c, make([]byte, out)); err != nil { // the child read all and answered
		t.Fatal(err)
	}
	x, err := s.Sample(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if !x.NetKnown || !x.NetOwn || x.NetRx != in || x.NetTx != out {
		t.Errorf("got net known %v, own %v, in %d, out %d bytes; want true, true, %d and %d: the child's own socket",
			x.NetKnown, x.NetOwn, x.NetRx, x.NetTx, in, out)
	}
	var series Series
	series.Add(x)
	if got := series.Summary().NetScope; got != "own TCP sockets" {
		t.Errorf("got scope %q; want own TCP sockets", got)
	}
	// a socket two processes hold (as after a fork) counts once: here the child listed twice
	ns, err := os.Readlink("/proc/self/ns/net")
	if err != nil {
		t.Fatal(err)
	}
	r := &reader{netns: ns}
	if socks, known := r.readSockets([]int{cmd.Process.Pid, cmd.Process.Pid}); !known || len(socks) != 1 {
		t.Errorf("got %d sockets (known %v); want the child's one connection once", len(socks), known)
	}
	// a zombie beside it (exited, not reaped: no descriptors, no namespace) adds nothing and hides
	// nothing: the sample stays known
	z := exec.Command("true")
	if err := z.Start(); err != nil {
		t.Fatal(err)
	}
	var info unix.Siginfo
	if err := unix.Waitid(unix.P_PID, z.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil); err != nil {
		t.Fatal(err)
	}
	defer z.Wait()
	if socks, known := r.readSockets([]int{cmd.Process.Pid, z.Process.Pid}); !known || len(socks) != 1 {
		t.Errorf("with a zombie: got %d sockets (known %v); want the child's one connection, known", len(socks), known)
	}
}

// Where only the namespace can be read, the figures of a process in the host's own namespace are
// said to be host-wide; the kernel names that namespace net:[4026531833] (0xEFFFFFF9) since
// Linux 6.18.
func TestSamplerNetScope(t *testing.T) {
	t.Parallel()
	ns, err := os.Readlink("/proc/self/ns/net")
	if err != nil {
		t.Skip(err)
	}
	pfs, err := procfs.NewFS(procfs.DefaultMountPoint)
	if err != nil {
		t.Fatal(err)
	}
	r := &reader{fs: pfs, target: Self(), self: os.Getpid()} // sockets not read: the namespace's
	s := &Sampler{target: Self(), read: r.read}
	sm := twoSamples(t, s)
	host := ns == "net:[4026531833]"
	want := map[bool]string{true: "host-wide", false: "netns-wide"}[host]
	if got := sm.NetScope; got != want {
		t.Errorf("in namespace %s: got scope %q; want %q", ns, got, want)
	}
}

// A process in a network namespace of its own cannot have its sockets read (sock_diag shows only
// the caller's namespace): its figures are the namespace's, and said to be netns-wide.
func TestSamplerOtherNetns(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("no unshare on PATH")
	}
	// unshare execs the shell, which execs sleep: one PID, in the new namespace once it says so
	cmd := exec.Command("unshare", "--net", "sh", "-c", "echo ready; exec sleep 60")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	pid := cmd.Process.Pid
	if sc := bufio.NewScanner(out); !sc.Scan() || sc.Text() != "ready" {
		t.Skipf("unshare --net did not run here (%v): no namespace of our own to test with", sc.Err())
	}
	ours, err1 := os.Readlink("/proc/self/ns/net")
	theirs, err2 := os.Readlink(fmt.Sprintf("/proc/%d/ns/net", pid))
	if err1 != nil || err2 != nil || ours == theirs {
		t.Skipf("the child shares our network namespace (%s, %s): not allowed a new one", ours, theirs)
	}
	s, err := NewSampler(PIDs(pid))
	if err != nil {
		t.Fatal(err)
	}
	sm := twoSamples(t, s)
	if sm.NetScope != "netns-wide" || sm.NetRx.Samples != 1 || !slices.Equal(sm.PIDs, []int{pid}) {
		t.Errorf("got scope %q, %d network samples, PIDs %v; want netns-wide, 1, [%d]", sm.NetScope, sm.NetRx.Samples, sm.PIDs, pid)
	}
}

// twoSamples samples s twice, a baseline and an interval, and returns what a Series says of them.
func twoSamples(t *testing.T, s *Sampler) Summary {
	t.Helper()
	var series Series
	for range 2 {
		x, err := s.Sample(time.Now())
		if err != nil {
			t.Fatal(err)
		}
		series.Add(x)
	}
	return series.Summary()
}
