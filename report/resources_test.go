package report

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/summary"
)

func f64(v float64) *float64 { return &v }
func u64(v uint64) *uint64   { return &v }

// monitoredRun is one run with a watched process name (two samples after the baseline; a second
// process started in the first interval; the host's network), the generator itself, and two
// metric series.
func monitoredRun() *summary.Summary {
	fds := 12
	s := &summary.Summary{Target: "http://127.0.0.1:1/", Timeline: []summary.Point{{Start: 0, End: 1, Sent: 10, OK: 10, RPS: 10}}}
	s.SetResources([]result.Resources{
		{Target: "process worker", PIDs: []int{42}, PIDChangesTotal: 1,
			PIDChanges: []result.PIDChange{{At: time.Second - time.Millisecond, Procs: 2, Started: []int{43}}},
			Summary: result.ResourceSummary{Samples: 3, ProcsMin: 1, ProcsMax: 2, NetScope: "host-wide",
				CPUPercent: result.ResourceStat{Avg: 75, Peak: 100, Samples: 2},
				RSS:        result.ResourceStat{Avg: 3 << 20, Peak: 4 << 20, Samples: 3},
				Threads:    result.ResourceStat{Avg: 5, Peak: 6, Samples: 3},
				FDs:        result.ResourceStat{Avg: 12, Peak: 12, Samples: 3},
				DiskWrite:  result.ResourceStat{Avg: 2048, Peak: 4096, Samples: 2},
				NetRx:      result.ResourceStat{Avg: 1024, Peak: 2048, Samples: 2},
				NetTx:      result.ResourceStat{Avg: 512, Peak: 1024, Samples: 2},
			},
			Samples: []result.ResourceSample{
				{At: -time.Millisecond, Procs: 1, RSS: 2 << 20, Threads: 4, FDs: &fds},
				{At: time.Second - time.Millisecond, Interval: time.Second, Procs: 2, CPUPercent: 50, RSS: 3 << 20, Threads: 5, FDs: &fds, DiskWrite: u64(0),
					NetRx: u64(0), NetTx: u64(0)},
				{At: 2*time.Second - time.Millisecond, Interval: time.Second, Procs: 2, CPUPercent: 100, RSS: 4 << 20, Threads: 6, FDs: &fds, DiskWrite: u64(4096),
					NetRx: u64(2048), NetTx: u64(1024)},
			}},
		{Target: "rpcbench (self)", Self: true, Cores: 2, PIDs: []int{7},
			Summary: result.ResourceSummary{Samples: 1, ProcsMin: 1, ProcsMax: 1, RSS: result.ResourceStat{Avg: 1 << 20, Peak: 1 << 20, Samples: 1}},
			Samples: []result.ResourceSample{{At: 0, Procs: 1, RSS: 1 << 20}}},
	}, &result.Metrics{URL: "http://127.0.0.1:1/metrics", Series: []string{"jobs_total", "queue"}, Types: []string{"counter", "gauge"},
		Samples: []result.MetricsSample{
			{At: 0, Values: []*float64{nil, f64(3)}},
			{At: time.Second, Values: []*float64{f64(10), f64(5)}},
			{At: 2 * time.Second, Values: []*float64{f64(30), f64(4)}},
		}})
	return s
}

func TestResourcesText(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	resourcesText(&b, monitoredRun())
	got := b.String()
	// avg / peak as given: CPU 75/100 %, RSS 3/4 MiB, disk write 2/4 KiB per second, read never
	// known; the metrics: jobs_total (10+30)/2 = 20/s, peak 30/s; queue (3+5+4)/3 = 4, peak 5
	want := []string{
		"processes         CPU       memory (RSS)  disk read/s       disk write/s  net in/s (host-wide)  net out/s (host-wide)  threads  open files\n",
		"process worker   1–2 (pid 42 at the start; changed 1×, at 1.0s)  75% / 100%  3.0 MiB / 4.0 MiB            —  2.0 KiB / 4.0 KiB     1.0 KiB / 2.0 KiB        512 B / 1.0 KiB    5 / 6     12 / 12\n",
		"rpcbench (self)                                       1 (pid 7)           —  1.0 MiB / 1.0 MiB            —                  —                     —                      —        —           —\n",
		"the processes of process worker changed 1 time: at 1.0s started 43, 2 processes\n",
		"Target metrics (http://127.0.0.1:1/metrics; counters as a rate per second; avg / peak over 3 scrapes)",
		"jobs_total  20/s / 30/s",
		"queue       4 / 5",
	}
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("got\n%s\nwant a line with %q", got, w)
		}
	}
}

func TestResourcesMarkdownAndCSV(t *testing.T) {
	t.Parallel()
	s := monitoredRun()
	var md bytes.Buffer
	if err := Markdown(&md, []*summary.Summary{s}, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "| target | processes | CPU | memory (RSS) | disk read/s | disk write/s | net in/s (host-wide) | net out/s (host-wide) | threads | open files |") ||
		!strings.Contains(md.String(), "| process worker | 1–2 (pid 42 at the start; changed 1×, at 1.0s) | 75% / 100% | 3.0 MiB / 4.0 MiB | — | 2.0 KiB / 4.0 KiB | 1.0 KiB / 2.0 KiB | 512 B / 1.0 KiB | 5 / 6 | 12 / 12 |") ||
		!strings.Contains(md.String(), "| rpcbench (self) | 1 (pid 7) |") ||
		!strings.Contains(md.String(), "\n- the processes of process worker changed 1 time: at 1.0s started 43, 2 processes\n") ||
		!strings.Contains(md.String(), "| `queue` | 4 / 5 |") {
		t.Errorf("markdown: got\n%s", md.String())
	}
	var two bytes.Buffer
	if err := Markdown(&two, []*summary.Summary{s, s}, []string{"a", "b"}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(two.String(), "| process worker |"); n != 2 || !strings.Contains(two.String(), "| run | target |") ||
		!strings.Contains(two.String(), "- b: the processes of process worker changed 1 time") {
		t.Errorf("markdown of two runs: got %d pid rows in\n%s\nwant one per run with a run column", n, two.String())
	}
	var c bytes.Buffer
	if err := CSV(&c, []*summary.Summary{s}, []string{"r"}); err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		"run,start_s,end_s,endpoint,sent,ok,errors,rps,p50_ms,p90_ms,p99_ms,max_ms,target,procs,pids,cpu_pct,rss_bytes,threads,open_files,disk_read_bytes,disk_write_bytes,net_rx_bytes,net_tx_bytes,net_scope,value",
		"r,0,1,all,10,10,0,10.0,0,0,0,0,,,,,,,,,,,,,",
		"r,-0.001,-0.001,,,,,,,,,,process worker,1,42,,2097152,4,12,,,,,,",
		"r,-0.001,0.999,,,,,,,,,,process worker,2,42 43,50.0,3145728,5,12,,0,0,0,host-wide,",
		"r,0.999,1.999,,,,,,,,,,process worker,2,42 43,100.0,4194304,6,12,,4096,2048,1024,host-wide,",
		"r,0,0,,,,,,,,,,rpcbench (self),1,7,,1048576,0,,,,,,,",
		"r,0,0,,,,,,,,,,metric queue,,,,,,,,,,,,3",
		"r,1,1,,,,,,,,,,metric jobs_total,,,,,,,,,,,,10",
		"r,1,1,,,,,,,,,,metric queue,,,,,,,,,,,,5",
		"r,2,2,,,,,,,,,,metric jobs_total,,,,,,,,,,,,30",
		"r,2,2,,,,,,,,,,metric queue,,,,,,,,,,,,4",
	}, "\n") + "\n"
	if c.String() != want {
		t.Errorf("csv: got\n%s\nwant\n%s", c.String(), want)
	}
	// a run that watched only the generator keeps the CSV of an unmonitored run
	self := &summary.Summary{Timeline: s.Timeline}
	self.SetResources(s.Resources[1:], nil)
	c.Reset()
	if err := CSV(&c, []*summary.Summary{self}, []string{"r"}); err != nil {
		t.Fatal(err)
	}
	if got := c.String(); got != "run,start_s,end_s,endpoint,sent,ok,errors,rps,p50_ms,p90_ms,p99_ms,max_ms\nr,0,1,all,10,10,0,10.0,0,0,0,0\n" {
		t.Errorf("csv of the generator alone: got\n%s", got)
	}
}

func TestResourcesHTML(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := HTML(&b, []*summary.Summary{monitoredRun()}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, id := range []string{`id="chart-cpu"`, `id="chart-rss"`, `id="chart-metrics"`, "<h2>Resources</h2>", "<td>75% / 100%</td>", "<td>jobs_total</td><td>20/s / 30/s</td>",
		"<th>processes</th>", "<th>net in/s (host-wide)</th>", "<th>net out/s (host-wide)</th>", "<td>1–2 (pid 42 at the start; changed 1×, at 1.0s)</td>",
		"<td>1 (pid 7)</td>", "<li>the processes of process worker changed 1 time: at 1.0s started 43, 2 processes</li>",
		"network: own TCP sockets = the TCP payload of the connections the target held open at each sample"} {
		if !strings.Contains(page, id) {
			t.Errorf("html: want %s", id)
		}
	}
	m := regexp.MustCompile(`(?s)<script type="application/json" id="rpcbench-data">(.*?)</script>`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("html: no chart data")
	}
	var d struct {
		Resources resourceChart `json:"resources"`
	}
	if err := json.Unmarshal([]byte(m[1]), &d); err != nil {
		t.Fatal(err)
	}
	r := d.Resources
	// x: the two intervals of process worker (the baselines have no CPU to chart) and the three scrapes
	wantX := []float64{0, 0.999, 1, 1.999, 2}
	if len(r.X) != len(wantX) {
		t.Fatalf("x: got %v; want %v", r.X, wantX)
	}
	for i := range wantX {
		if r.X[i] != wantX[i] {
			t.Fatalf("x: got %v; want %v", r.X, wantX)
		}
	}
	pid := r.Targets[0]
	if pid.Label != "process worker" || pid.CPU[1] == nil || *pid.CPU[1] != 50 || *pid.CPU[3] != 100 || *pid.RSS[3] != 4 || pid.CPU[0] != nil {
		t.Errorf("process worker: got %+v; want CPU 50, 100 and RSS 3, 4 MiB at 0.999 and 1.999", pid)
	}
	if len(r.Metrics) != 2 || r.Metrics[0].Label != "jobs_total (/s)" || *r.Metrics[0].Value[4] != 30 || r.Metrics[0].Value[0] != nil {
		t.Errorf("metrics: got %+v", r.Metrics)
	}
}

// Runs whose network figures differ in scope say each figure's own; a file from before the scope
// was recorded (none given, figures present) read the target's namespace: netns-wide.
func TestResourcesNetScopeInCells(t *testing.T) {
	t.Parallel()
	host := monitoredRun()
	old := monitoredRun()
	old.Resources[0].Summary.NetScope = ""
	self := &old.Resources[1].Summary
	self.NetScope, self.NetRx, self.NetTx = "own TCP sockets", result.ResourceStat{Avg: 100, Peak: 200, Samples: 1}, result.ResourceStat{Avg: 300, Peak: 400, Samples: 1}
	var md bytes.Buffer
	if err := Markdown(&md, []*summary.Summary{host, old}, []string{"a", "b"}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| net in/s | net out/s |",
		"| a | process worker | 1–2 (pid 42 at the start; changed 1×, at 1.0s) | 75% / 100% | 3.0 MiB / 4.0 MiB | — | 2.0 KiB / 4.0 KiB | 1.0 KiB / 2.0 KiB (host-wide) | 512 B / 1.0 KiB (host-wide) |",
		"| b | process worker | 1–2 (pid 42 at the start; changed 1×, at 1.0s) | 75% / 100% | 3.0 MiB / 4.0 MiB | — | 2.0 KiB / 4.0 KiB | 1.0 KiB / 2.0 KiB (netns-wide) | 512 B / 1.0 KiB (netns-wide) |",
		"| a | rpcbench (self) | 1 (pid 7) | — | 1.0 MiB / 1.0 MiB | — | — | — | — |",
		"| b | rpcbench (self) | 1 (pid 7) | — | 1.0 MiB / 1.0 MiB | — | — | 100 B / 200 B (own TCP sockets) | 300 B / 400 B (own TCP sockets) |",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("got\n%s\nwant a line with %q", md.String(), want)
		}
	}
	var c bytes.Buffer
	if err := CSV(&c, []*summary.Summary{old}, []string{"r"}); err != nil {
		t.Fatal(err)
	}
	if want := "r,0.999,1.999,,,,,,,,,,process worker,2,42 43,100.0,4194304,6,12,,4096,2048,1024,netns-wide,\n"; !strings.Contains(c.String(), want) {
		t.Errorf("csv: got\n%s\nwant a line %q", c.String(), want)
	}
}
