package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rpcbench/rpcbench/bench"
	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/serve/lab"
	"github.com/rpcbench/rpcbench/summary"
)

// plotData returns the series a plot page charts: each one's label and its points' count.
func plotData(t *testing.T, page string) map[string]int {
	t.Helper()
	m := regexp.MustCompile(`var series = (\[.*\]);`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("the page has no series:\n%.2000s", page)
	}
	var series []struct {
		Label string    `json:"label"`
		At    []float64 `json:"at"`
		Ms    []float64 `json:"ms"`
	}
	if err := json.Unmarshal([]byte(m[1]), &series); err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, s := range series {
		if len(s.At) != len(s.Ms) {
			t.Errorf("%s: %d times, %d service times", s.Label, len(s.At), len(s.Ms))
		}
		out[s.Label] = len(s.At)
	}
	return out
}

// rpcbench plot draws every request of each log, OK and failed apart, as the logs count them row
// by row; a file that is not a per-request log is refused with its name and line.
func TestPlot(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.csv"), filepath.Join(dir, "b.csv")
	labRun(t, lab.Config{ErrorRate: 0.25, Seed: 7}, "--log", a)
	labRun(t, lab.Config{}, "--log", b)
	page := filepath.Join(dir, "plot.html")
	if code, _, stderr := cliRun(t, "plot", "-o", page, "--label", "before", "--label", "after", a, b); code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	text, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{}
	for label, f := range map[string]string{"before": a, "after": b} {
		for _, r := range readLogRows(t, f) {
			if r.status == "200" {
				want[label+": OK"]++
			} else {
				want[label+": errors"]++
			}
		}
		if _, ok := want[label+": errors"]; !ok {
			want[label+": errors"] = 0
		}
	}
	if got := plotData(t, string(text)); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("points: %v; want %v (the logs' rows)", got, want)
	}
	for _, w := range []string{fmt.Sprintf("<strong>before</strong>: started "), fmt.Sprintf("; %d OK, %d failed", want["before: OK"], want["before: errors"]), "uPlot"} {
		if !strings.Contains(string(text), w) {
			t.Errorf("page lacks %q", w)
		}
	}
	if want["before: errors"] == 0 {
		t.Error("the first run has no failed request: the test shows nothing of them")
	}
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("id,endpoint,intended,sent,latency_ms,service_ms,status,class\n1,GET /,2026-01-01T00:00:00Z,2026-01-01T00:00:00Z,1.0,x,200,ok\n"), 0o644)
	// NaN and infinities parse as floats, but are no milliseconds (the page's JSON cannot hold them)
	odd := map[string]string{}
	for _, v := range []string{"NaN", "+Inf", "-Inf", "-1"} {
		odd[v] = filepath.Join(dir, "odd"+v+".csv")
		os.WriteFile(odd[v], []byte("id,endpoint,intended,sent,latency_ms,service_ms,status,class\n1,GET /,2026-01-01T00:00:00Z,2026-01-01T00:00:00Z,1.0,0.5,200,ok\n2,GET /,2026-01-01T00:00:00Z,2026-01-01T00:00:00Z,1.0,"+v+",200,ok\n"), 0o644)
	}
	for args, msg := range map[string]string{
		"plot " + bad:         bad + ":2: service_ms \"x\": want milliseconds, 0 or more",
		"plot " + odd["NaN"]:  odd["NaN"] + ":3: service_ms \"NaN\": want milliseconds, 0 or more",
		"plot " + odd["+Inf"]: odd["+Inf"] + ":3: service_ms \"+Inf\": want milliseconds, 0 or more",
		"plot " + odd["-Inf"]: odd["-Inf"] + ":3: service_ms \"-Inf\": want milliseconds, 0 or more",
		"plot " + odd["-1"]:   odd["-1"] + ":3: service_ms \"-1\": want milliseconds, 0 or more",
		"plot " + page:        page + ":1: want the header of a per-request log (run --log)",
		"plot":                "want at least one per-request log",
	} {
		code, _, stderr := cliRun(t, strings.Fields(args)...)
		if code != ExitUsage || !strings.Contains(stderr, msg) {
			t.Errorf("%s: exit %d, %q; want exit 2 with %q", args, code, stderr, msg)
		}
	}
}

// A plan's reports: [vegeta, plot] gives each load run its vegeta text report and per-request
// log, and each scenario a plot page of its targets' requests; the counts agree with the logs.
func TestBenchVegetaReports(t *testing.T) {
	t.Parallel()
	a, err := lab.New(lab.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := lab.New(lab.Config{ErrorRate: 0.5, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	dir := t.TempDir()
	planFile := filepath.Join(dir, "p.yaml")
	os.WriteFile(planFile, []byte(fmt.Sprintf(`targets:
  a: {url: %q}
  b: {url: %q}
reports: [vegeta, plot]
scenarios:
  read: {requests: 40, connections: 2}
`, a.URL()+"/", b.URL()+"/")), 0o644)
	out := filepath.Join(dir, "run")
	code, _, stderr := cliRun(t, "bench", "--quiet", "--out-dir", out, planFile)
	if code != ExitOK && code != ExitSLO {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := map[string]int{}
	for _, target := range []string{"a", "b"} {
		rows := readLogRows(t, filepath.Join(out, "read."+target+".log.csv"))
		for _, r := range rows {
			if r.status == "200" {
				want[target+": OK"]++
			} else {
				want[target+": errors"]++
			}
		}
		v, err := os.ReadFile(filepath.Join(out, "read."+target+".vegeta.txt"))
		if err != nil || !strings.HasPrefix(string(v), fmt.Sprintf("Requests      [total, rate, throughput]         %d, ", len(rows))) {
			t.Errorf("%s: vegeta report %v:\n%s\nwant %d requests, as its log", target, err, v, len(rows))
		}
	}
	want["a: errors"] += 0
	page, err := os.ReadFile(filepath.Join(out, "read.plot.html"))
	if err != nil {
		t.Fatal(err)
	}
	if got := plotData(t, string(page)); fmt.Sprint(got) != fmt.Sprint(want) || want["b: errors"] == 0 || want["a: OK"] != 40 {
		t.Errorf("plot points: %v; want %v (the logs' rows: 40 OK of a, b's half failed)", got, want)
	}
	bad := strings.Replace(string(mustRead(t, planFile)), "reports: [vegeta, plot]", "reports: [vegeta, plots]", 1)
	os.WriteFile(planFile, []byte(bad), 0o644)
	if code, _, stderr := cliRun(t, "bench", "--dry-run", planFile); code != ExitUsage || !strings.Contains(stderr, planFile+`:4:19: reports[1]: "plots": want a list of vegeta and plot`) {
		t.Errorf("a bad report: exit %d, %s", code, stderr)
	}
}

func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A run cut in its warm-up (interrupted, or one that measured no request) leaves a log with its
// header only: the plot passes it over without an error and draws the other runs; a run that
// measured requests but whose log holds none is still told.
func TestVegetaReportsPassOverEmptyLogs(t *testing.T) {
	t.Parallel()
	const head = "id,endpoint,intended,sent,latency_ms,service_ms,status,class\n"
	for _, c := range []struct {
		name    string
		cut     bool // the whole run interrupted
		b       summary.Summary
		wantErr string
	}{
		{"interrupted in b's warm-up", true, summary.Summary{Interrupted: true}, ""},
		{"b interrupted alone", false, summary.Summary{Interrupted: true}, ""},
		{"b measured none", false, summary.Summary{}, ""},
		{"b measured 3, logged none", false, summary.Summary{Stats: summary.Stats{Requests: summary.Requests{Intended: 3, Sent: 3}}}, "s.b.log.csv: no requests: the log holds its header only"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "s.a.log.csv"), []byte(head+"1,GET /,2026-01-01T00:00:00Z,2026-01-01T00:00:00Z,1.0,0.5,200,ok\n"), 0o644)
			os.WriteFile(filepath.Join(dir, "s.b.log.csv"), []byte(head), 0o644)
			a := summary.Summary{Stats: summary.Stats{Requests: summary.Requests{Intended: 1, Sent: 1, Completed: 1, OK: 1}}}
			out := &bench.Outcome{Bench: &plan.Bench{Reports: []string{plan.ReportPlot}}, Interrupted: c.cut, Runs: []bench.Measured{
				{RunID: bench.RunID{Scenario: "s", Target: "a", Steps: 1}, Summary: &a},
				{RunID: bench.RunID{Scenario: "s", Target: "b", Steps: 1}, Summary: &c.b},
			}}
			errs := vegetaReports(dir, out)
			if c.wantErr != "" {
				if len(errs) != 1 || !strings.Contains(errs[0].Error(), c.wantErr) {
					t.Errorf("errors %v; want one with %q", errs, c.wantErr)
				}
				return
			}
			if len(errs) > 0 {
				t.Errorf("errors %v; want none", errs)
			}
			page, err := os.ReadFile(filepath.Join(dir, "s.plot.html"))
			if err != nil {
				t.Fatal(err)
			}
			if got := plotData(t, string(page)); got["a: OK"] != 1 || len(got) != 2 {
				t.Errorf("points %v; want a's one OK point (and its 0 errors) alone", got)
			}
		})
	}
}
