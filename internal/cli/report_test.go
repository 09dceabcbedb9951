package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/serve/lab"
	"github.com/rpcbench/rpcbench/summary"
)

// cliRun runs the command line args and returns its exit code, stdout and stderr.
func cliRun(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// labRun starts a lab server and runs a bounded open-model run of it (1 s at 200/s) with extra
// flags, in dir; it returns the run's stdout.
func labRun(t *testing.T, cfg lab.Config, extra ...string) string {
	t.Helper()
	srv, err := lab.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	args := append([]string{"run", "--rate", "200", "--duration", "1s", "--quiet"}, extra...)
	code, stdout, stderr := cliRun(t, append(args, srv.URL()+"/r")...)
	if code != ExitOK {
		t.Fatalf("run %v: exit %d; stderr: %s", extra, code, stderr)
	}
	return stdout
}

// TestRunOutThenReport saves a run with --out (and --live, --report-file) and renders the file with
// report: text and JSON come out exactly as at the end of the run.
func TestRunOutThenReport(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rb, txt, live := filepath.Join(dir, "run.rb"), filepath.Join(dir, "run.txt"), filepath.Join(dir, "live.jsonl")
	runJSON := labRun(t, lab.Config{ErrorRate: 0.05, Seed: 3}, "--format", "json", "--out", rb, "--report-file", txt, "--live", live)

	code, gotJSON, stderr := cliRun(t, "report", "--format", "json", rb)
	if code != ExitOK {
		t.Fatalf("report json: exit %d: %s", code, stderr)
	}
	if gotJSON != runJSON {
		t.Errorf("report --format json differs from the run's JSON report:\ngot:\n%s\nwant:\n%s", gotJSON, runJSON)
	}
	wantText, err := os.ReadFile(txt)
	if err != nil {
		t.Fatal(err)
	}
	code, gotText, stderr := cliRun(t, "report", rb)
	if code != ExitOK || gotText != string(wantText) {
		t.Errorf("report text: exit %d (%s); got:\n%s\nwant:\n%s", code, stderr, gotText, wantText)
	}

	var s summary.Summary
	if err := json.Unmarshal([]byte(runJSON), &s); err != nil {
		t.Fatal(err)
	}
	lines := liveLines(t, live)
	var sent uint64
	for _, l := range lines {
		sent += l.Total.Sent
	}
	if len(lines) == 0 || !lines[len(lines)-1].Final {
		t.Errorf("got %d live lines, the last final=%v; want at least one, the last final", len(lines), len(lines) > 0 && lines[len(lines)-1].Final)
	}
	if sent != s.Requests.Sent || s.Requests.Sent == 0 {
		t.Errorf("live lines add up to %d sent; want the report's %d (> 0)", sent, s.Requests.Sent)
	}
	if len(lines) > 0 && (len(lines[0].Endpoints) != 1 || lines[0].Endpoints[0].Endpoint == "") {
		t.Errorf("got live endpoints %+v; want one named endpoint", lines[0].Endpoints)
	}
}

// TestLiveToStdout: with --live -, stdout holds nothing but the JSON lines, the last one final,
// and the report goes to stderr.
func TestLiveToStdout(t *testing.T) {
	t.Parallel()
	srv, err := lab.New(lab.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	code, stdout, stderr := cliRun(t, "run", "--rate", "200", "--duration", "1s", "--live", "-", srv.URL()+"/")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	var last liveLine
	for i, l := range lines {
		if err := json.Unmarshal([]byte(l), &last); err != nil {
			t.Fatalf("stdout line %d %q is not a live line: %v", i+1, l, err)
		}
	}
	if !last.Final {
		t.Errorf("last stdout line %q is not final", lines[len(lines)-1])
	}
	if !strings.Contains(stderr, "Requests") || !strings.Contains(stderr, "Latency") {
		t.Errorf("stderr %q; want the text report", stderr)
	}
}

// liveLine is one line of --live as a reader decodes it (the fields the tests read).
type liveLine struct {
	ElapsedS  float64         `json:"elapsed_s"`
	Warmup    bool            `json:"warmup"`
	Final     bool            `json:"final"`
	InFlight  int64           `json:"in_flight"`
	Total     summary.Point   `json:"total"`
	Endpoints []summary.Point `json:"endpoints"`
}

func liveLines(t *testing.T, path string) []liveLine {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []liveLine
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l liveLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("live line %q: %v", sc.Text(), err)
		}
		out = append(out, l)
	}
	return out
}

// runTogether runs each command line at once, sharing one start instant (--start-at, 1 s from now),
// as generators on several machines do, and returns each run's stdout.
func runTogether(t *testing.T, runs ...[]string) []string {
	t.Helper()
	at := time.Now().Add(time.Second).UTC().Format(time.RFC3339Nano)
	out := make([]string, len(runs))
	var wg sync.WaitGroup
	for i, args := range runs {
		wg.Go(func() {
			code, stdout, stderr := mainOut(append([]string{"run", "--start-at", at}, args...)...)
			if code != ExitOK {
				t.Errorf("run %v: exit %d\n%s", args, code, stderr)
			}
			out[i] = stdout
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	return out
}

// TestReportMergeAddsUp merges two runs made at the same time: counts add up exactly.
func TestReportMergeAddsUp(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.rb"), filepath.Join(dir, "b.rb")
	srvA, srvB := startLab(t, lab.Config{}), startLab(t, lab.Config{ErrorRate: 0.1, Seed: 1})
	outs := runTogether(t,
		[]string{"--rate", "200", "--duration", "1s", "--quiet", "--format", "json", "--out", a, srvA.URL() + "/r"},
		[]string{"--rate", "200", "--duration", "1s", "--quiet", "--format", "json", "--out", b, srvB.URL() + "/r"})
	var sa, sb summary.Summary
	if err := json.Unmarshal([]byte(outs[0]), &sa); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(outs[1]), &sb); err != nil {
		t.Fatal(err)
	}

	// two lab servers: two targets, merged with --force
	code, out, stderr := cliRun(t, "report", "--merge", "--force", "--format", "json", a, b)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var m summary.Summary
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		got, want uint64
	}{
		{"sent", m.Requests.Sent, sa.Requests.Sent + sb.Requests.Sent},
		{"ok", m.Requests.OK, sa.Requests.OK + sb.Requests.OK},
		{"errors", m.Requests.Errors, sa.Requests.Errors + sb.Requests.Errors},
		{"intended", m.Requests.Intended, sa.Requests.Intended + sb.Requests.Intended},
		{"status 200", m.Status["200"], sa.Status["200"] + sb.Status["200"]},
		{"status 500", m.Status["500"], sa.Status["500"] + sb.Status["500"]},
		{"bytes in", m.Bytes.In, sa.Bytes.In + sb.Bytes.In},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("%s: got %d; want %d", tc.name, tc.got, tc.want)
		}
	}
	// each run is 1 s at 200/s: 200 arrivals due in 1 s; merged, 400 due in the same second, 400/s
	// (a merge that added up the sending windows would make it 400 in 2 s, 200/s)
	if m.Requests.Intended != 400 || m.SendingS != 1 || m.IntendedRate != 400 {
		t.Errorf("merged: %d intended in a sending window of %vs, %v/s; want 400 in 1s, 400/s", m.Requests.Intended, m.SendingS, m.IntendedRate)
	}
	if sb.Status["500"] == 0 {
		t.Errorf("run b has no 500s; want some (error rate 0.1)")
	}
	if !strings.Contains(strings.Join(m.Notes, "\n"), "merged from 2 result files") {
		t.Errorf("got notes %q; want one saying the files were merged", m.Notes)
	}
	// the header describes the merged run: two runs at 200/s make one at 400/s
	if got, want := m.Config.Load.Rate, 400.0; got != want {
		t.Errorf("merged rate: got %v; want %v", got, want)
	}
	if got, want := m.Config.Load.Connections, sa.Config.Load.Connections+sb.Config.Load.Connections; got != want {
		t.Errorf("merged connections: got %d; want %d", got, want)
	}
	_, text, _ := cliRun(t, "report", "--merge", "--force", a, b)
	if !strings.Contains(text, "open model at 400/s") {
		t.Errorf("merged text report: got header\n%.200s\nwant \"open model at 400/s\"", text)
	}
}

// TestReportCutShortAndFormats cuts a result file in the middle of its last interval, as a SIGKILL
// would, and renders it in every format.
func TestReportCutShortAndFormats(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rb := filepath.Join(dir, "run.rb")
	labRun(t, lab.Config{}, "--out", rb, "--interval", "250ms")
	b, err := os.ReadFile(rb)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
	// drop the trailer and half of the last interval
	cut := b[:len(b)-len(lines[len(lines)-1])-1-len(lines[len(lines)-2])/2]
	cutPath := filepath.Join(dir, "cut.rb")
	os.WriteFile(cutPath, cut, 0o644)

	code, out, stderr := cliRun(t, "report", cutPath)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "cut.rb was cut short") || !strings.Contains(out, "INTERRUPTED") || !strings.Contains(out, "cut short") {
		t.Errorf("got stderr %q and report:\n%s\nwant both to say the file was cut short", stderr, out)
	}

	for _, tc := range []struct {
		format string
		want   string
	}{
		{"csv", "run,start_s,end_s,endpoint,sent,ok,errors,rps,p50_ms,p90_ms,p99_ms,max_ms\nrun.rb,0,"},
		{"markdown", "Latency, from the intended send time"},
		{"hgrm", "Value\tPercentile\tTotalCount\t1/(1-Percentile)"},
		{"hlog", "#[Histogram log format version 1.3]"},
		{"html", "<html"},
	} {
		out := filepath.Join(dir, "out."+tc.format)
		code, _, stderr := cliRun(t, "report", "--format", tc.format, "-o", out, rb)
		got, _ := os.ReadFile(out)
		if code != ExitOK || !strings.Contains(string(got), tc.want) {
			t.Errorf("--format %s: exit %d (%s); got %.200q; want it to contain %q", tc.format, code, stderr, got, tc.want)
		}
	}
}

// TestReportHLogReadsBack reads the hlog output with HdrHistogram's own log reader: the untagged
// histograms add up to every request of the run.
func TestReportHLogReadsBack(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rb := filepath.Join(dir, "run.rb")
	var s summary.Summary
	json.Unmarshal([]byte(labRun(t, lab.Config{}, "--format", "json", "--out", rb)), &s)
	code, out, stderr := cliRun(t, "report", "--format", "hlog", rb)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	r := hdr.NewHistogramLogReader(strings.NewReader(out))
	var n int64
	var maxNs int64
	for {
		h, err := r.NextIntervalHistogram()
		if err != nil {
			t.Fatal(err)
		}
		if h == nil {
			break
		}
		n += h.TotalCount()
		maxNs = max(maxNs, h.Max())
	}
	if uint64(n) != s.Requests.Sent || n == 0 {
		t.Errorf("hlog holds %d values; want the run's %d requests", n, s.Requests.Sent)
	}
	if got, want := float64(maxNs)/1e6, s.Latency.Max; got < want*0.99 || got > want*1.01 {
		t.Errorf("hlog max %.3fms; want the run's max %.3fms within 1%%", got, want)
	}
}

func TestReportBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	future := filepath.Join(dir, "future.rb")
	os.WriteFile(future, []byte(`{"kind":"header","format":"rpcbench.result","version":"7.1"}`+"\n"), 0o644)
	notOurs := filepath.Join(dir, "notes.txt")
	os.WriteFile(notOurs, []byte("shopping list\n"), 0o644)
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"no files", []string{"report"}, []string{"want at least one result FILE"}},
		{"bad format", []string{"report", "--format", "pdf", future}, []string{"--format", `"pdf"`, "markdown"}},
		{"future version", []string{"report", future}, []string{future, "7.1", result.FormatVersion, "upgrade rpcbench"}},
		{"not a result file", []string{"report", notOurs}, []string{notOurs + ":1: not an rpcbench.result file"}},
		{"missing file", []string{"report", filepath.Join(dir, "nope.rb")}, []string{"nope.rb", "no such file"}},
		{"hgrm of two", []string{"report", "--format", "hgrm", future, future}, []string{"renders one run", "--merge"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			code, _, stderr := cliRun(t, tc.args...)
			if code != ExitUsage {
				t.Errorf("got exit %d; want %d", code, ExitUsage)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("got stderr %q; want it to contain %q", stderr, w)
				}
			}
		})
	}
}

// TestRunInterruptedSavesAll interrupts a run after its first interval (as Ctrl-C does, through the
// context): the result file still gets every interval and a trailer that says so, and report reads it.
func TestRunInterruptedSavesAll(t *testing.T) {
	t.Parallel()
	srv, err := lab.New(lab.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	rb := filepath.Join(t.TempDir(), "run.rb")
	pr, pw := io.Pipe()
	defer pr.Close() // a failed test must not leave the run blocked on its live lines
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stderr bytes.Buffer
	codec := make(chan int, 1)
	go func() {
		e := &env{stdin: strings.NewReader(""), stdout: pw, stderr: &stderr}
		codec <- runRun(ctx, e, []string{"--rate", "200", "--duration", "30s", "--interval", "200ms", "--quiet", "--live", "-", "--out", rb, srv.URL() + "/i"})
		pw.Close()
	}()
	sc := bufio.NewScanner(pr)
	if !sc.Scan() {
		t.Fatalf("no live line: %v", sc.Err())
	}
	cancel() // the first interval is in: interrupt
	go io.Copy(io.Discard, pr)
	if code := <-codec; code != ExitInterrupted {
		t.Fatalf("got exit %d; want %d (stderr: %s)", code, ExitInterrupted, stderr.String())
	}
	f, err := result.ReadFile(rb, nil)
	if err != nil {
		t.Fatal(err)
	}
	if f.CutShort() || !f.Trailer.Interrupted || f.Intervals == 0 || f.Total.Total().Sent == 0 {
		t.Errorf("got cut short %v, trailer %+v, %d intervals, %d sent; want a trailer saying interrupted after some requests",
			f.CutShort(), f.Trailer, f.Intervals, f.Total.Total().Sent)
	}
	code, out, errs := cliRun(t, "report", rb)
	if code != ExitOK || !strings.Contains(out, "INTERRUPTED") {
		t.Errorf("report: exit %d (%s); got:\n%s\nwant a report that says INTERRUPTED", code, errs, out)
	}
}

// TestRunSIGKILL kills a running `rpcbench run --out` with SIGKILL (the test binary re-executed as
// the child) and renders what it left: the complete intervals, with a note that the file was cut
// short.
func TestRunSIGKILL(t *testing.T) {
	if args := os.Getenv("RPCBENCH_TEST_RUN_ARGS"); args != "" {
		os.Exit(Main(strings.Split(args, "\x1f"), os.Stdin, os.Stdout, os.Stderr))
	}
	t.Parallel()
	srv, err := lab.New(lab.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	rb := filepath.Join(t.TempDir(), "killed.rb")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestRunSIGKILL$")
	// The child stops by itself after 30 s if nobody kills it.
	args := []string{"run", "--rate", "200", "--duration", "30s", "--interval", "200ms", "--quiet", "--live", "-", "--out", rb, srv.URL() + "/k"}
	cmd.Env = append(os.Environ(), "RPCBENCH_TEST_RUN_ARGS="+strings.Join(args, "\x1f"))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	for i := 0; i < 3; i++ { // three intervals are in the file
		if !sc.Scan() {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("the child ended before its third live line: %v", sc.Err())
		}
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, out)
	cmd.Wait()

	f, err := result.ReadFile(rb, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !f.CutShort() || f.Intervals < 3 {
		t.Errorf("got cut short %v with %d intervals; want cut short with at least 3", f.CutShort(), f.Intervals)
	}
	code, report, stderr := cliRun(t, "report", "--format", "json", rb)
	if code != ExitOK || !strings.Contains(stderr, "cut short") {
		t.Fatalf("report: exit %d, stderr %q; want 0 and a warning that the file was cut short", code, stderr)
	}
	var s summary.Summary
	if err := json.Unmarshal([]byte(report), &s); err != nil {
		t.Fatal(err)
	}
	if s.Requests.Sent != f.Total.Total().Sent || s.Requests.Sent == 0 || !s.Interrupted {
		t.Errorf("report: got %d sent, interrupted %v; want the file's %d (> 0), interrupted", s.Requests.Sent, s.Interrupted, f.Total.Total().Sent)
	}
}

// TestRunFormats prints a run in one of the new formats and saves it in another, chosen by the
// report file's extension.
func TestRunFormats(t *testing.T) {
	t.Parallel()
	csvPath := filepath.Join(t.TempDir(), "series.csv")
	out := labRun(t, lab.Config{}, "--format", "hgrm", "--report-file", csvPath)
	if !strings.Contains(out, "Value\tPercentile\tTotalCount\t1/(1-Percentile)") || !strings.Contains(out, "#[Max     =") {
		t.Errorf("--format hgrm: got %.300q; want HdrHistogram's percentile table", out)
	}
	got, err := os.ReadFile(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(got), "run,start_s,end_s,endpoint,sent,ok,errors,rps,p50_ms,p90_ms,p99_ms,max_ms\nrun 1,0,") {
		t.Errorf("--report-file series.csv: got %.300q; want the CSV time series", got)
	}
	if code, _, stderr := cliRun(t, "run", "--format", "hlog", "--rate", "1", "http://127.0.0.1:1/"); code != ExitUsage || !strings.Contains(stderr, `"hlog"`) {
		t.Errorf("run --format hlog: got exit %d, %q; want a usage error (hlog is for rpcbench report)", code, stderr)
	}
}

// TestOutputsOfTheirOwn: an output that is an input or another output is a usage error, before
// anything is written.
func TestOutputsOfTheirOwn(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	targets := filepath.Join(dir, "t.http")
	if err := os.WriteFile(targets, []byte("GET http://127.0.0.1:1/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rb := filepath.Join(dir, "x.rb")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"run", "--targets", targets, "--out", targets, "--requests", "1"}, "--out " + targets + " is also --targets"},
		{[]string{"run", "--out", rb, "--html", rb, "--requests", "1", "http://127.0.0.1:1/"}, "--out " + rb + " is also --html"},
		{[]string{"report", "-o", targets, targets}, "-o " + targets + " is also a result file to read"},
	}
	for _, tt := range tests {
		code, _, stderr := cliRun(t, tt.args...)
		if code != ExitUsage || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d, %q; want %d and %q", tt.args, code, stderr, ExitUsage, tt.want)
		}
	}
	if b, err := os.ReadFile(targets); err != nil || string(b) != "GET http://127.0.0.1:1/\n" {
		t.Errorf("target file now %q, %v; want it untouched", b, err)
	}
}

// --merge adds up parts of one run: the same file twice is refused, files of another target or
// load model unless --force, and runs made one after the other even with --force.
func TestReportMergeRefusesOtherRuns(t *testing.T) {
	t.Parallel()
	a, b := startLab(t, lab.Config{}), startLab(t, lab.Config{})
	dir := t.TempDir()
	path := func(name string) string { return filepath.Join(dir, name) }
	open1, open2, other, closed := path("open1.rb"), path("open2.rb"), path("other.rb"), path("closed.rb")
	runTogether(t,
		[]string{"--quiet", "--out", open1, "--rate", "100", "--requests", "5", a.URL()},
		[]string{"--quiet", "--out", open2, "--rate", "100", "--requests", "5", a.URL()},
		[]string{"--quiet", "--out", other, "--rate", "100", "--requests", "5", b.URL()},
		[]string{"--quiet", "--out", closed, "--connections", "1", "--requests", "5", a.URL()})
	// made after the others had ended: the runs one after the other a README once added up
	later := path("later.rb")
	if code, _, stderr := mainOut("run", "--quiet", "--out", later, "--rate", "100", "--requests", "5", a.URL()); code != ExitOK {
		t.Fatalf("run later.rb: exit %d\n%s", code, stderr)
	}
	for _, tc := range []struct {
		name  string
		files []string
		force bool
		want  string // in stderr; "" for success
	}{
		{"two parts of one run", []string{open1, open2}, false, ""},
		{"the same file twice", []string{open1, open1}, true, "are the same file"},
		{"another target", []string{open1, other}, false, "has target " + b.URL()},
		{"another target, forced", []string{open1, other}, true, ""},
		{"another model", []string{open1, closed}, false, "has the closed model, where " + open1 + " has the open model"},
		{"one run after another", []string{open1, later}, false, "one after the other: --merge adds up the parts of one run"},
		{"one run after another, forced", []string{later, open2, open1}, true, later + " ran "},
		{"one run after another, compare instead", []string{open1, later}, false, "to compare the runs: rpcbench compare " + open1 + " " + later},
	} {
		args := []string{"report", "--merge", "--format", "json"}
		if tc.force {
			args = append(args, "--force")
		}
		code, _, stderr := mainOut(append(args, tc.files...)...)
		switch {
		case tc.want == "" && code != ExitOK:
			t.Errorf("%s: exit %d; want 0\n%s", tc.name, code, stderr)
		case tc.want != "" && (code != ExitUsage || !strings.Contains(stderr, tc.want)):
			t.Errorf("%s: exit %d, stderr %q; want %d and %q", tc.name, code, stderr, ExitUsage, tc.want)
		}
	}
}
