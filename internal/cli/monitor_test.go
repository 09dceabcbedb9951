//go:build linux

package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/runner"
	"github.com/rpcbench/rpcbench/serve/lab"
	"github.com/rpcbench/rpcbench/summary"
)

// monitorChildEnv makes the test binary, re-executed, the monitored child instead of running tests.
const monitorChildEnv = "RPCBENCH_MONITOR_CHILD"

const (
	childMiB   = 64                     // memory the child holds, every page faulted in
	childShare = 0.5                    // of one core the child keeps busy
	childSlice = 100 * time.Millisecond // the share is kept over each slice
)

// TestMonitorChild is not a test: re-executed with monitorChildEnv set, the test binary serves the
// lab service on loopback, holds childMiB of memory, keeps childShare of one core busy (idle with
// monitorChildEnv=idle), and answers each line on stdin with its own CPU time in nanoseconds
// (getrusage), until stdin closes or a minute has passed.
func TestMonitorChild(t *testing.T) {
	if os.Getenv(monitorChildEnv) == "" {
		return
	}
	// mapped and faulted in by the kernel, not touched from Go: the race detector's shadow memory
	// does not double it
	mem, err := syscall.Mmap(-1, 0, childMiB<<20, syscall.PROT_READ|syscall.PROT_WRITE,
		syscall.MAP_ANON|syscall.MAP_PRIVATE|syscall.MAP_POPULATE)
	if err != nil {
		fmt.Println("mmap:", err)
		os.Exit(1)
	}
	srv, err := lab.New(lab.Config{})
	if err != nil {
		fmt.Println("lab:", err)
		os.Exit(1)
	}
	go func() {
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
			fmt.Println(int64(childCPU()))
		}
		os.Exit(0)
	}()
	fmt.Println(srv.URL())
	// each slice: busy while behind childShare of it by the process's own CPU clock, asleep while
	// ahead; no debt carried over, so a starved slice is not made up by a burst in the next
	if os.Getenv(monitorChildEnv) == "idle" {
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	for end := time.Now().Add(time.Minute); time.Now().Before(end); {
		t0, c0 := time.Now(), childCPU()
		for time.Since(t0) < childSlice {
			if childCPU()-c0 < time.Duration(childShare*float64(time.Since(t0))) {
				for range 10000 {
					childSink++
				}
			} else {
				time.Sleep(time.Millisecond)
			}
		}
	}
	syscall.Munmap(mem)
	os.Exit(0)
}

var childSink int

func childCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// monitorChild is a running child: its PID, its command name, its lab URL, and its CPU clock.
type monitorChild struct {
	pid  int
	name string
	url  string
	in   io.WriteCloser
	out  *bufio.Scanner
}

// startMonitorChild starts the child under a name of its own (a link to the test binary, so that
// its command name is not the test's) and waits for its URL.
func startMonitorChild(t *testing.T) *monitorChild {
	t.Helper()
	return startChild(t, "1")
}

// startChild starts the child with monitorChildEnv=mode ("idle": it uses no CPU).
func startChild(t *testing.T, mode string) *monitorChild {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("rbmon%d", os.Getpid()%1000000)
	link := filepath.Join(t.TempDir(), name)
	if err := os.Symlink(exe, link); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(link, "-test.run=^TestMonitorChild$")
	cmd.Env = append(os.Environ(), monitorChildEnv+"="+mode)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	outp, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		in.Close()
		cmd.Process.Kill()
		cmd.Wait()
	})
	c := &monitorChild{pid: cmd.Process.Pid, name: name, in: in, out: bufio.NewScanner(outp)}
	if !c.out.Scan() || !strings.HasPrefix(c.out.Text(), "http://127.0.0.1:") {
		t.Fatalf("child: got %q; want its URL", c.out.Text())
	}
	c.url = c.out.Text() + "/"
	return c
}

// cpu asks the child for its own CPU time.
func (c *monitorChild) cpu(t *testing.T) time.Duration {
	t.Helper()
	if _, err := io.WriteString(c.in, "cpu\n"); err != nil {
		t.Fatal(err)
	}
	if !c.out.Scan() {
		t.Fatalf("child: no CPU time: %v", c.out.Err())
	}
	n, err := strconv.ParseInt(c.out.Text(), 10, 64)
	if err != nil {
		t.Fatalf("child: %q is not a CPU time", c.out.Text())
	}
	return time.Duration(n)
}

// A run that loads a child process watches it by PID and by name, and itself. The figures are
// checked against what the child says of itself: the CPU time the samples add up to (CPU % ×
// interval) can be no more than the child's own CPU time between asking before and after the run
// (plus a clock tick of /proc per reading), and no less than it minus what the child can have
// used outside the sampled window (at most its share of that time plus one busy slice). Its
// resident memory holds the childMiB it faulted in.
func TestRunMonitorChild(t *testing.T) {
	t.Parallel()
	c := startMonitorChild(t)
	out := filepath.Join(t.TempDir(), "run.rb")
	t0, c0 := time.Now(), c.cpu(t)
	code, stdout, stderr := mainOut("run", "--rate", "50", "--duration", "2s", "--quiet", "--format", "json",
		"--monitor-pid", strconv.Itoa(c.pid), "--monitor-process", c.name, "--out", out, c.url)
	c1, q := c.cpu(t), time.Since(t0)
	if code != ExitOK {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	var s summary.Summary
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		t.Fatal(err)
	}
	labels := []string{}
	for _, r := range s.Resources {
		labels = append(labels, r.Target)
	}
	want := []string{"pid " + strconv.Itoa(c.pid), "process " + c.name, runner.SelfLabel}
	if strings.Join(labels, "|") != strings.Join(want, "|") {
		t.Fatalf("resources of %q; want %q", labels, want)
	}
	for _, r := range s.Resources[:2] {
		checkChildFigures(t, r, c1-c0, q)
		// the child alone, all run long, read by its own sockets (it shares our namespace)
		if len(r.PIDs) != 1 || r.PIDs[0] != c.pid || r.Summary.ProcsMin != 1 || r.Summary.ProcsMax != 1 ||
			r.PIDChangesTotal != 0 || r.Summary.NetScope != "own TCP sockets" {
			t.Errorf("%s: got PIDs %v, %d..%d processes, %d changes, network %q; want [%d], 1..1, none, own TCP sockets",
				r.Target, r.PIDs, r.Summary.ProcsMin, r.Summary.ProcsMax, r.PIDChangesTotal, r.Summary.NetScope, c.pid)
		}
	}
	self := s.Resources[2]
	if !self.Self || self.Cores < 1 || self.Summary.RSS.Avg <= 0 || len(self.SendLagP99) == 0 {
		t.Errorf("self: got %+v; want the generator, its CPUs, memory and send lag", self)
	}

	// the result file keeps them: report shows them again, in every format
	f, err := result.ReadFile(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Resources) != 3 || f.Resources[0].Summary != s.Resources[0].Summary {
		t.Errorf("result file: got %d resources (%+v); want the 3 of the report", len(f.Resources), f.Resources)
	}
	code, text, stderr := mainOut("report", out)
	if code != ExitOK || !strings.Contains(text, "\nResources (") || !strings.Contains(text, "  process "+c.name+" ") ||
		!strings.Contains(text, fmt.Sprintf(" 1 (pid %d) ", c.pid)) || !strings.Contains(text, " net in/s (own TCP sockets) ") {
		t.Errorf("report: exit %d, got:\n%s%s\nwant a Resources section naming process %s", code, text, stderr, c.name)
	}
	_, md, _ := mainOut("report", "--format", "markdown", out)
	if !strings.Contains(md, "| pid "+strconv.Itoa(c.pid)+" | ") {
		t.Errorf("markdown: got\n%s\nwant a row for pid %d", md, c.pid)
	}
	_, csvOut, _ := mainOut("report", "--format", "csv", out)
	rows := 0
	for line := range strings.Lines(csvOut) {
		if strings.Contains(line, ",pid "+strconv.Itoa(c.pid)+",") {
			rows++
		}
	}
	if rows != len(s.Resources[0].Samples) || rows < 2 {
		t.Errorf("csv: got %d rows for pid %d; want one per sample, %d", rows, c.pid, len(s.Resources[0].Samples))
	}
	_, page, _ := mainOut("report", "--format", "html", out)
	if !strings.Contains(page, `id="chart-cpu"`) || !strings.Contains(page, `"label":"process `+c.name+`"`) {
		t.Errorf("html: want a CPU chart with the process's series")
	}
}

func checkChildFigures(t *testing.T, r result.Resources, own, window time.Duration) {
	t.Helper()
	var used, sampled time.Duration
	for _, x := range r.Samples {
		used += time.Duration(x.CPUPercent / 100 * float64(x.Interval))
		sampled += x.Interval
	}
	tick := 10 * time.Millisecond * time.Duration(r.Summary.Samples) * 2 // USER_HZ 100, each reading rounds
	outside := window - sampled
	hi := own + tick
	lo := own - time.Duration(childShare*float64(outside)) - childSlice - tick
	t.Logf("%s: CPU %v over %v of samples (%.0f%% avg); the child's own %v in %v; want %v..%v; RSS peak %.1f MiB",
		r.Target, used, sampled, r.Summary.CPUPercent.Avg, own, window, lo, hi, r.Summary.RSS.Peak/(1<<20))
	if used > hi || used < lo || sampled < time.Second {
		t.Errorf("%s: CPU over %v of samples: got %v; want %v..%v (the child used %v in the %v around the run)",
			r.Target, sampled, used, lo, hi, own, window)
	}
	if r.Summary.RSS.Peak < childMiB<<20 || r.Summary.RSS.Avg < childMiB<<20 {
		t.Errorf("%s: got RSS avg %.0f, peak %.0f; want at least the %d MiB it holds", r.Target, r.Summary.RSS.Avg, r.Summary.RSS.Peak, childMiB)
	}
	if r.Summary.Threads.Peak < 2 || r.Summary.FDs.Samples == 0 || r.Summary.FDs.Peak < 4 {
		t.Errorf("%s: got threads %v, open files %v; want a Go program's threads and its stdio and listener", r.Target, r.Summary.Threads, r.Summary.FDs)
	}
	if r.Summary.NetRx.Samples == 0 || r.Summary.NetRxTotal == 0 {
		t.Errorf("%s: got no network bytes; want the loopback traffic of the run", r.Target)
	}
}

func TestRunMonitorUsageErrors(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	run := []string{"run", "--rate", "10", "--requests", "5", "--quiet"}
	runCLICases(t, run, []cliCase{
		{"zero pid", []string{"--monitor-pid", "0", srv.URL}, ExitUsage, nil, []string{"--monitor-pid 0: want a process ID"}},
		{"not a pid", []string{"--monitor-pid", "web", srv.URL}, ExitUsage, nil, []string{"--monitor-pid web: want a process ID"}},
		{"no such pid", []string{"--monitor-pid", "2147483646", srv.URL}, ExitUsage, nil, []string{"--monitor-pid 2147483646: pid 2147483646: want a running process, found none"}},
		{"no such name", []string{"--monitor-process", "no-such-process-x", srv.URL}, ExitUsage, nil, []string{`--monitor-process no-such-process-x: process name "no-such-process-x": want a running process`}},
		{"name with slash", []string{"--monitor-process", "bin/x", srv.URL}, ExitUsage, nil, []string{`want a command name without '/'`}},
		{"not a cgroup", []string{"--monitor-cgroup", t.TempDir(), srv.URL}, ExitUsage, nil, []string{"--monitor-cgroup", "want a cgroup v2 directory"}},
		{"series alone", []string{"--monitor-series", "up", srv.URL}, ExitUsage, nil, []string{"--monitor-series: give --monitor-metrics URL too"}},
		{"metrics alone", []string{"--monitor-metrics", srv.URL + "/metrics", srv.URL}, ExitUsage, nil, []string{"give the series to follow with --monitor-series"}},
		{"bad selector", []string{"--monitor-metrics", srv.URL, "--monitor-series", `up{job=x}`, srv.URL}, ExitUsage, nil, []string{`--monitor-series: metric selector "up{job=x}"`}},
		{"bad metrics URL", []string{"--monitor-metrics", "ftp://x/metrics", "--monitor-series", "up", srv.URL}, ExitUsage, nil, []string{`--monitor-metrics: metrics URL "ftp://x/metrics": want http://host:port/metrics`}},
	})
}

// Without docker or podman on PATH, --monitor-container says there is no runtime and what to use
// instead. With a runtime (here a stand-in script answering `inspect` as docker does with the PID
// of a running process) the container's cgroup is the one /proc says that process is in: watched
// on cgroup v2, and refused with a clear error on cgroup v1.
func TestRunMonitorContainer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	dir := t.TempDir()
	t.Setenv("PATH", dir)
	code, _, stderr := mainOut("run", "--rate", "10", "--requests", "5", "--quiet", "--monitor-container", "web", srv.URL)
	if code != ExitUsage || !strings.Contains(stderr, "--monitor-container web: no container runtime here (found neither docker nor podman on PATH); watch its cgroup or its main process instead (--monitor-cgroup DIR, --monitor-pid PID)") {
		t.Fatalf("no runtime: got exit %d, %q; want 2 and a clear error", code, stderr)
	}
	script := fmt.Sprintf("#!/bin/sh\n[ \"$1 $2 $3 $4\" = 'inspect --format {{.State.Pid}} web' ] || { echo \"no such container: $4\" >&2; exit 1; }\necho %d\n", os.Getpid())
	if err := os.WriteFile(filepath.Join(dir, "docker"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = mainOut("run", "--rate", "10", "--requests", "5", "--quiet", "--monitor-container", "db", srv.URL)
	if code != ExitUsage || !strings.Contains(stderr, "--monitor-container db: docker inspect failed") || !strings.Contains(stderr, "no such container: db") {
		t.Errorf("unknown container: got exit %d, %q; want 2 and docker's word", code, stderr)
	}
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		t.Fatal(err)
	}
	var cg string
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "0::"); ok {
			cg = filepath.Join("/sys/fs/cgroup", rest)
		}
	}
	code, stdout, stderr := mainOut("run", "--rate", "10", "--requests", "5", "--quiet", "--monitor-container", "web", srv.URL)
	if _, err := os.Stat(filepath.Join(cg, "cgroup.controllers")); cg != "" && err == nil {
		if code != ExitOK || !strings.Contains(stdout, "  container web ") {
			t.Errorf("cgroup v2 %s: got exit %d, %s%s; want a Resources row for container web", cg, code, stdout, stderr)
		}
		return
	}
	if code != ExitUsage || !strings.Contains(stderr, "--monitor-container web: ") || !strings.Contains(stderr, "cgroup") {
		t.Errorf("no cgroup v2 here: got exit %d, %q; want 2 and the cgroup's fault", code, stderr)
	}
}

// The target's Prometheus series follow the run on the same timeline: a counter of the requests the
// server answered, as a rate, adds up (rate × time between scrapes) to exactly the increase of the
// counter between the first and the last scrape, which no more than the requests sent can make;
// a gauge reads as served.
func TestRunMonitorMetrics(t *testing.T) {
	t.Parallel()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/metrics" {
			fmt.Fprintf(w, "# TYPE hits_total counter\nhits_total{code=\"200\"} %d\nhits_total{code=\"500\"} 3\n# TYPE pool gauge\npool 42\n", hits.Load())
			return
		}
		hits.Add(1)
	}))
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "run.rb")
	// a password in the metrics URL is sent, and REDACTED in everything written
	withPass := strings.Replace(srv.URL, "http://", "http://u:hunter2@", 1) + "/metrics"
	code, text, stderr := mainOut("run", "--rate", "100", "--requests", "250", "--quiet", "--out", out,
		"--monitor-metrics", withPass, "--monitor-series", `hits_total{code="200"}`, "--monitor-series", "pool", "--monitor-series", "absent", srv.URL+"/")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, text, stderr)
	}
	f, err := result.ReadFile(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := f.Metrics
	if m == nil || strings.Join(m.Series, " ") != `hits_total{code="200"} pool absent` || strings.Join(m.Types, " ") != "counter gauge " || len(m.Samples) < 2 {
		t.Fatalf("got metrics %+v; want three series, at least two scrapes", m)
	}
	sum := 0.0
	for i, x := range m.Samples {
		if x.Values[2] != nil || x.Values[1] == nil || *x.Values[1] != 42 {
			t.Errorf("scrape %d: got %v; want pool 42 and no absent", i, x.Values)
		}
		if i == 0 {
			continue
		}
		sum += *x.Values[0] * (x.At - m.Samples[i-1].At).Seconds()
	}
	if d := sum - float64(int64(sum+0.5)); d > 1e-6 || d < -1e-6 || sum < 1 || sum > 250 {
		t.Errorf("counter rate × time: got %v; want a whole number of requests, 1 to 250", sum)
	}
	squeezed := strings.Join(strings.Fields(text), " ")
	if b, _ := os.ReadFile(out); strings.Contains(text, "hunter2") || strings.Contains(string(b), "hunter2") {
		t.Errorf("the metrics URL's password is in the report or the result file")
	}
	if !strings.Contains(text, "Target metrics ("+strings.Replace(srv.URL, "http://", "http://REDACTED@", 1)+"/metrics") || !strings.Contains(squeezed, "pool 42 / 42 absent — (no series matched)") {
		t.Errorf("text: got\n%s\nwant the metrics table", text)
	}
}
