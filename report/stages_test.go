package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/schedule"
	"github.com/rpcbench/rpcbench/summary"
)

// stagedRun is a closed-model run of 2 s at 10 connections, a 1 s ramp to 20 and 2 s at 20, over
// two endpoints, with per-stage figures set by hand (the ramp's too).
func stagedRun() *summary.Summary {
	s := &summary.Summary{Target: "http://127.0.0.1:1/", Config: plan.Plan{Load: plan.Load{Model: plan.Closed, Stages: []schedule.Stage{
		{Duration: 0, Target: 10}, {Duration: 2 * time.Second, Target: 10}, {Duration: time.Second, Target: 20}, {Duration: 2 * time.Second, Target: 20}}}}}
	lat := func(ms float64) summary.Percentiles {
		return summary.Percentiles{Mean: ms, P50: ms, P90: ms * 1.5, P95: ms * 2, P99: ms * 3, Max: ms * 4}
	}
	fig := func(ep string, n, errs uint64, rps, ms float64) summary.StageFigures {
		return summary.StageFigures{Endpoint: ep, Requests: n, OK: n - errs, Errors: errs, RPS: rps, Latency: lat(ms)}
	}
	s.Stages = []summary.Stage{
		{Index: 2, From: 10, To: 10, StartS: 0, EndS: 2, Intervals: 2, MeasuredS: 2, StageFigures: fig("", 2000, 20, 1000, 10),
			Endpoints: []summary.StageFigures{fig("get", 1500, 0, 750, 8), fig("put", 500, 20, 250, 16)}},
		{Index: 3, Ramp: true, From: 10, To: 20, StartS: 2, EndS: 3, Intervals: 1, MeasuredS: 1, StageFigures: fig("", 1500, 0, 1500, 12),
			Endpoints: []summary.StageFigures{fig("get", 1000, 0, 1000, 11), fig("put", 500, 0, 500, 14)}},
		{Index: 4, From: 20, To: 20, StartS: 3, EndS: 5, Intervals: 2, MeasuredS: 2, StageFigures: fig("", 4000, 0, 2000, 20),
			Endpoints: []summary.StageFigures{fig("get", 3000, 0, 1500, 18), fig("put", 1000, 0, 500, 26)}},
	}
	s.Timeline = []summary.Point{
		{Start: 0, End: 1, Sent: 1000, OK: 990, Errors: 10, RPS: 1000, P50: 10},
		{Start: 2.4, End: 3.4, Sent: 1500, OK: 1500, RPS: 1500, P50: 12}, // midpoint 2.9: the ramp
		{Start: 3.4, End: 4.4, Sent: 2000, OK: 2000, RPS: 2000, P50: 20},
	}
	return s
}

// The per-stage tables of the text and Markdown reports (go test -update rewrites them): a row per
// stage and endpoint, the level in connections, a ramp's level from→to.
func TestStagesSectionsGolden(t *testing.T) {
	t.Parallel()
	s := stagedRun()
	var txt, md strings.Builder
	stagesTable(&txt, s)
	stagesMarkdown(&md, s)
	golden(t, "stages.txt", []byte(txt.String()))
	golden(t, "stages.md", []byte(md.String()))
	for name, got := range map[string]string{"text": txt.String(), "markdown": md.String()} {
		for _, want := range []string{"10 connections", "10→20 connections", "20 connections", "ramps included", "1500", "20 (1.00%)"} {
			if !strings.Contains(got, want) {
				t.Errorf("%s: lacks %q:\n%s", name, want, got)
			}
		}
	}
	var full bytes.Buffer
	if err := Text(&full, s); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(full.String(), txt.String()) {
		t.Errorf("text report: got\n%s\nwant it to contain the stages\n%s", full.String(), txt.String())
	}
	// without stages, no section
	s.Stages = nil
	full.Reset()
	if err := Text(&full, s); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(full.String(), "Stages") {
		t.Errorf("text report without stages: got a stages section:\n%s", full.String())
	}
}

// The CSV report adds the stage columns to the intervals (each with the stage it is assigned to) and
// a row per stage and endpoint after them; without stages its columns stay as they were.
func TestStagesCSV(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := CSV(&b, []*summary.Summary{stagedRun()}, []string{"run"}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	want := []string{
		"run,start_s,end_s,endpoint,sent,ok,errors,rps,p50_ms,p90_ms,p99_ms,max_ms,kind,stage,avg_ms,p95_ms",
		"run,0,1,all,1000,990,10,1000.0,10,0,0,0,interval,2,,",
		"run,2.4,3.4,all,1500,1500,0,1500.0,12,0,0,0,interval,3,,",
		"run,3.4,4.4,all,2000,2000,0,2000.0,20,0,0,0,interval,4,,",
		"run,0,2,all,2000,1980,20,1000.0,10,15,30,40,stage,2,10,20",
		"run,0,2,get,1500,1500,0,750.0,8,12,24,32,stage,2,8,16",
		"run,0,2,put,500,480,20,250.0,16,24,48,64,stage,2,16,32",
	}
	if len(lines) != 3+9+1 {
		t.Fatalf("got %d lines; want a header, 3 intervals and 9 stage rows:\n%s", len(lines), b.String())
	}
	for i, w := range want {
		if lines[i] != w {
			t.Errorf("line %d: got %q; want %q", i+1, lines[i], w)
		}
	}
	s := stagedRun()
	s.Stages = nil
	b.Reset()
	if err := CSV(&b, []*summary.Summary{s}, []string{"run"}); err != nil {
		t.Fatal(err)
	}
	if head, _, _ := strings.Cut(b.String(), "\n"); head != "run,start_s,end_s,endpoint,sent,ok,errors,rps,p50_ms,p90_ms,p99_ms,max_ms" {
		t.Errorf("without stages: header %q; want the time series' alone", head)
	}
}

// The HTML page has the per-stage table of each run.
func TestStagesHTML(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := HTML(&b, []*summary.Summary{stagedRun()}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{"<h2>Stages (ramps included)</h2>", `<table class="num stages">`,
		"<td>3</td><td>10→20 connections</td><td>2.00s–3.00s</td><td>all</td><td>1500</td><td>1500.0</td>",
		`<td>put</td><td>500</td><td>250.0</td><td>16.0ms</td>`, `<td class="bad">20 (4.00%)</td>`} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

// A monitored run with stages has, after the stage rows, a row per stage and watched target (kind
// stage, its span, the target): CPU and RSS averaged over the samples whose interval ended in the
// stage, their count, the peaks and the disk rates. Then the samples, as in a run without stages.
func TestStageResourcesCSV(t *testing.T) {
	t.Parallel()
	s := stagedRun()
	sample := func(at int, cpu float64, rss uint64, read, write *uint64) result.ResourceSample {
		return result.ResourceSample{At: time.Duration(at) * time.Second, Interval: time.Second, Procs: 1, CPUPercent: cpu, RSS: rss, DiskRead: read, DiskWrite: write}
	}
	s.SetResources([]result.Resources{
		{Target: "pid 42", Samples: []result.ResourceSample{
			{At: 0, Procs: 1, RSS: 500},                                                   // the baseline: in no stage
			sample(1, 20, 1000, u64(0), u64(500)), sample(2, 40, 3000, u64(0), u64(1500)), // stage 2, (0, 2]
			sample(3, 90, 5000, u64(0), u64(0)),                                         // stage 3, the ramp, (2, 3]
			sample(4, 60, 6000, u64(2048), u64(0)), sample(5, 80, 8000, u64(0), u64(0)), // stage 4, (3, 5]
		}},
		{Target: "rpcbench (self)", Self: true, Samples: []result.ResourceSample{sample(2, 10, 4000, nil, nil)}},
	}, nil)
	s.SetStageResources()
	var b bytes.Buffer
	if err := CSV(&b, []*summary.Summary{s}, []string{"run"}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	head := "run,start_s,end_s,endpoint,sent,ok,errors,rps,p50_ms,p90_ms,p99_ms,max_ms,kind,stage,avg_ms,p95_ms," +
		"target,procs,pids,cpu_pct,rss_bytes,threads,open_files,disk_read_bytes,disk_write_bytes,net_rx_bytes,net_tx_bytes,net_scope,value," +
		"samples,cpu_peak_pct,rss_peak_bytes,disk_read_bytes_per_s,disk_write_bytes_per_s"
	// by hand: stage 2 of pid 42, CPU (20+40)/2 = 30, peak 40; RSS (1000+3000)/2 = 2000, peak 3000;
	// read 0, write (500+1500) B / 2 s = 1000/s. The ramp: one sample, no disk moved (empty). Stage
	// 4: CPU (60+80)/2 = 70, peak 80; RSS 7000, peak 8000; read 2048 B / 2 s = 1024/s, write 0.
	want := []string{
		"run,0,2,,,,,,,,,,stage,2,,,pid 42,,,30.0,2000,,,,,,,,,2,40.0,3000,0,1000",
		"run,0,2,,,,,,,,,,stage,2,,,rpcbench (self),,,10.0,4000,,,,,,,,,1,10.0,4000,,",
		"run,2,3,,,,,,,,,,stage,3,,,pid 42,,,90.0,5000,,,,,,,,,1,90.0,5000,,",
		"run,3,5,,,,,,,,,,stage,4,,,pid 42,,,70.0,7000,,,,,,,,,2,80.0,8000,1024,0",
		"run,0,0,,,,,,,,,,,,,,pid 42,1,,,500,0,,,,,,,,,,,,",
		"run,0,1,,,,,,,,,,,,,,pid 42,1,,20.0,1000,0,,0,500,,,,,,,,,",
	}
	if len(lines) != 1+3+9+4+6+1 || lines[0] != head {
		t.Fatalf("got %d lines; want the header %q, 3 intervals, 9 stage rows, 4 rows of stage resources and 7 samples:\n%s", len(lines), head, b.String())
	}
	for i, w := range want {
		if got := lines[1+3+9+i]; got != w {
			t.Errorf("line %d: got %q; want %q", 1+3+9+i+1, got, w)
		}
	}
	// a run that watched only the generator keeps the CSV of an unmonitored run, stages and all
	s.SetResources(s.Resources[1:], nil)
	s.SetStageResources()
	b.Reset()
	if err := CSV(&b, []*summary.Summary{s}, []string{"run"}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(b.String(), "\n"); got != 1+3+9 || strings.Contains(b.String(), "rpcbench (self)") {
		t.Errorf("the generator alone: got %d lines; want the header, 3 intervals and 9 stage rows:\n%s", got, b.String())
	}
}
