package bench

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/report"
	"github.com/rpcbench/rpcbench/result"
)

// wholeRunOutcome is a scenario of two steps against two targets, each watched with known figures:
//
//	step 1: 10 s measured, 20 CPU samples, 11 RSS samples; step 2: 30 s, 30 CPU samples, 31 RSS samples
//	ref:  CPU 100 % (peak 150) then 200 % (peak 250); RSS 100 MiB (peak 120) then 200 MiB (peak 300);
//	      disk writes 1 KiB/s (peak 4 KiB/s) then 0
//	lean: CPU 5 % (peak 8) then 10 % (peak 12); RSS 10 MiB (peak 11) then 10 MiB (peak 12); no disk
func wholeRunOutcome() *Outcome {
	const mib = 1 << 20
	st := func(avg, peak float64, n int) result.ResourceStat {
		return result.ResourceStat{Avg: avg, Peak: peak, Samples: n}
	}
	run := func(target string, step int, pid int, d time.Duration, cpu, cpuPeak, rss, rssPeak, wr, wrPeak float64) Measured {
		n, levels := 20, 11
		if step == 1 {
			n, levels = 30, 31
		}
		r := result.Resources{Target: "command, pid " + string(rune('0'+pid)), PIDs: []int{pid}, Summary: result.ResourceSummary{
			Samples: levels, Duration: d, ProcsMin: 1, ProcsMax: 1,
			CPUPercent: st(cpu, cpuPeak, n), RSS: st(rss, rssPeak, levels),
			DiskRead: st(0, 0, n), DiskWrite: st(wr, wrPeak, n),
			DiskWriteTotal: uint64(wr * d.Seconds()),
		}}
		self := result.Resources{Target: SelfLabel, Self: true, Summary: result.ResourceSummary{Samples: 3, CPUPercent: st(999, 999, 3)}}
		return Measured{RunID: RunID{Scenario: "methods", Target: target, Step: step, Steps: 2, Level: []string{"50 connections", "100 connections"}[step]},
			Summary: summaryWith(r, self)}
	}
	return &Outcome{
		Bench: &plan.Bench{File: "w.yaml", Targets: []plan.BenchTarget{{Name: "ref"}, {Name: "lean"}}, Scenarios: []plan.Scenario{{Name: "methods"}}},
		Runs: []Measured{
			run("ref", 0, 1, 10*time.Second, 100, 150, 100*mib, 120*mib, 1024, 4096),
			run("lean", 0, 2, 10*time.Second, 5, 8, 10*mib, 11*mib, 0, 0),
			run("ref", 1, 1, 30*time.Second, 200, 250, 200*mib, 300*mib, 0, 0),
			run("lean", 1, 2, 30*time.Second, 10, 12, 10*mib, 12*mib, 0, 0),
		},
	}
}

// A scenario run in steps gets one resources table over all its steps per target: rates averaged
// over the measured time, levels over the samples, the highest peak, and the ratio words against
// the first target.
func TestWholeRunTable(t *testing.T) {
	t.Parallel()
	o := wholeRunOutcome()
	// ref CPU: (100×10 + 200×30) / 40 = 175 %, peak 250 %; lean: (5×10 + 10×30) / 40 = 8.75 → 9 %, peak 12 %.
	// ref RSS: (100×11 + 200×31) / 42 = 173.8 MiB, peak 300 MiB; lean 10 MiB, peak 12 MiB.
	// ref disk writes: (1024×10 + 0×30) / 40 = 256 B/s, peak 4.0 KiB/s.
	// lean against ref: 175 / 8.75 = 20× less CPU; 173.8 / 10 = 17× less memory; 0 against 256 B/s: no disk writes.
	want := `
Resources over the whole scenario (avg / peak over the measured parts of all its steps; CPU in % of one core; ratios of the averages):

| target | watched | processes | CPU | memory (RSS) | disk read/s | disk write/s | vs ref |
|---|---|---|---:|---:|---:|---:|---|
| ref | command, pid 1 | 1 (pid 1) | 175% / 250% | 173.8 MiB / 300.0 MiB | 0 B / 0 B | 256 B / 4.0 KiB |  |
| lean | command, pid 2 | 1 (pid 2) | 9% / 12% | 10.0 MiB / 12.0 MiB | 0 B / 0 B | 0 B / 0 B | 20× less CPU, 17× less memory, no disk writes |
`
	var b bytes.Buffer
	tb := wholeRunTable("methods", o.Groups())
	if tb == nil {
		t.Fatal("no whole-scenario table for a scenario of two steps")
	}
	tb.write(&b, "markdown")
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}

	// One step only: the per-step table says it all, no whole-scenario table.
	one := wholeRunOutcome()
	one.Runs = one.Runs[:2]
	if tb := wholeRunTable("methods", one.Groups()); tb != nil {
		t.Errorf("one step: got a whole-scenario table %+v; want none", tb)
	}
}

// The whole-scenario table is in every format of the report, its figures in the JSON.
func TestWholeRunInReports(t *testing.T) {
	t.Parallel()
	o := wholeRunOutcome()
	for _, c := range []struct{ format, heading string }{
		{"text", "═══ methods: whole scenario ═══"},
		{"markdown", "## methods: whole scenario"},
		{"html", "<h2>methods: whole scenario</h2>"},
	} {
		var b bytes.Buffer
		if err := Render(&b, o, c.format, report.Options{}); err != nil {
			t.Fatalf("%s: %v", c.format, err)
		}
		for _, w := range []string{c.heading, "Resources over the whole scenario", "20× less CPU, 17× less memory"} {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s report lacks %q:\n%s", c.format, w, b.String())
			}
		}
	}
	var b bytes.Buffer
	if err := Render(&b, o, "json", report.Options{}); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Scenarios []struct {
			WholeRun []WholeRun `json:"whole_run"`
		} `json:"scenarios"`
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Scenarios) != 1 || len(got.Scenarios[0].WholeRun) != 2 {
		t.Fatalf("whole_run: got %+v; want one entry per target", got.Scenarios)
	}
	ref, lean := got.Scenarios[0].WholeRun[0], got.Scenarios[0].WholeRun[1]
	if len(ref.Resources) != 1 || len(lean.Resources) != 1 {
		t.Fatalf("resources: got %+v and %+v; want the command only, not the generator", ref.Resources, lean.Resources)
	}
	cpu, rss, wr := ref.Resources[0].Summary.CPUPercent, ref.Resources[0].Summary.RSS, ref.Resources[0].Summary.DiskWrite
	if ref.Target != "ref" || ref.Steps != 2 || cpu.Avg != 175 || cpu.Peak != 250 || cpu.Samples != 50 ||
		rss.Avg != float64(7300<<20)/42 || rss.Peak != 300<<20 || wr.Avg != 256 || wr.Peak != 4096 ||
		ref.Resources[0].Summary.DiskWriteTotal != 10240 || ref.Resources[0].Summary.Duration != 40*time.Second {
		t.Errorf("ref: got %+v", ref)
	}
	if lean.Resources[0].Summary.CPUPercent.Avg != 8.75 || lean.Vs != "20× less CPU, 17× less memory, no disk writes" {
		t.Errorf("lean: got %+v", lean)
	}
}

// Each step's table of resources compared is in the JSON too: each run's figures in its report,
// each target's against the first's in words beside them, as the table words them.
func TestStepResourcesInJSON(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := Render(&b, wholeRunOutcome(), "json", report.Options{}); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Scenarios []struct {
			Steps []struct {
				Level string
				Vs    map[string]string `json:"resources_vs_first"`
			}
		}
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	// by hand: step 1, CPU 5 % against 100 %, RSS 10 MiB against 100 MiB, no disk writes
	// against 1 KiB/s; step 2, 10 % against 200 %, 10 MiB against 200 MiB, no disk on either
	want := map[string]string{
		"50 connections":  "20× less CPU, 10× less memory, no disk writes",
		"100 connections": "20× less CPU, 20× less memory",
	}
	if len(got.Scenarios) != 1 || len(got.Scenarios[0].Steps) != 2 {
		t.Fatalf("steps: got %+v; want two", got.Scenarios)
	}
	for _, st := range got.Scenarios[0].Steps {
		if len(st.Vs) != 1 || st.Vs["lean"] != want[st.Level] {
			t.Errorf("%s: resources_vs_first %v; want lean: %q", st.Level, st.Vs, want[st.Level])
		}
	}
}
