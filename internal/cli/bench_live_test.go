package cli

import (
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rpcbench/rpcbench/output/promrw/prometheustest"
)

// A plan file's outputs: key sends every run's series to a real Prometheus while the plan runs,
// all runs under one run_id, each with its scenario, target and step: queried back per label, the
// counts are those of the JSON report. Two targets, a load in three steps: the six runs span more
// than a second, so that runs that each took their own start as run_id would show several.
func TestBenchOutputsToPrometheus(t *testing.T) {
	base := prometheustest.Start(t)
	a, _ := countedLab(t)
	b, _ := countedLab(t)
	name := writePlan(t, fmt.Sprintf(`outputs:
  - prometheus-rw=%s/api/v1/write
targets:
  a: {url: %q}
  b: {url: %q}
scenarios:
  stepped:
    path: /v0/entity?id={{randInt 1 9}}
    steps: [1, 2, 3]
    step: 400ms
    interval: 100ms
`, base, a.URL(), b.URL()))
	dir := filepath.Join(t.TempDir(), "run")
	code, stdout, stderr := mainOut("bench", "--quiet", "--format", "json", "--out-dir", dir, name)
	if code != ExitOK {
		t.Fatalf("exit %d; want 0\n%s", code, stderr)
	}
	var rep struct {
		Scenarios []struct {
			Steps []struct {
				Targets []string
				Report  struct {
					Runs []struct{ Requests struct{ Sent, OK int64 } }
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil || len(rep.Scenarios) != 1 || len(rep.Scenarios[0].Steps) != 3 {
		t.Fatalf("report: %v %+v\n%s", err, rep, stdout)
	}
	for k, st := range rep.Scenarios[0].Steps {
		sel := fmt.Sprintf(`{scenario="stepped",step="%d"}`, k+1)
		sent := prometheustest.Query(t, base, "sum by (target) (rpcbench_requests_sent_total"+sel+")", "target")
		ok := prometheustest.Query(t, base, "sum by (target) (rpcbench_requests_ok_total"+sel+")", "target")
		if len(sent) != len(st.Targets) {
			t.Errorf("step %d: Prometheus has the targets %v, the report %v", k+1, slices.Sorted(maps.Keys(sent)), st.Targets)
		}
		for i, target := range st.Targets {
			r := st.Report.Runs[i].Requests
			if r.Sent == 0 || sent[target] != float64(r.Sent) || ok[target] != float64(r.OK) {
				t.Errorf("step %d on %s: sent %v, ok %v in Prometheus; %d, %d in the report", k+1, target, sent[target], ok[target], r.Sent, r.OK)
			}
		}
	}
	ids := prometheustest.Query(t, base, "count by (run_id) (rpcbench_requests_sent_total)", "run_id")
	if len(ids) != 1 || ids[""] != 0 {
		t.Errorf("run_id of the runs: %v; want one for the six runs", ids)
	}
	for id, n := range ids {
		if n != 6 {
			t.Errorf("run_id %s labels %v series; want the six runs' one endpoint each", id, n)
		}
	}
	if !strings.Contains(stderr, "rpcbench bench: stepped step 3/3 (3 connections) on b: outputs prometheus-rw: ") {
		t.Errorf("stderr says nothing of what the output of the last run sent:\n%s", stderr)
	}
}

// capacity --out TYPE=URL sends each step's series, labelled with the step, under one run_id:
// Prometheus has each step's counts of the JSON report. The steps last a second each, so that steps
// that each took their own start as run_id would show two.
func TestCapacityOutToPrometheus(t *testing.T) {
	base := prometheustest.Start(t)
	srv, _ := countedLab(t)
	code, stdout, stderr := mainOut("capacity", "--quiet", "--format", "json", "--slo", "errors<50%", "--start", "20", "--max", "40",
		"--step", "1s", "--step-warmup", "0", "--max-steps", "2", "--confirm", "1", "--out", "prometheus-rw="+base+"/api/v1/write", srv.URL()+"/v0/entity?id=1")
	if code != ExitOK {
		t.Fatalf("exit %d; want 0\n%s", code, stderr)
	}
	var rep struct {
		Steps []struct {
			Report struct{ Requests struct{ Sent int64 } }
		}
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil || len(rep.Steps) == 0 {
		t.Fatalf("report: %v\n%s", err, stdout)
	}
	sent := prometheustest.Query(t, base, "sum by (step) (rpcbench_requests_sent_total)", "step")
	if len(sent) != len(rep.Steps) {
		t.Errorf("Prometheus has the steps %v; the report %d steps", slices.Sorted(maps.Keys(sent)), len(rep.Steps))
	}
	for i, st := range rep.Steps {
		step := fmt.Sprintf("capacity %d", i+1)
		if got := sent[step]; got != float64(st.Report.Requests.Sent) || got == 0 {
			t.Errorf("%s: sent %v in Prometheus, %d in the report", step, got, st.Report.Requests.Sent)
		}
	}
	if ids := prometheustest.Query(t, base, "count by (run_id) (rpcbench_requests_sent_total)", "run_id"); len(ids) != 1 {
		t.Errorf("run_id of the steps: %v; want one", ids)
	}
}
