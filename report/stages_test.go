package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/plan"
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
