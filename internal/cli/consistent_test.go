package cli

import (
	"encoding/csv"
	"encoding/json"
	"html"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/result"
)

// writeImpossible writes a result file whose one interval of 1 s counts ok 50 > completed 30 >
// sent 5 (5 latencies and 5 service times, each request made having one), of 20 arrivals due.
func writeImpossible(t *testing.T, path string) {
	t.Helper()
	iv := result.NewInterval(1)
	iv.Start, iv.End, iv.Intended = 0, time.Second, 20
	c := iv.Endpoints[0]
	c.Sent, c.Completed, c.OK = 5, 30, 50
	for range 5 {
		result.RecordDuration(c.Latency, 4*time.Millisecond)
		result.RecordDuration(c.Service, 4*time.Millisecond)
	}
	writeResult(t, path, []*result.Interval{iv}, result.Trailer{Elapsed: time.Second, Sending: time.Second, Intended: 20})
}

// TestImpossibleFileRefused: report, compare and report --merge refuse a result file whose counts no
// run can have written, naming the file, line, interval and endpoint and what cannot be; with
// --force they render it, the contradictions as warnings in every format.
func TestImpossibleFileRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "good.rb"), filepath.Join(dir, "bad.rb")
	writeRun(t, good, [10]int{5, 6, 7, 5, 6, 7, 5, 6, 7, 5})
	writeImpossible(t, bad)
	const where = `bad.rb:2: interval 1 (0s–1s), endpoint "GET /": `
	for _, args := range [][]string{
		{"report", bad},
		{"report", "--format", "json", good, bad},
		{"compare", good, bad},
		{"report", "--merge", good, bad},
	} {
		code, stdout, stderr := cliRun(t, args...)
		if code != ExitUsage || stdout != "" {
			t.Errorf("%q: exit %d, stdout %q; want %d and nothing rendered", args, code, stdout, ExitUsage)
		}
		for _, want := range []string{where + "ok 50 + failed 0 = 50, but sent 5", where + "completed 30 > sent 5", where + "ok 50 > completed 30", "give --force"} {
			if !strings.Contains(stderr, want) {
				t.Errorf("%q: stderr %q; want it to say %q", args, stderr, want)
			}
		}
	}

	// --force: every format shows the contradictions as warnings
	const what = "ok 50 > completed 30: a request is ok only once answered"
	for _, format := range []string{"text", "markdown", "html", "hgrm", "hlog"} {
		code, stdout, stderr := cliRun(t, "report", "--force", "--format", format, bad)
		if code != ExitOK {
			t.Fatalf("report --force --format %s: exit %d; stderr %s", format, code, stderr)
		}
		shown := where + what
		if format == "html" {
			shown = html.EscapeString(shown)
		}
		if !strings.Contains(stdout, "WARNING") || !strings.Contains(stdout, shown) {
			t.Errorf("report --force --format %s: want a WARNING with %q; got:\n%s", format, shown, stdout)
		}
		if !strings.Contains(stderr, "bad.rb: 3 contradictions in its figures") {
			t.Errorf("report --force --format %s: stderr %q; want it to count the 3 contradictions", format, stderr)
		}
	}
	code, stdout, stderr := cliRun(t, "report", "--force", "--format", "json", bad)
	var rep struct{ Warnings []string }
	if err := json.Unmarshal([]byte(stdout), &rep); code != ExitOK || err != nil || len(rep.Warnings) != 3 || !strings.HasSuffix(rep.Warnings[2], where+what) {
		t.Errorf("report --force --format json: exit %d, %v, warnings %q; want 3, the last ending %q; stderr %s", code, err, rep.Warnings, where+what, stderr)
	}
	code, stdout, stderr = cliRun(t, "report", "--force", "--format", "csv", good, bad)
	rows, err := csv.NewReader(strings.NewReader(stdout)).ReadAll()
	if code != ExitOK || err != nil || len(rows) < 3 {
		t.Fatalf("report --force --format csv: exit %d, %v, %d rows; stderr %s", code, err, len(rows), stderr)
	}
	last := len(rows[0]) - 1
	if rows[0][last] != "warning" {
		t.Errorf("csv: the last column is %q; want warning", rows[0][last])
	}
	for _, r := range rows[1:] {
		if warned := strings.Contains(r[last], where+what); warned != (r[0] == "bad.rb") {
			t.Errorf("csv: row %q: warned %v; want a warning on bad.rb's rows only", r, warned)
		}
	}
	for _, format := range []string{"text", "markdown", "json"} {
		code, stdout, stderr := cliRun(t, "compare", "--force", "--format", format, good, bad)
		if format == "json" {
			var d struct{ Delta struct{ Warnings []string } }
			if err := json.Unmarshal([]byte(stdout), &d); err != nil {
				t.Fatal(err)
			}
			stdout = strings.Join(d.Delta.Warnings, "\n")
		}
		if code != ExitOK || !strings.Contains(stdout, "bad.rb: a result file of this run contradicts itself") || !strings.Contains(stdout, where+"completed 30 > sent 5") {
			t.Errorf("compare --force --format %s: exit %d; want 0 and bad.rb's warnings; got:\n%s\nstderr: %s", format, code, stdout, stderr)
		}
	}
	code, stdout, stderr = cliRun(t, "report", "--merge", "--force", good, bad)
	if code != ExitOK || !strings.HasPrefix(stdout, "WARNING: a result file of this run contradicts itself (rendered only because of --force): "+dir+string(filepath.Separator)+where) {
		t.Errorf("report --merge --force: exit %d; want 0 and the report under bad.rb's warnings; got:\n%s\nstderr: %s", code, stdout, stderr)
	}
}
