package cli

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rpcbench/rpcbench/summary"
)

// answerServer answers the requests it receives in turn, five at a time: {"v":100}, {"v":200},
// {"v":300}, an answer without the number ({"v":"x"}), and a 500 with {"v":999999}, which fails
// its status and must not be read.
func answerServer(t *testing.T) string {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch (n.Add(1) - 1) % 5 {
		case 0:
			w.Write([]byte(`{"v":100}`))
		case 1:
			w.Write([]byte(`{"v":2e2}`))
		case 2:
			w.Write([]byte(`{"v":299.6}`)) // rounded to 300
		case 3:
			w.Write([]byte(`{"v":"x"}`))
		default:
			w.WriteHeader(http.StatusInternalServerError)
			w.Write([]byte(`{"v":999999}`))
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// The numbers an answer carries are read into a distribution of their own, in the answer's unit:
// 20 requests over one connection are 4 rounds of the server's five answers, so 12 values (4 each
// of 100, 200, 300), 4 answers without the number, and the 4 failures not read. The live report
// and the result file read back say the same.
func TestRunAnswerMetric(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "run.rb")
	code, s, stderr := rpcRun(t, "run", "--requests", "20", "--connections", "1", "--answer-metric", "v_ns=v",
		"--out", out, answerServer(t))
	if code != ExitOK {
		t.Fatalf("exit %d; stderr %s", code, stderr)
	}
	want := func(where string, ms []summary.AnswerMetric) {
		t.Helper()
		if len(ms) != 1 || ms[0].Name != "v_ns" || ms[0].Count != 12 || ms[0].Missing != 4 || ms[0].Values == nil {
			t.Fatalf("%s: answer metrics %+v; want v_ns with 12 values and 4 missing", where, ms)
		}
		v := ms[0].Values
		if v.Min != 100 || v.Max != 300 || v.Mean != 200 || v.P50 != 200 {
			t.Errorf("%s: v_ns min %v, mean %v, p50 %v, max %v; want 100, 200, 200, 300", where, v.Min, v.Mean, v.P50, v.Max)
		}
	}
	want("live", s.AnswerMetrics)
	want("live, endpoint", s.Endpoints[0].AnswerMetrics)
	var b, errb bytes.Buffer
	if code := Main([]string{"report", "--format", "json", out}, strings.NewReader(""), &b, &errb); code != ExitOK {
		t.Fatalf("report: exit %d; stderr %s", code, errb.String())
	}
	var back summary.Summary
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	want("from the result file", back.AnswerMetrics)
	b.Reset()
	if code := Main([]string{"report", out}, strings.NewReader(""), &b, &errb); code != ExitOK {
		t.Fatalf("report: exit %d; stderr %s", code, errb.String())
	}
	if !strings.Contains(b.String(), "Answer metrics") || !regexp.MustCompile(`(?m)^ *v_ns +all +12 +4 +100 +200 +200 +300 +300 +300 *$`).MatchString(b.String()) {
		t.Errorf("text report lacks the answer metrics row:\n%s", b.String())
	}
	b.Reset()
	if code := Main([]string{"report", "--format", "html", out}, strings.NewReader(""), &b, &errb); code != ExitOK {
		t.Fatalf("report --format html: exit %d; stderr %s", code, errb.String())
	}
	if row := `<td class="msg">v_ns</td><td class="msg">all</td><td class="n">12</td><td class="n">4</td><td class="n">100</td><td class="n">200</td><td class="n">200</td><td class="n">300</td>`; !strings.Contains(b.String(), row) {
		t.Errorf("HTML report lacks the answer metrics row %s", row)
	}
}

// A plan's checks.metrics reads the numbers as --answer-metric does; a bad path names its line.
func TestPlanAnswerMetrics(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	url := answerServer(t)
	planFile := filepath.Join(dir, "plan.yaml")
	write := func(metrics string) {
		t.Helper()
		body := "targets:\n  svc: {url: " + url + "}\nscenarios:\n  read:\n    requests: 10\n    connections: 1\n    checks:\n      metrics: " + metrics + "\n"
		if err := os.WriteFile(planFile, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("{bad: 'a..b'}")
	var b, errb bytes.Buffer
	if code := Main([]string{"bench", "--dry-run", planFile}, strings.NewReader(""), &b, &errb); code != ExitUsage || !strings.Contains(errb.String(), "plan.yaml:8") || !strings.Contains(errb.String(), "bad") {
		t.Errorf("bad path: exit %d, stderr %q; want %d naming plan.yaml:8 and the metric", code, errb.String(), ExitUsage)
	}
}
