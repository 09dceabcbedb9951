package cli

import (
	"encoding/csv"
	"errors"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/serve/lab"
)

// logRow is one row of a per-request log (run --log).
type logRow struct {
	intended, sent, done time.Time
	serviceMs            float64
	status               string
}

// readLogRows reads a per-request log as the test's own route to the figures.
func readLogRows(t *testing.T, path string) []logRow {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out []logRow
	for _, r := range rows[1:] {
		in, err1 := time.Parse(time.RFC3339Nano, r[2])
		sent, err2 := time.Parse(time.RFC3339Nano, r[3])
		lat, err3 := strconv.ParseFloat(r[4], 64)
		svc, err4 := strconv.ParseFloat(r[5], 64)
		if err := errors.Join(err1, err2, err3, err4); err != nil {
			t.Fatalf("%s: %q: %v", path, r, err)
		}
		out = append(out, logRow{intended: in, sent: sent, done: in.Add(time.Duration(lat * float64(time.Millisecond))), serviceMs: svc, status: r[6]})
	}
	return out
}

// report --format vegeta prints a saved run in vegeta's text layout; its figures agree with the
// run's per-request log, read here row by row: the count, the status codes, the success ratio,
// the service times (min, median, max) and the attack (the sending window) and wait.
func TestReportVegeta(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rb, logf := filepath.Join(dir, "run.rb"), filepath.Join(dir, "requests.csv")
	labRun(t, lab.Config{ErrorRate: 0.2, Seed: 5}, "--out", rb, "--log", logf)
	code, out, stderr := cliRun(t, "report", "--format", "vegeta", rb)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rows := readLogRows(t, logf)
	statuses := map[string]int{}
	var svc []float64
	first, lastSent, lastDone := rows[0].intended, rows[0].sent, rows[0].done
	for _, r := range rows {
		statuses[r.status]++
		svc = append(svc, r.serviceMs)
		if r.intended.Before(first) {
			first = r.intended
		}
		if r.sent.After(lastSent) {
			lastSent = r.sent
		}
		if r.done.After(lastDone) {
			lastDone = r.done
		}
	}
	slices.Sort(svc)
	if statuses["500"] == 0 || statuses["200"] == 0 || len(statuses) != 2 {
		t.Fatalf("the log's statuses: %v; want 200s and 500s", statuses)
	}
	lines := strings.Split(out, "\n")
	want := []string{`^Requests      \[total, rate, throughput\]         (\d+), ([\d.]+), ([\d.]+)$`,
		`^Duration      \[total, attack, wait\]             (\S+), (\S+), (\S+)$`,
		`^Latencies     \[min, mean, 50, 90, 95, 99, max\]  (\S+), (\S+), (\S+), (\S+), (\S+), (\S+), (\S+)$`,
		`^Bytes In      \[total, mean\]                     (\d+), ([\d.]+)$`,
		`^Bytes Out     \[total, mean\]                     (\d+), ([\d.]+)$`,
		`^Success       \[ratio\]                           ([\d.]+)%$`,
		`^Status Codes  \[code:count\]                      200:(\d+)  500:(\d+)  $`,
		`^Error Set:$`}
	if len(lines) < len(want)+1 {
		t.Fatalf("vegeta layout: %d lines:\n%s", len(lines), out)
	}
	got := make([][]string, len(want))
	for i, w := range want {
		if got[i] = regexp.MustCompile(w).FindStringSubmatch(lines[i]); got[i] == nil {
			t.Fatalf("line %d: %q; want %s\n%s", i+1, lines[i], w, out)
		}
	}
	num := func(s string) float64 { v, _ := strconv.ParseFloat(s, 64); return v }
	dur := func(s string) float64 {
		d, err := time.ParseDuration(s)
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		return d.Seconds() * 1000
	}
	near := func(what string, got, want, tol float64) {
		if math.Abs(got-want) > tol {
			t.Errorf("%s: %g; want %g ± %g\n%s", what, got, want, tol, out)
		}
	}
	total := float64(len(rows))
	// the attack is the sending window (1 s here), or longer when the generator fell behind: to
	// its last send, which the log places between that request's due time and its first byte
	// written; the wait runs from the attack's end to the last answer
	lastDue := first
	for _, r := range rows {
		if r.intended.After(lastDue) {
			lastDue = r.intended
		}
	}
	attackLo, attackHi := max(1000, lastDue.Sub(first).Seconds()*1000), max(1000, lastSent.Sub(first).Seconds()*1000)
	all := lastDone.Sub(first).Seconds() * 1000
	near("total", num(got[0][1]), total, 0)
	attack := dur(got[1][2])
	if attack < attackLo-2 || attack > attackHi+2 {
		t.Errorf("attack: %gms; want %g to %gms (the window, or to the last send)\n%s", attack, attackLo, attackHi, out)
	}
	near("rate", num(got[0][2]), total/(attack/1000), total/(attack/1000)*0.01)
	all = max(all, attack) // the duration lasts the attack at least, to the last answer when later
	// the run ends when its senders have, after the last answer: on a busy machine a few
	// milliseconds after it (1003 ms for a last answer at 1000 ms was seen)
	totalMs, waitMs := dur(got[1][1]), dur(got[1][3])
	if totalMs < all-2 || totalMs > all+100 {
		t.Errorf("total duration: %gms; want from %gms (the last answer) to 100 ms later\n%s", totalMs, all, out)
	}
	near("wait (ms)", waitMs, max(0, totalMs-attack), 2) // the printed figures are rounded
	near("throughput", num(got[0][3]), float64(statuses["200"])/(totalMs/1000), float64(statuses["200"])/(totalMs/1000)*0.01)
	near("min latency (ms)", dur(got[2][1]), svc[0], svc[0]*0.01+0.002)
	near("median latency (ms)", dur(got[2][3]), svc[(len(svc)+1)/2-1], svc[len(svc)/2]*0.01+0.002)
	near("max latency (ms)", dur(got[2][7]), svc[len(svc)-1], svc[len(svc)-1]*0.01+0.002)
	near("success (%)", num(got[5][1]), 100*float64(statuses["200"])/total, 0.005)
	near("200s", num(got[6][1]), float64(statuses["200"]), 0)
	near("500s", num(got[6][2]), float64(statuses["500"]), 0)
	if in := num(got[3][1]); in == 0 || math.Abs(num(got[3][2])-in/total) > 0.005 {
		t.Errorf("bytes in: total %s, mean %s; want a mean of total/%d", got[3][1], got[3][2], len(rows))
	}
	if rest := strings.Join(lines[len(want):], "\n"); !strings.Contains(rest, "500") {
		t.Errorf("error set %q: want the 500s' failure", rest)
	}
	if code, _, stderr := cliRun(t, "report", "--format", "vegeta", rb, rb); code != ExitUsage || !strings.Contains(stderr, "--format vegeta renders one run") {
		t.Errorf("two files: exit %d, %s; want a usage error", code, stderr)
	}
}
