package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/monitor"
)

// startLabProcess starts `rpcbench serve lab` with args in a process of its own, so that its CPU
// is its own, and returns its URL, its pid and its start (lab_start_time_seconds).
func startLabProcess(t *testing.T, args ...string) (url string, pid int, origin time.Time) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"-test.run=^TestHelperProcess$", "--", "serve", "lab", "--addr", "127.0.0.1:0", "--metrics"}, args...)...)
	cmd.Env = append(os.Environ(), "RPCBENCH_HELPER_PROCESS=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill() //nolint:errcheck // it may be gone
		cmd.Wait()         //nolint:errcheck // killed
	})
	listening := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "lab listening on "); ok {
				listening <- u
			}
		}
		close(listening)
	}()
	select {
	case url = <-listening:
	case <-time.After(30 * time.Second):
	}
	if url == "" {
		t.Fatal("the lab did not say where it listens within 30s")
	}
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	fams, err := monitor.ParseMetrics(resp.Body)
	if err != nil || fams["lab_start_time_seconds"] == nil {
		t.Fatalf("the lab's metrics: %v %v", err, fams)
	}
	sec := fams["lab_start_time_seconds"].GetMetric()[0].GetGauge().GetValue()
	whole, frac := math.Modf(sec)
	return url, cmd.Process.Pid, time.Unix(int64(whole), int64(frac*1e9))
}

// window is a scripted window of the lab in seconds from the run's measured start, and what must
// coincide with a jump in it.
type window struct {
	from, to float64
	what     string
}

// Item 5 end to end: a lab whose requests stall for 1.5s every 9s (a GC-like pause, counted by
// lab_pause_seconds_total as a GC's pause time is) and burn 800ms of CPU each in a window of 1s,
// watched by --monitor-pid and --monitor-metrics. The text report names a jump at each window
// inside the run — the pause counter at the stalls, the lab's CPU at the burn — and nothing else
// of the lab: no jump outside the windows, no CPU at a stall, no pause at the burn.
// The windows are placed by the lab's schedule against its own start and the run's, not by how
// fast anything ran. For a loaded machine: a service time of 100ms, so that hiccups of the
// machine (up to ~100ms of send lag seen) stay below the three times the median p99 a jump needs;
// a warm-up of 1s, so that the connections' set-up is no jump; a burn that asks for 3.2s of CPU
// in 1s, so that its latency and CPU stand out, and the next stall 5s after it, as its queue
// drains.
func TestJumpsNameTheLabsWindows(t *testing.T) {
	const (
		stall, every, stallStart = 1.5, 9.0, 4.0
		burnStart, burnFor       = 7.0, 1.0
		runFor                   = 16.0 // the second stall ends 2.5s before the run does: its counter's rise is sampled before the end
	)
	url, pid, origin := startLabProcess(t, "--latency", "100ms", "--stall", "1500ms", "--every", "9s", "--stall-start", "4s",
		"--burn", "800ms", "--burn-start", "7s", "--burn-for", "1s")
	file := filepath.Join(t.TempDir(), "report.txt")
	code, stdout, stderr := mainOut("run", "--rate", "4", "--warmup", "1s", "--duration", "16s", "--quiet", "--format", "json", "--report-file", file,
		"--monitor-pid", strconv.Itoa(pid), "--monitor-metrics", url+"/metrics", "--monitor-series", "lab_pause_seconds_total", url+"/x")
	if code != ExitOK && code != ExitInvalid {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var rep struct {
		StartedAt time.Time `json:"started_at"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	late := rep.StartedAt.Sub(origin).Seconds() // the lab's offsets, less this, are the run's
	if late < 0 || late > stallStart-1 {
		t.Fatalf("the run began %.1fs after the lab: want its first stall inside the run, at least 1s after its start", late)
	}
	var want []window
	for k := 0.0; stallStart+k*every-late < runFor; k++ {
		from := stallStart + k*every - late
		want = append(want, window{from, from + stall, "lab_pause_seconds_total rose to "})
	}
	want = append(want, window{burnStart - late, burnStart + burnFor - late, fmt.Sprintf("pid %d: CPU ", pid)})
	text, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	_, jumps, found := strings.Cut(string(text), "Jumps on the timeline (what coincided among the watched signals: a coincidence, not a cause)\n")
	if !found {
		t.Fatalf("the report names no jump; want one at each of %v\n%s", want, text)
	}
	span := regexp.MustCompile(`^  ([0-9.]+)s–([0-9.]+)s  p99 latency up to `)
	named := make([]bool, len(want))
	var cur *window
	for line := range strings.Lines(jumps) {
		line = strings.TrimRight(line, "\n")
		if m := span.FindStringSubmatch(line); m != nil {
			from, _ := strconv.ParseFloat(m[1], 64)
			to, _ := strconv.ParseFloat(m[2], 64)
			cur = nil
			for i, w := range want {
				// a jump's intervals are whole ones (1s) of the timeline: it overlaps its window
				if from < w.to+1 && to > w.from {
					cur, named[i] = &want[i], true
				}
			}
			if cur == nil {
				t.Errorf("a jump at %gs–%gs, in no scripted window %v: %q", from, to, want, line)
			}
			continue
		}
		what, ok := strings.CutPrefix(strings.TrimSpace(line), "coincided: ")
		if !ok {
			break // the end of the section
		}
		// the generator's own check is true or not of this machine, not of the lab: on a loaded
		// one its send lag passes its bound now and then, at a window or not
		if cur != nil && !strings.HasPrefix(what, cur.what) && !strings.HasPrefix(what, "the generator fell behind: ") {
			t.Errorf("at the window %v, %q coincided; want only %q…", *cur, what, cur.what)
		}
	}
	for i, w := range want {
		if !named[i] {
			t.Errorf("no jump named at the scripted window %v:\n%s", w, jumps)
		}
	}
	if !strings.Contains(jumps, "coincided: "+want[0].what) || !strings.Contains(jumps, "coincided: "+want[len(want)-1].what) {
		t.Errorf("the jumps do not name both the pause counter and the lab's CPU:\n%s", jumps)
	}
}
