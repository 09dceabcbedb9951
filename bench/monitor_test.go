package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/monitor"
	"github.com/rpcbench/rpcbench/report"
	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/summary"
)

// A started target is watched during each load run: its command's process by default, another
// target's command when monitor: names it. One helper holds 96 MiB more than the other, which the
// resources table shows and puts in words.
func TestRunMonitorsTargets(t *testing.T) {
	t.Parallel()
	if _, err := monitor.NewSampler(monitor.Self()); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	addrA, addrB := freeAddr(t), freeAddr(t)
	pidA, pidB := filepath.Join(dir, "a.pid"), filepath.Join(dir, "b.pid")
	bench := readBench(t, dir, fmt.Sprintf(`targets:
  big:
    url: http://%s/
    command: [%q]
    env: {%s: %q, HELPER_PID_FILE: %q, %s: "96"}
    ready_timeout: 1m
  small:
    url: http://%s/
    command: [%q]
    env: {%s: %q, HELPER_PID_FILE: %q}
    ready_timeout: 1m
    monitor: {targets: [big]}
scenarios:
  read:
    requests: 50
    connections: 1
    interval: 100ms
`, addrA, os.Args[0], helperEnv, addrA, pidA, helperHoldMiB, addrB, os.Args[0], helperEnv, addrB, pidB))
	out, err := Run(context.Background(), bench, Options{})
	if err != nil || out.TargetErr != nil {
		t.Fatal(err, out.TargetErr)
	}
	a, b := helperPID(t, pidA), helperPID(t, pidB)
	want := [][]string{
		{fmt.Sprintf("command, pid %d", a), SelfLabel},
		{fmt.Sprintf("command, pid %d", b), fmt.Sprintf("big's command, pid %d", a), SelfLabel},
	}
	if len(out.Runs) != 2 {
		t.Fatalf("runs: got %d; want 2", len(out.Runs))
	}
	rss := map[string]float64{}
	for i, m := range out.Runs {
		if m.Summary == nil {
			t.Fatalf("%s: %v", m.RunID, m.Err)
		}
		var got []string
		for _, r := range m.Summary.Resources {
			got = append(got, r.Target)
			if r.Summary.Samples == 0 || r.Summary.RSS.Samples == 0 {
				t.Errorf("%s: %s: no samples", m.RunID, r.Target)
			}
			rss[m.Target+"/"+r.Target] = r.Summary.RSS.Avg
		}
		if strings.Join(got, "|") != strings.Join(want[i], "|") {
			t.Errorf("%s watched: got %q; want %q", m.RunID, got, want[i])
		}
	}
	big, small := rss[fmt.Sprintf("big/command, pid %d", a)], rss[fmt.Sprintf("small/command, pid %d", b)]
	if big-small < 90<<20 {
		t.Errorf("memory: big %.0f, small %.0f bytes; want big to hold at least 90 MiB more", big, small)
	}
	var buf bytes.Buffer
	if err := Render(&buf, out, "markdown", report.Options{}); err != nil {
		t.Fatal(err)
	}
	words := RatioWords(small, big, "memory")
	for _, w := range []string{"Resources compared", "| vs big |", fmt.Sprintf("| small | command, pid %d |", b), words} {
		if !strings.Contains(buf.String(), w) {
			t.Errorf("report lacks %q:\n%s", w, buf.String())
		}
	}
	if !strings.HasSuffix(words, "× less memory") {
		t.Errorf("words: got %q; want less memory", words)
	}
}

func TestRatioWords(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		v, base float64
		want    string
	}{
		{10, 110, "11× less memory"},   // 110/10 = 11.0
		{270, 100, "2.7× more memory"}, // 270/100
		{100, 104, "same memory"},      // 104/100 = 1.04 rounds to 1.0
		{104, 100, "same memory"},      // 1.04
		{0, 100, "no memory"},          // nothing at all
		{5, 0, "n/a (memory: base 0)"}, // no ratio to a zero
		{0, 0, "same memory"},          // both nothing
		{1, 300, "300× less memory"},   // three digits, no decimal
		{100, 1000, "10× less memory"}, // whole from 10 up
		{100, 149, "1.5× less memory"}, // 1.49 to one decimal
	} {
		if got := RatioWords(c.v, c.base, "memory"); got != c.want {
			t.Errorf("RatioWords(%v, %v): got %q; want %q", c.v, c.base, got, c.want)
		}
	}
}

// The resources table compares each target's first watched process with the first target's.
func TestResourcesTable(t *testing.T) {
	t.Parallel()
	st := func(avg, peak float64) result.ResourceStat {
		return result.ResourceStat{Avg: avg, Peak: peak, Samples: 3}
	}
	sum := func(cpu, rss float64, procsMin, procsMax int) result.ResourceSummary {
		return result.ResourceSummary{Samples: 3, CPUPercent: st(cpu, cpu*2), RSS: st(rss, rss), DiskRead: st(0, 0), DiskWrite: st(0, 0),
			ProcsMin: procsMin, ProcsMax: procsMax}
	}
	g := Group{Scenario: "s", Steps: 1, Runs: []Measured{
		{RunID: RunID{Target: "rust"}, Summary: summaryWith(result.Resources{Target: "command, pid 1", PIDs: []int{1}, Summary: sum(50, 20<<20, 1, 1)})},
		{RunID: RunID{Target: "go"}, Summary: summaryWith(result.Resources{Target: "command, pid 2", PIDs: []int{2, 5},
			PIDChanges: []result.PIDChange{{At: 1500 * time.Millisecond, Procs: 3, Started: []int{9}}}, PIDChangesTotal: 1, Summary: sum(100, 220<<20, 2, 3)},
			result.Resources{Target: SelfLabel, Self: true, Summary: sum(10, 1, 1, 1)})},
	}}
	var b bytes.Buffer
	resourcesTable(g).write(&b, "markdown")
	want := `
Resources compared (avg / peak over each measured part; CPU in % of one core; ratios of the averages):

| target | watched | processes | CPU | memory (RSS) | disk read/s | disk write/s | vs rust |
|---|---|---|---:|---:|---:|---:|---|
| rust | command, pid 1 | 1 (pid 1) | 50% / 100% | 20.0 MiB / 20.0 MiB | 0 B / 0 B | 0 B / 0 B |  |
| go | command, pid 2 | 2–3 (pids 2,5 at the start; changed 1×, at 1.5s) | 100% / 200% | 220.0 MiB / 220.0 MiB | 0 B / 0 B | 0 B / 0 B | 2.0× more CPU, 11× more memory |
`
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}

// summaryWith returns a summary of no requests that watched rs.
func summaryWith(rs ...result.Resources) *summary.Summary {
	s := &summary.Summary{}
	s.SetResources(rs, nil)
	return s
}

// A target's monitor: metrics and series are scraped during each run against it, into the run's
// summary, on the run's timeline; a target without a command has no process of its own watched.
func TestRunScrapesTargetMetrics(t *testing.T) {
	t.Parallel()
	if _, err := monitor.NewSampler(monitor.Self()); err != nil {
		t.Skip(err)
	}
	s, _ := countingLab(t)
	metrics := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "# TYPE queue_depth gauge\nqueue_depth 7\n")
	}))
	defer metrics.Close()
	bench := readBench(t, t.TempDir(), fmt.Sprintf(`targets:
  a:
    url: %q
    monitor: {metrics: %q, series: [queue_depth]}
scenarios:
  read:
    rate: 100
    duration: 300ms
    interval: 100ms
`, s.URL(), metrics.URL+"/metrics"))
	out, err := Run(context.Background(), bench, Options{})
	if err != nil || len(out.Runs) != 1 || out.Runs[0].Summary == nil {
		t.Fatalf("%v %+v", err, out.Runs)
	}
	sum := out.Runs[0].Summary
	if _, ok := primary(sum.Resources); ok {
		t.Errorf("resources %+v: want only the generator's (the target has no command)", sum.Resources)
	}
	m := sum.Metrics
	if m == nil || len(m.Series) != 1 || m.Series[0] != "queue_depth" || len(m.Samples) == 0 {
		t.Fatalf("metrics: got %+v; want queue_depth scraped", m)
	}
	for _, x := range m.Samples {
		if x.Values[0] == nil || *x.Values[0] != 7 {
			t.Errorf("scrape at %v: got %v; want 7", x.At, x.Values[0])
		}
	}
}
