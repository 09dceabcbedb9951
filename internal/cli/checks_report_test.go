package cli

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rpcbench/rpcbench/summary"
)

// cycleServer answers on 127.0.0.1 in a cycle of seven, by the order requests arrive: n 10, 10,
// 11, 10, 12 with a long text and no "ok", no n at all, and a 500.
func cycleServer(t *testing.T) string {
	t.Helper()
	long := strings.Repeat("x", 100)
	var n atomic.Int64
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch (n.Add(1) - 1) % 7 {
		case 0, 1, 3:
			fmt.Fprint(w, `{"result":{"n":10,"s":"ok"}}`)
		case 2:
			fmt.Fprint(w, `{"result":{"n":11,"s":"ok"}}`)
		case 4:
			fmt.Fprintf(w, `{"result":{"n":12,"s":"%s"}}`, long)
		case 5:
			fmt.Fprint(w, `{"result":{"s":"ok"}}`)
		case 6:
			w.WriteHeader(500)
			fmt.Fprint(w, `{"result":{"n":10,"s":"ok"}}`)
		}
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String() + "/"
}

// Every check's passes and failures are counted, not only the first failure of a request, with
// the values the failing ones received; the result file keeps them, and every format shows them.
// 35 requests, five of each of the seven answers: 30 reach the checks (the five 500s do not).
func TestChecksReportedInEveryFormat(t *testing.T) {
	t.Parallel()
	url := cycleServer(t)
	out := filepath.Join(t.TempDir(), "run.rb")
	code, s, stderr := rpcRun(t, "run", "--requests", "35", "--connections", "1", "--out", out,
		"--check", "json result.n == 10", "--check", "json result.n exists", "--check", "body contains ok", url)
	if code != ExitOK {
		t.Fatalf("exit %d; stderr %s", code, stderr)
	}
	prefix := `{"result":{"n":12,"s":"`
	longSample := prefix + strings.Repeat("x", 80-len(prefix)) + fmt.Sprintf("… (%d bytes)", len(prefix)+100+len(`"}}`))
	want := []summary.Check{
		{Name: `body contains "ok"`, Passed: 25, Failed: 5, FailedSamples: []string{longSample}},
		{Name: "json result.n == 10", Passed: 15, Failed: 15, FailedSamples: []string{"11", "12", "(no value at result.n)"}},
		{Name: "json result.n exists", Passed: 25, Failed: 5, FailedSamples: []string{"(no value at result.n)"}},
	}
	sameChecks := func(what string, got []summary.Check) {
		t.Helper()
		if !slices.EqualFunc(got, want, func(a, b summary.Check) bool {
			return a.Name == b.Name && a.Passed == b.Passed && a.Failed == b.Failed && slices.Equal(a.FailedSamples, b.FailedSamples)
		}) {
			t.Errorf("%s: checks\n%+v\nwant\n%+v", what, got, want)
		}
	}
	sameChecks("run --format json", s.Checks)
	// a request that fails two checks is one failure, under the first check it failed
	if got := failures(s.Stats); got["check: json result.n == 10"] != 15 || got["status: status 500"] != 5 || len(got) != 2 {
		t.Errorf("failures %v; want 15 of the first check, 5 of status 500", got)
	}

	// the result file keeps them: report renders them again
	code, js, stderr := mainOut("report", "--format", "json", out)
	var again summary.Summary
	if code != ExitOK || json.Unmarshal([]byte(js), &again) != nil {
		t.Fatalf("report --format json: exit %d: %s%s", code, js, stderr)
	}
	sameChecks("report --format json run.rb", again.Checks)

	_, text, _ := mainOut("report", out)
	for _, w := range []string{"\nChecks (", "json result.n == 10   15      15      50.0%", "json result.n == 10 failed 15 times, receiving:\n    11\n    12\n    (no value at result.n)\n", "    " + longSample + "\n"} {
		if !strings.Contains(text, w) {
			t.Errorf("text report lacks %q:\n%s", w, text)
		}
	}
	_, md, _ := mainOut("report", "--format", "markdown", out)
	for _, w := range []string{"| json result.n exists | 25 | 5 | 16.7% |", "- ` (no value at result.n) `\n", "- ` 11 `\n"} {
		if !strings.Contains(md, w) {
			t.Errorf("markdown report lacks %q:\n%s", w, md)
		}
	}
	// several runs compared: each run's checks still
	_, md2, _ := mainOut("report", "--format", "markdown", "--label", "a", "--label", "b", out, out)
	for _, w := range []string{"\nChecks of a (", "\nChecks of b (", "| json result.n == 10 | 15 | 15 | 50.0% |"} {
		if !strings.Contains(md2, w) {
			t.Errorf("markdown of two runs lacks %q:\n%s", w, md2)
		}
	}
	_, page, _ := mainOut("report", "--format", "html", out)
	for _, w := range []string{"<h2>Checks", "<td class=\"msg\">body contains &#34;ok&#34;</td><td class=\"n\">25</td><td class=\"n bad\">5</td>", "<li><code>(no value at result.n)</code></li>"} {
		if !strings.Contains(page, w) {
			t.Errorf("html report lacks %q", w)
		}
	}
	_, csvText, _ := mainOut("report", "--format", "csv", out)
	rows, err := csv.NewReader(strings.NewReader(csvText)).ReadAll()
	if err != nil {
		t.Fatalf("csv: %v\n%s", err, csvText)
	}
	var checkRows []string
	for _, r := range rows {
		if strings.HasPrefix(r[3], "check: ") {
			checkRows = append(checkRows, strings.Join(r[3:7], ","))
		}
	}
	wantRows := []string{`check: body contains "ok",30,25,5`, "check: json result.n == 10,30,15,15", "check: json result.n exists,30,25,5"}
	if !slices.Equal(checkRows, wantRows) {
		t.Errorf("csv check rows %q; want %q", checkRows, wantRows)
	}
}
