package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/serve/lab"
)

// child runs the CLI in a process of its own (the test binary, as TestHelperProcess) and returns
// its exit code and output.
func child(args ...string) (int, string, string) {
	cmd := exec.Command(os.Args[0], append([]string{"-test.run=^TestHelperProcess$", "--"}, args...)...)
	cmd.Env = append(os.Environ(), "RPCBENCH_HELPER_PROCESS=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	timer := time.AfterFunc(30*time.Second, func() { cmd.Process.Kill() }) // bounded, whatever happens
	defer timer.Stop()
	if err := cmd.Run(); err != nil && cmd.ProcessState == nil {
		return -1, "", err.Error()
	}
	return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
}

type segReport struct {
	Requests struct {
		Intended, Sent, Completed, OK uint64
	}
	Generators []struct {
		Segment  string
		Intended uint64
		Sent     uint64
	}
	Notes []string
}

// Four processes, each a segment of the plan, against one target on loopback, merged: intended,
// sent and completed are those of one process running the whole plan — for a plan that ends on a
// duration and for one that ends on a count.
func TestSegmentsInProcessesAddUp(t *testing.T) {
	t.Parallel()
	srv := startLab(t, lab.Config{})
	dir := t.TempDir()
	// time for ten processes to start on a busy machine (under -race, other tests running) before
	// their shared instant
	start := time.Now().Add(8 * time.Second).UTC().Format(time.RFC3339Nano)
	plans := []struct {
		name string
		args []string
		want uint64 // by hand
	}{
		{"duration", []string{"--rate", "400", "--duration", "500ms"}, 200}, // 400/s × 0.5 s
		{"count", []string{"--rate", "1000", "--requests", "150"}, 150},
	}
	type job struct {
		key  string
		args []string
	}
	var jobs []job
	for _, p := range plans {
		jobs = append(jobs, job{p.name + "-whole", append(append([]string{"run", "--quiet", "--format", "json"}, p.args...), srv.URL())})
		for k := 1; k <= 4; k++ {
			out := filepath.Join(dir, fmt.Sprintf("%s-seg%d.rb", p.name, k))
			part := []string{"--segment", fmt.Sprintf("%d/4", k)}
			if p.name == "count" {
				part = []string{"--segment-index", fmt.Sprintf("%d/4", k-1)} // as an Indexed Job numbers its pods
			}
			jobs = append(jobs, job{p.name + "-seg", append(append(append([]string{"run", "--quiet", "--format", "json", "--start-at", start, "--out", out}, part...), p.args...), srv.URL())})
		}
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	wholes := map[string]segReport{}
	for _, j := range jobs {
		wg.Go(func() {
			code, stdout, stderr := child(j.args...)
			if code != ExitOK {
				t.Errorf("%s: exit %d\n%s", strings.Join(j.args, " "), code, stderr)
				return
			}
			if strings.HasSuffix(j.key, "-whole") {
				var r segReport
				if err := json.Unmarshal([]byte(stdout), &r); err != nil {
					t.Errorf("%s: %v", j.key, err)
				}
				mu.Lock()
				wholes[j.key] = r
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	for _, p := range plans {
		w := wholes[p.name+"-whole"].Requests
		if w.Intended != p.want || w.Sent != p.want || w.Completed != p.want {
			t.Errorf("%s, one process: intended %d, sent %d, completed %d; want %d each", p.name, w.Intended, w.Sent, w.Completed, p.want)
		}
		files, _ := filepath.Glob(filepath.Join(dir, p.name+"-seg*.rb"))
		code, stdout, stderr := mainOut(append([]string{"report", "--merge", "--format", "json"}, files...)...)
		if code != ExitOK {
			t.Fatalf("%s: report --merge: exit %d\n%s", p.name, code, stderr)
		}
		var m segReport
		if err := json.Unmarshal([]byte(stdout), &m); err != nil {
			t.Fatal(err)
		}
		if m.Requests.Intended != w.Intended || m.Requests.Sent != w.Sent || m.Requests.Completed != w.Completed {
			t.Errorf("%s, four segments merged: intended %d, sent %d, completed %d; want one process's %d, %d, %d",
				p.name, m.Requests.Intended, m.Requests.Sent, m.Requests.Completed, w.Intended, w.Sent, w.Completed)
		}
		if len(m.Generators) != 4 {
			t.Fatalf("%s: %d generators in the merged report; want 4", p.name, len(m.Generators))
		}
		var parts uint64
		for _, g := range m.Generators {
			parts += g.Intended
			if g.Intended != p.want/4 && g.Intended != p.want/4+1 { // striped: the shares differ by one at most
				t.Errorf("%s: segment %s intended %d; want about %d", p.name, g.Segment, g.Intended, p.want/4)
			}
		}
		if parts != p.want {
			t.Errorf("%s: the generators' intended counts add up to %d; want %d", p.name, parts, p.want)
		}
		if !strings.Contains(strings.Join(m.Notes, "\n"), "4 generators ran every segment") {
			t.Errorf("%s: notes %q; want one saying 4 generators ran every segment", p.name, m.Notes)
		}
	}
}

// Merging refuses files that are not the segments of one run, and says which segments are missing.
func TestMergeSegmentsRefuses(t *testing.T) {
	t.Parallel()
	srv := startLab(t, lab.Config{})
	dir := t.TempDir()
	run := func(name string, args ...string) string {
		path := filepath.Join(dir, name)
		args = append(append([]string{"run", "--quiet", "--rate", "200", "--requests", "8", "--out", path}, args...), srv.URL())
		if code, _, stderr := mainOut(args...); code != ExitOK {
			t.Fatalf("%s: exit %d\n%s", name, code, stderr)
		}
		return path
	}
	a := run("a.rb", "--segment", "1/4")
	b := run("b.rb", "--segment", "2/4")
	overlap := run("overlap.rb", "--segment", "1/8:1/4", "--segment-sequence", "0,1/8,1/4,1")
	again := run("again.rb", "--segment", "1/4")
	seq := run("seq.rb", "--segment", "3/4:1")
	other := run("other.rb", "--segment", "3/4", "--timeout", "5s")
	whole := run("whole.rb")
	for _, tt := range []struct {
		name  string
		files []string
		want  string
	}{
		{"the same segment twice", []string{a, b, again}, "ran the same segment, 0:1/4"},
		{"overlapping segments", []string{a, b, overlap}, "(0:1/4) and " + overlap + " (1/8:1/4) overlap"},
		{"other sequences", []string{a, b, seq}, "give every generator the same --segment-sequence"},
		{"another plan", []string{a, b, other}, "another plan"},
		{"a segment and a whole run", []string{a, whole}, "the whole plan"},
	} {
		code, _, stderr := mainOut(append([]string{"report", "--merge"}, tt.files...)...)
		if code != ExitUsage || !strings.Contains(stderr, tt.want) {
			t.Errorf("%s: exit %d, %q; want %d and a message with %q", tt.name, code, stderr, ExitUsage, tt.want)
		}
	}
	code, stdout, stderr := mainOut("report", "--merge", a, b)
	if code != ExitOK || !strings.Contains(stderr, "segments missing: 1/2:3/4, 3/4:1") || !strings.Contains(stdout, "Generators: 2 merged") {
		t.Errorf("two of four segments: exit %d\n%s\n%s; want 0, a note of the missing segments and the generators", code, stderr, stdout)
	}
}

// Bad segments and start instants are usage errors that name the flag and what was expected.
func TestRunSegmentFlagsBadInput(t *testing.T) {
	t.Parallel()
	url := "http://127.0.0.1:1/" // nothing is sent: every case fails before the run
	runCLICases(t, []string{"run", "--rate", "10"}, []cliCase{
		{"K above N", []string{"--segment", "3/2", url}, ExitUsage, nil, []string{"--segment", "1 ≤ K ≤ N"}},
		{"K of 0", []string{"--segment", "0/4", url}, ExitUsage, nil, []string{"--segment", "1 ≤ K ≤ N"}},
		{"a reversed range", []string{"--segment", "2/8:1/8", url}, ExitUsage, nil, []string{"--segment", "0 ≤ A < B ≤ 1"}},
		{"a range beyond its sequence", []string{"--segment", "1/4:1/2", "--segment-sequence", "0,1/2,1", url}, ExitUsage, nil, []string{"not a part of sequence"}},
		{"overlapping parts in a sequence", []string{"--segment", "0:1/2", "--segment-sequence", "0,1/2,1/4,1", url}, ExitUsage, nil, []string{"overlapping parts"}},
		{"two parts", []string{"--segment", "1/4", "--segment-index", "1/4", url}, ExitUsage, nil, []string{"give --segment or --segment-index once"}},
		{"an index past N", []string{"--segment-index", "8/8", url}, ExitUsage, nil, []string{"--segment-index", "0 ≤ I < N"}},
		{"a start in the past", []string{"--start-at", "2020-01-02T15:04:05Z", url}, ExitUsage, nil, []string{"--start-at", "is in the past"}},
		{"a start that is no time", []string{"--start-at", "soon", url}, ExitUsage, nil, []string{"--start-at", "RFC 3339"}},
		{"a negative delay", []string{"--start-at", "+-5s", url}, ExitUsage, nil, []string{"--start-at", "a time to come"}},
	})
}
