package cli

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rpcbench/rpcbench/serve/lab"
	"github.com/rpcbench/rpcbench/summary"
)

// A run against a loopback server gets a verdict that its result file keeps: valid, or invalid
// naming what made it so; `report run.rb` prints the same verdict, first in its text.
func TestRunValidityEndToEnd(t *testing.T) {
	t.Parallel()
	srv := startLab(t, lab.Config{})
	rb := filepath.Join(t.TempDir(), "run.rb")
	// 6000/s for 2 s: 12,000 intended, more than the 10,000 latencies p99.99 needs
	code, out, stderr := cliRun(t, "run", "--rate", "6000", "--duration", "2s", "--quiet", "--format", "json", "--out", rb, srv.URL())
	if code != ExitOK {
		t.Fatalf("exit %d; want 0 (without --require-valid a verdict does not change it): %s", code, stderr)
	}
	var run struct {
		Validity *summary.Validity `json:"validity"`
	}
	if err := json.Unmarshal([]byte(out), &run); err != nil || run.Validity == nil {
		t.Fatalf("the JSON report has no validity (%v):\n%s", err, out)
	}
	v := *run.Validity
	if v.Valid != (len(v.Reasons) == 0) {
		t.Errorf("valid %v with reasons %q", v.Valid, v.Reasons)
	}
	behind := false
	for _, r := range v.Reasons {
		behind = behind || strings.Contains(r, "fell behind")
	}
	for _, r := range v.Reasons {
		// the only way this run can lack samples is a generator that did not send them
		if strings.Contains(r, "too few samples") && !behind {
			t.Errorf("reason %q without the generator falling behind: 12,000 intended requests are enough", r)
		}
	}
	t.Logf("verdict: %+v", v)
	code, again, stderr := cliRun(t, "report", "--format", "json", rb)
	var rep struct {
		Validity *summary.Validity `json:"validity"`
	}
	if err := json.Unmarshal([]byte(again), &rep); code != ExitOK || err != nil || rep.Validity == nil {
		t.Fatalf("report: exit %d, %v, stderr %s", code, err, stderr)
	}
	if !reflect.DeepEqual(*rep.Validity, v) {
		t.Errorf("report of the result file: %+v; want the run's %+v", *rep.Validity, v)
	}
	_, text, _ := cliRun(t, "report", rb)
	want := "valid run"
	if !v.Valid {
		want = "INVALID run: " + strings.Join(v.Reasons, "; ")
	}
	if first, _, _ := strings.Cut(text, "\n"); first != want {
		t.Errorf("report's first line %q; want %q", first, want)
	}
}

// --require-valid exits 5 when the run is invalid, naming why on stderr; without it the exit code
// is the run's and the report still says so.
func TestRequireValid(t *testing.T) {
	t.Parallel()
	srv := startLab(t, lab.Config{})
	// 100 requests: p99.9 and p99.99 are not supported, whatever the machine
	args := []string{"run", "--rate", "100", "--duration", "1s", "--quiet", srv.URL()}
	code, out, stderr := cliRun(t, append([]string{"run", "--require-valid"}, args[1:]...)...)
	if code != ExitInvalid || !strings.Contains(stderr, "rpcbench run: the run is invalid (--require-valid): ") ||
		!strings.Contains(stderr, "too few samples for the percentiles shown: 100 latencies, and p99.9 needs 1,000, p99.99 needs 10,000") {
		t.Errorf("exit %d, stderr %q; want %d naming the percentiles 100 latencies do not support", code, stderr, ExitInvalid)
	}
	if !strings.HasPrefix(out, "INVALID run: ") {
		t.Errorf("report starts %q; want the verdict", strings.SplitN(out, "\n", 2)[0])
	}
	if code, out, _ := cliRun(t, args...); code != ExitOK || !strings.HasPrefix(out, "INVALID run: ") {
		t.Errorf("without --require-valid: exit %d, report starting %q; want 0 and the verdict", code, strings.SplitN(out, "\n", 2)[0])
	}
}

// A plan file's require_valid does for its scenario what --require-valid does: run --plan and
// bench exit 5 when a run of it is invalid, naming the run and why; a scenario without it is not
// held to its verdict. 20 requests are too few for p99 whatever the machine.
func TestRequireValidPlanFile(t *testing.T) {
	t.Parallel()
	srv := startLab(t, lab.Config{})
	path := writePlanFile(t, "targets:\n  lab:\n    url: "+srv.URL()+"\nscenarios:\n"+
		"  strict: {rate: 200, requests: 20, interval: 50ms, require_valid: true}\n"+
		"  relaxed: {rate: 200, requests: 20, interval: 50ms}\n", nil)
	const why = "too few samples for the percentiles shown: 20 latencies"
	code, _, stderr := mainOut("run", "--plan", path, "--scenario", "strict", "--quiet")
	// a busy machine may add reasons before it: the generator fell behind
	if want := "rpcbench run: the run is invalid (require_valid of the plan file): "; code != ExitInvalid || !strings.Contains(stderr, want) || !strings.Contains(stderr, why) {
		t.Errorf("run --plan of the strict scenario: exit %d, stderr %q; want %d, %q and %q", code, stderr, ExitInvalid, want, why)
	}
	if code, _, stderr := mainOut("run", "--plan", path, "--scenario", "relaxed", "--quiet"); code != ExitOK {
		t.Errorf("run --plan of the relaxed scenario: exit %d, stderr %q; want 0", code, stderr)
	}
	code, _, stderr = mainOut("bench", "--quiet", "--out-dir", filepath.Join(t.TempDir(), "run"), path)
	if code != ExitInvalid || !strings.Contains(stderr, "rpcbench bench: strict on lab: invalid (require_valid): ") || !strings.Contains(stderr, why) || strings.Contains(stderr, "relaxed on lab") {
		t.Errorf("bench: exit %d, stderr %q; want %d naming strict on lab alone", code, stderr, ExitInvalid)
	}
}
