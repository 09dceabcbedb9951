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

// monitoredRun is one run with a watched process (two samples after the baseline), the generator
// itself, and two metric series.
func monitoredRun() *summary.Summary {
	fds := 12
	s := &summary.Summary{Target: "http://127.0.0.1:1/", Timeline: []summary.Point{{Start: 0, End: 1, Sent: 10, OK: 10, RPS: 10}}}
	s.SetResources([]result.Resources{
		{Target: "pid 42", Summary: result.ResourceSummary{Samples: 3,
			CPUPercent: result.ResourceStat{Avg: 75, Peak: 100, Samples: 2},
			RSS:        result.ResourceStat{Avg: 3 << 20, Peak: 4 << 20, Samples: 3},
			Threads:    result.ResourceStat{Avg: 5, Peak: 6, Samples: 3},
			FDs:        result.ResourceStat{Avg: 12, Peak: 12, Samples: 3},
			DiskWrite:  result.ResourceStat{Avg: 2048, Peak: 4096, Samples: 2},
		},
			Samples: []result.ResourceSample{
				{At: -time.Millisecond, Procs: 1, RSS: 2 << 20, Threads: 4, FDs: &fds},
				{At: time.Second - time.Millisecond, Interval: time.Second, Procs: 1, CPUPercent: 50, RSS: 3 << 20, Threads: 5, FDs: &fds, DiskWrite: u64(0)},
				{At: 2*time.Second - time.Millisecond, Interval: time.Second, Procs: 1, CPUPercent: 100, RSS: 4 << 20, Threads: 6, FDs: &fds, DiskWrite: u64(4096)},
			}},
		{Target: "rpcbench (self)", Self: true, Cores: 2, Summary: result.ResourceSummary{Samples: 1, RSS: result.ResourceStat{Avg: 1 << 20, Peak: 1 << 20, Samples: 1}},
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
		"pid 42           75% / 100%  3.0 MiB / 4.0 MiB",
		"—  2.0 KiB / 4.0 KiB",
		"5 / 6     12 / 12",
		"rpcbench (self)",
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
	if !strings.Contains(md.String(), "| pid 42 | 75% / 100% | 3.0 MiB / 4.0 MiB | — | 2.0 KiB / 4.0 KiB | — | — | 5 / 6 | 12 / 12 |") ||
		!strings.Contains(md.String(), "| `queue` | 4 / 5 |") {
		t.Errorf("markdown: got\n%s", md.String())
	}
	var two bytes.Buffer
	if err := Markdown(&two, []*summary.Summary{s, s}, []string{"a", "b"}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(two.String(), "| pid 42 |"); n != 2 || !strings.Contains(two.String(), "| run | target |") {
		t.Errorf("markdown of two runs: got %d pid rows in\n%s\nwant one per run with a run column", n, two.String())
	}
	var c bytes.Buffer
	if err := CSV(&c, []*summary.Summary{s}, []string{"r"}); err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		"run,start_s,end_s,endpoint,sent,ok,errors,rps,p50_ms,p90_ms,p99_ms,max_ms,target,cpu_pct,rss_bytes,threads,open_files,disk_read_bytes,disk_write_bytes,net_rx_bytes,net_tx_bytes,value",
		"r,0,1,all,10,10,0,10.0,0,0,0,0,,,,,,,,,,",
		"r,-0.001,-0.001,,,,,,,,,,pid 42,,2097152,4,12,,,,,",
		"r,-0.001,0.999,,,,,,,,,,pid 42,50.0,3145728,5,12,,0,,,",
		"r,0.999,1.999,,,,,,,,,,pid 42,100.0,4194304,6,12,,4096,,,",
		"r,0,0,,,,,,,,,,rpcbench (self),,1048576,0,,,,,,",
		"r,0,0,,,,,,,,,,metric queue,,,,,,,,,3",
		"r,1,1,,,,,,,,,,metric jobs_total,,,,,,,,,10",
		"r,1,1,,,,,,,,,,metric queue,,,,,,,,,5",
		"r,2,2,,,,,,,,,,metric jobs_total,,,,,,,,,30",
		"r,2,2,,,,,,,,,,metric queue,,,,,,,,,4",
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
	for _, id := range []string{`id="chart-cpu"`, `id="chart-rss"`, `id="chart-metrics"`, "<h2>Resources</h2>", "<td>75% / 100%</td>", "<td>jobs_total</td><td>20/s / 30/s</td>"} {
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
	// x: the two intervals of pid 42 (the baselines have no CPU to chart) and the three scrapes
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
	if pid.Label != "pid 42" || pid.CPU[1] == nil || *pid.CPU[1] != 50 || *pid.CPU[3] != 100 || *pid.RSS[3] != 4 || pid.CPU[0] != nil {
		t.Errorf("pid 42: got %+v; want CPU 50, 100 and RSS 3, 4 MiB at 0.999 and 1.999", pid)
	}
	if len(r.Metrics) != 2 || r.Metrics[0].Label != "jobs_total (/s)" || *r.Metrics[0].Value[4] != 30 || r.Metrics[0].Value[0] != nil {
		t.Errorf("metrics: got %+v", r.Metrics)
	}
}
