package result

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// synthInterval returns interval i of a synthetic run: perEndpoint requests for each endpoint, with
// log-normal latencies around a median of 2 ms, a few failures and connections. Every value is
// also recorded, one by one, into each of sums: expected totals that owe nothing to Merge.
func synthInterval(rng *rand.Rand, i, endpoints, perEndpoint int, sums ...*Interval) *Interval {
	iv := NewInterval(endpoints)
	iv.Start, iv.End = time.Duration(i)*time.Second, time.Duration(i+1)*time.Second
	all := append([]*Interval{iv}, sums...)
	for _, t := range all {
		t.Intended += uint64(endpoints * perEndpoint)
	}
	for e := range endpoints {
		for range perEndpoint {
			svc := time.Duration(2000*math.Exp(rng.NormFloat64()*0.5)) * time.Microsecond
			lag := time.Duration(rng.ExpFloat64()*20) * time.Microsecond
			r := rng.IntN(1000)
			for _, t := range all {
				c := t.Endpoints[e]
				RecordDuration(c.Latency, svc+lag)
				RecordDuration(c.Service, svc)
				RecordDuration(c.TTFB, svc*9/10)
				RecordDuration(t.SendLag, lag)
				c.Sent++
				switch {
				case r < 6 && r >= 4: // failed before sending: not among the sent
					c.Sent--
					c.Unsent++
					c.Errors[Refused]++
					c.Messages[ErrorKey{Refused, "dial tcp ADDR: connect: connection refused"}]++
				case r == 0:
					c.Errors[Timeout]++
					c.Messages[ErrorKey{Timeout, "read tcp ADDR->ADDR: i/o timeout"}]++
				case r < 4:
					c.Completed++
					c.Errors[Status]++
					c.Status[503]++
					c.Messages[ErrorKey{Status, "status 503"}]++
				default:
					c.Completed++
					c.OK++
					c.Status[200]++
					switch r % 50 { // answered at a second attempt
					case 7:
						c.Retried++
					case 8, 9:
						c.RetriedGoAway++
					}
				}
				c.BytesOut += 80
				c.BytesIn += uint64(120 + e)
			}
		}
	}
	for _, t := range all {
		t.Conns.Opened += uint64(i % 3)
		RecordDuration(t.Conns.Connect, 150*time.Microsecond)
	}
	return iv
}

// keep returns a copy of iv, which a Reader reuses.
func keep(iv *Interval) *Interval {
	c := NewInterval(len(iv.Endpoints))
	c.Merge(iv)
	return c
}

func writeFile(t testing.TB, path string, h Header, ivs []*Interval, tr *Trailer) {
	t.Helper()
	var b bytes.Buffer
	w, err := NewWriter(&b, h)
	if err != nil {
		t.Fatal(err)
	}
	for _, iv := range ivs {
		if err := w.WriteInterval(iv); err != nil {
			t.Fatal(err)
		}
	}
	if tr != nil {
		if err := w.Close(*tr); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func testHeader(endpoints int) Header {
	h := Header{Tool: "rpcbench", ToolVersion: "test", Command: []string{"run", "--rate", "100"}, Target: "http://127.0.0.1:1/",
		Config: json.RawMessage(`{"load":{"rate":100}}`), StartedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Host: "testhost"}
	for i := range endpoints {
		h.Endpoints = append(h.Endpoints, fmt.Sprintf("GET /%d", i))
	}
	return h
}

// sameCounts fails unless a and b hold exactly the same counts and histograms.
func sameCounts(t *testing.T, what string, got, want *Counts) {
	t.Helper()
	if got.Sent != want.Sent || got.Unsent != want.Unsent || got.Completed != want.Completed || got.OK != want.OK || got.Errors != want.Errors ||
		got.BytesIn != want.BytesIn || got.BytesOut != want.BytesOut || got.Retried != want.Retried || got.RetriedGoAway != want.RetriedGoAway {
		t.Errorf("%s: got counts %+v; want %+v", what, *got, *want)
	}
	if fmt.Sprint(got.Status) != fmt.Sprint(want.Status) || fmt.Sprint(got.Messages) != fmt.Sprint(want.Messages) {
		t.Errorf("%s: got status %v messages %v; want %v %v", what, got.Status, got.Messages, want.Status, want.Messages)
	}
	for _, h := range []struct {
		name      string
		got, want interface{ TotalCount() int64 }
	}{{"latency", got.Latency, want.Latency}, {"service", got.Service, want.Service}, {"ttfb", got.TTFB, want.TTFB}} {
		if h.got.TotalCount() != h.want.TotalCount() {
			t.Errorf("%s %s: got %d values; want %d", what, h.name, h.got.TotalCount(), h.want.TotalCount())
		}
	}
	if !got.Latency.Equals(want.Latency) || !got.Service.Equals(want.Service) || !got.TTFB.Equals(want.TTFB) {
		t.Errorf("%s: histograms differ after the round trip", what)
	}
}

func TestFileRoundTrip(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	var ivs []*Interval
	want := NewInterval(2) // the totals, recorded value by value
	for i := range 5 {
		ivs = append(ivs, synthInterval(rng, i, 2, 200, want))
	}
	tr := Trailer{MeasuredStart: time.Date(2026, 1, 2, 3, 4, 6, 0, time.UTC), Elapsed: 5 * time.Second, Sending: 5 * time.Second,
		Intended: want.Intended, WarmupSent: 7, StopReason: "source ran dry", Backoffs: 3, BackoffTime: 7 * time.Millisecond}
	path := filepath.Join(t.TempDir(), "run.rb")
	writeFile(t, path, testHeader(2), ivs, &tr)

	var got []*Interval
	f, err := ReadFile(path, func(_ *File, iv *Interval) error { got = append(got, keep(iv)); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if f.CutShort() {
		t.Errorf("got CutShort true; want false for a file with its trailer")
	}
	if *f.Trailer != tr {
		t.Errorf("got trailer %+v; want %+v", *f.Trailer, tr)
	}
	h := f.Header
	if h.Format != FormatName || h.Version != FormatVersion || h.Host != "testhost" || string(h.Config) != `{"load":{"rate":100}}` ||
		strings.Join(h.Command, " ") != "run --rate 100" || !h.StartedAt.Equal(testHeader(2).StartedAt) {
		t.Errorf("got header %+v; want the one written", h)
	}
	if len(got) != len(ivs) || f.Intervals != len(ivs) {
		t.Fatalf("got %d intervals (File says %d); want %d", len(got), f.Intervals, len(ivs))
	}
	for i := range ivs {
		if got[i].Start != ivs[i].Start || got[i].End != ivs[i].End || got[i].Intended != ivs[i].Intended {
			t.Errorf("interval %d: got [%v, %v) intended %d; want [%v, %v) intended %d", i, got[i].Start, got[i].End, got[i].Intended, ivs[i].Start, ivs[i].End, ivs[i].Intended)
		}
		for e := range ivs[i].Endpoints {
			sameCounts(t, fmt.Sprintf("interval %d endpoint %d", i, e), got[i].Endpoints[e], ivs[i].Endpoints[e])
		}
		if !got[i].SendLag.Equals(ivs[i].SendLag) || got[i].Conns.Opened != ivs[i].Conns.Opened || !got[i].Conns.Connect.Equals(ivs[i].Conns.Connect) {
			t.Errorf("interval %d: send lag or connections differ after the round trip", i)
		}
	}
	for e := range want.Endpoints {
		sameCounts(t, fmt.Sprintf("total endpoint %d", e), f.Total.Endpoints[e], want.Endpoints[e])
	}
}

// TestFileCutShort cuts a file at every byte of its last two lines: whatever the cut, the complete
// intervals read back and the file says it was cut short.
func TestFileCutShort(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	ivs := []*Interval{synthInterval(rng, 0, 1, 50), synthInterval(rng, 1, 1, 50), synthInterval(rng, 2, 1, 50)}
	dir := t.TempDir()
	full := filepath.Join(dir, "full.rb")
	writeFile(t, full, testHeader(1), ivs, &Trailer{Elapsed: 3 * time.Second})
	b, err := os.ReadFile(full)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(b, []byte("\n")) // header, 3 intervals, trailer, ""
	thirdStart := len(b) - len(lines[4]) - len(lines[3])
	for cut := thirdStart; cut < len(b)-len(lines[4]); cut += 97 {
		f, err := Read(bytes.NewReader(b[:cut]), "cut.rb", nil)
		if err != nil {
			t.Fatalf("cut at byte %d: %v", cut, err)
		}
		if !f.CutShort() || f.Intervals != 2 {
			t.Errorf("cut at byte %d: got CutShort %v, %d intervals; want true, 2", cut, f.CutShort(), f.Intervals)
		}
	}
	// Cut inside the trailer: three intervals, still cut short.
	f, err := Read(bytes.NewReader(b[:len(b)-5]), "cut.rb", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !f.CutShort() || f.Intervals != 3 {
		t.Errorf("cut in the trailer: got CutShort %v, %d intervals; want true, 3", f.CutShort(), f.Intervals)
	}
	r := f.Run()
	if !r.Interrupted || r.Elapsed != 3*time.Second || r.Intended != 150 {
		t.Errorf("cut short run: got %+v; want interrupted, elapsed 3s, intended 150", r)
	}
}

// TestFileSIGKILL kills a process writing a result file with SIGKILL in the middle of a line and
// reads what it left.
func TestFileSIGKILL(t *testing.T) {
	if path := os.Getenv("RESULT_TEST_CHILD_FILE"); path != "" {
		childWriter(path) // never returns
	}
	t.Parallel()
	path := filepath.Join(t.TempDir(), "killed.rb")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestFileSIGKILL$")
	cmd.Env = append(os.Environ(), "RESULT_TEST_CHILD_FILE="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := make([]byte, 6)
	if _, err := io.ReadFull(out, ready); err != nil || string(ready) != "ready\n" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("child: got %q, %v; want ready", ready, err)
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL: no chance to finish the file
		t.Fatal(err)
	}
	cmd.Wait()
	f, err := ReadFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !f.CutShort() || f.Intervals != 4 {
		t.Errorf("got CutShort %v, %d intervals; want true, 4", f.CutShort(), f.Intervals)
	}
	if got := f.Total.Endpoints[0].Sent; got != 4*100 {
		t.Errorf("got %d sent; want %d", got, 4*100)
	}
}

// childWriter writes four intervals and half of a fifth to path, says "ready" and waits to be
// killed; it exits by itself after a minute if nobody does.
func childWriter(path string) {
	fh, err := os.Create(path)
	if err != nil {
		os.Exit(2)
	}
	w, err := NewWriter(fh, testHeader(1))
	if err != nil {
		os.Exit(2)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range 4 {
		if w.WriteInterval(synthInterval(rng, i, 1, 100)) != nil {
			os.Exit(2)
		}
	}
	var half bytes.Buffer
	w2, _ := NewWriter(&half, testHeader(1))
	half.Reset()
	w2.WriteInterval(synthInterval(rng, 4, 1, 100))
	fh.Write(half.Bytes()[:half.Len()/2])
	os.Stdout.WriteString("ready\n")
	<-time.After(time.Minute)
	os.Exit(3)
}

func TestFileFutureVersion(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	future := filepath.Join(dir, "future.rb")
	os.WriteFile(future, []byte(`{"kind":"header","format":"rpcbench.result","version":"2.0","new_thing":1}`+"\n"+`{"kind":"interval","x":"?"}`+"\n"), 0o644)
	_, err := ReadFile(future, nil)
	if err == nil {
		t.Fatal("got no error for a version 2.0 file; want one")
	}
	for _, want := range []string{future, "2.0", FormatVersion, "upgrade"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("got error %q; want it to mention %q", err, want)
		}
	}
	if !errors.Is(err, ErrFutureVersion) {
		t.Errorf("got %v; want errors.Is ErrFutureVersion", err)
	}

	// A newer minor version adds members and record kinds; this reader skips them.
	minor := filepath.Join(dir, "minor.rb")
	os.WriteFile(minor, []byte(`{"kind":"header","format":"rpcbench.result","version":"1.9","endpoints":["a"],"shiny":true}
{"kind":"annotation","text":"deploy"}
{"kind":"interval","start_ns":0,"end_ns":1000000000,"endpoints":[{"sent":3,"ok":3,"completed":3,"colour":"red"}]}
{"kind":"trailer","elapsed_ns":1000000000,"intended":3}
`), 0o644)
	f, err := ReadFile(minor, nil)
	if err != nil {
		t.Fatal(err)
	}
	if f.Intervals != 1 || f.Total.Endpoints[0].OK != 3 || f.CutShort() {
		t.Errorf("minor version: got %d intervals, %d ok, cut short %v; want 1, 3, false", f.Intervals, f.Total.Endpoints[0].OK, f.CutShort())
	}
}

func TestFileBadInput(t *testing.T) {
	t.Parallel()
	const hdrLine = `{"kind":"header","format":"rpcbench.result","version":"1.0","endpoints":["a"]}` + "\n"
	tests := []struct {
		name, in, want string
	}{
		{"empty file", "", "empty file"},
		{"torn header", `{"kind":"header","format":"rpcbench.res`, "cut short within its header line"},
		{"not ours", "hello\n", "bad.rb:1: not an rpcbench.result file"},
		{"other JSON", `{"kind":"header","format":"vegeta"}` + "\n", "bad.rb:1: not an rpcbench.result file"},
		{"bad version", `{"kind":"header","format":"rpcbench.result","version":"one"}` + "\n", `bad.rb:1: version "one"`},
		{"garbage line", hdrLine + "{\"kind\":\"interval\",\"start_ns\":0,\"end_ns\":1,\"endpoints\":[{}]}\n@@@\n", "bad.rb:3: not a JSON object"},
		{"wrong endpoints", hdrLine + `{"kind":"interval","start_ns":0,"end_ns":1,"endpoints":[{},{}]}` + "\n", "bad.rb:2: an interval with 2 endpoints"},
		{"backwards", hdrLine + `{"kind":"interval","start_ns":5,"end_ns":1,"endpoints":[{}]}` + "\n", "bad.rb:2: bad interval: it ends"},
		{"bad class", hdrLine + `{"kind":"interval","start_ns":0,"end_ns":1,"endpoints":[{"errors":{"gremlins":1}}]}` + "\n", `bad.rb:2: endpoint 0: result: unknown error class "gremlins"`},
		{"bad histogram", hdrLine + `{"kind":"interval","start_ns":0,"end_ns":1,"endpoints":[{"latency":"!!"}]}` + "\n", "bad.rb:2: latency histogram: not base64"},
		{"second header", hdrLine + hdrLine, "bad.rb:2: a second header"},
		{"bad call outcome", hdrLine + `{"kind":"interval","start_ns":0,"end_ns":1,"endpoints":[{"calls":[{"method":"a","outcome":"maybe","count":1}]}]}` + "\n", `bad.rb:2: endpoint 0: call "a": outcome "maybe": want ok, error or unanswered`},
		{"after trailer", hdrLine + `{"kind":"trailer"}` + "\n" + `{"kind":"interval","start_ns":0,"end_ns":1,"endpoints":[{}]}` + "\n", "bad.rb:3: an interval after the trailer"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := Read(strings.NewReader(tc.in), "bad.rb", nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got error %v; want one containing %q", err, tc.want)
			}
		})
	}
}

// TestHistogramOtherRange refuses a histogram whose range is not the package's, before decoding it.
func TestHistogramOtherRange(t *testing.T) {
	t.Parallel()
	h := hdr.New(1, 1<<40, 2)
	h.RecordValue(1 << 39)
	s, err := h.Encode(hdr.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	err = decodeHistogram(NewHistogram(), string(s))
	if err == nil || !strings.Contains(err.Error(), "want 1..3600000000 at 3 digits") {
		t.Errorf("got %v; want an error naming the expected range", err)
	}
}

func TestMergeFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(7, 8))
	var paths []string
	want := NewInterval(3)
	wantFirst := NewInterval(3)
	for k, n := range []int{3, 4} { // the second machine ran one interval longer
		var ivs []*Interval
		for i := range n {
			sums := []*Interval{want} // expected totals, recorded value by value
			if i == 0 {
				sums = append(sums, wantFirst)
			}
			ivs = append(ivs, synthInterval(rng, i, 3, 100+k, sums...))
		}
		p := filepath.Join(dir, fmt.Sprintf("m%d.rb", k))
		writeFile(t, p, testHeader(3), ivs, &Trailer{Elapsed: time.Duration(n) * time.Second, Sending: time.Duration(n) * time.Second, Intended: uint64(n * 3 * (100 + k)), WarmupSent: 10})
		paths = append(paths, p)
	}
	var merged []*Interval
	f, err := ReadMerged(paths, func(_ *File, iv *Interval) error { merged = append(merged, keep(iv)); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(merged) != 4 {
		t.Fatalf("got %d merged intervals; want 4", len(merged))
	}
	for e := range want.Endpoints {
		sameCounts(t, fmt.Sprintf("merged total endpoint %d", e), f.Total.Endpoints[e], want.Endpoints[e])
		sameCounts(t, fmt.Sprintf("merged first interval endpoint %d", e), merged[0].Endpoints[e], wantFirst.Endpoints[e])
	}
	if !f.Total.SendLag.Equals(want.SendLag) || !merged[0].SendLag.Equals(wantFirst.SendLag) {
		t.Errorf("merged send lag differs from the values recorded")
	}
	// connections opened: i % 3 per interval and machine, intervals 0–2 on one and 0–3 on the other
	if got := f.Total.Conns.Opened; got != 0+1+2+0+1+2+0 || !f.Total.Conns.Connect.Equals(want.Conns.Connect) {
		t.Errorf("merged connections: got %d opened; want 6, and the connect times recorded", got)
	}
	// interval i holds both machines' requests while both ran: 3·100 + 3·101, then 3·101 alone
	for i, w := range []uint64{603, 603, 603, 303} {
		iv := merged[i]
		if iv.Start != time.Duration(i)*time.Second || iv.End != time.Duration(i+1)*time.Second || iv.Intended != w {
			t.Errorf("merged interval %d: got [%v, %v) intended %d; want [%ds, %ds) intended %d", i, iv.Start, iv.End, iv.Intended, i, i+1, w)
		}
	}
	tr := f.Trailer
	if tr == nil || tr.Intended != 3*3*100+4*3*101 || tr.WarmupSent != 20 || tr.Elapsed != 4*time.Second {
		t.Errorf("got trailer %+v; want intended %d, warm-up 20, elapsed 4s", tr, 3*3*100+4*3*101)
	}
	// the machines sent at once: the merged run's arrivals were due in the longer window, 4 s (not
	// 3 s + 4 s), so that its intended rate is 2,112 arrivals / 4 s = 528/s, the sum of 300/s and 303/s
	// for 3 s and 303/s alone for the last second
	if tr != nil && (tr.Sending != 4*time.Second || tr.SendSpan != 4*time.Second) {
		t.Errorf("merged sending window %v, send span %v; want 4s each, the longer machine's", tr.Sending, tr.SendSpan)
	}
	if got, wantMade := f.Total.Total().Attempted(), uint64(3*3*100+4*3*101); got != wantMade {
		t.Errorf("got %d sent or failed before sending; want %d", got, wantMade)
	}

	other := filepath.Join(dir, "other.rb")
	writeFile(t, other, testHeader(1), []*Interval{synthInterval(rng, 0, 1, 10)}, &Trailer{})
	if _, err := ReadMerged([]string{paths[0], other}, nil); err == nil || !strings.Contains(err.Error(), "cannot merge") {
		t.Errorf("got %v; want a cannot merge error for files with different endpoints", err)
	}
}

// TestFileSize estimates the size of a 10-minute run at 10,000 requests/s over 3 endpoints from 15
// of its 600 intervals (each with fresh data): it must stay under 10 MB. BenchmarkFileSize10Min
// writes all 600.
func TestFileSize(t *testing.T) {
	t.Parallel()
	const sample = 15
	n := fileSize(t, sample, 3, 10000/3)
	est := n * 600 / sample
	t.Logf("10 minutes at 10,000 requests/s, 3 endpoints: about %d bytes (%.2f MB, %.1f KB per interval)", est, float64(est)/1e6, float64(n)/sample/1e3)
	if est >= 10e6 {
		t.Errorf("got about %d bytes; want under 10 MB", est)
	}
}

// BenchmarkFileSize10Min writes the whole 10-minute run (600 intervals, 3 endpoints, 10,000
// requests/s) and reports its size.
func BenchmarkFileSize10Min(b *testing.B) {
	b.ReportAllocs()
	var n int
	for b.Loop() {
		n = fileSize(b, 600, 3, 10000/3)
	}
	b.ReportMetric(float64(n)/1e6, "MB/10min")
}

// fileSize returns the size of a result file of the given shape, every interval with fresh data.
func fileSize(t testing.TB, intervals, endpoints, perEndpoint int) int {
	rng := rand.New(rand.NewPCG(9, 10))
	var cw countWriter
	w, err := NewWriter(&cw, testHeader(endpoints))
	if err != nil {
		t.Fatal(err)
	}
	for i := range intervals {
		if err := w.WriteInterval(synthInterval(rng, i, endpoints, perEndpoint)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(Trailer{}); err != nil {
		t.Fatal(err)
	}
	return cw.n
}

type countWriter struct{ n int }

func (c *countWriter) Write(p []byte) (int, error) { c.n += len(p); return len(p), nil }

// BenchmarkWriteInterval measures encoding one interval of 3 endpoints at 3,333 requests/s each.
func BenchmarkWriteInterval(b *testing.B) {
	rng := rand.New(rand.NewPCG(11, 12))
	iv := synthInterval(rng, 0, 3, 3333)
	var cw countWriter
	w, err := NewWriter(&cw, testHeader(3))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	start := cw.n
	for b.Loop() {
		if err := w.WriteInterval(iv); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cw.n-start)/float64(b.N), "bytes/interval")
}

// BenchmarkReadInterval measures decoding the same interval.
func BenchmarkReadInterval(b *testing.B) {
	rng := rand.New(rand.NewPCG(11, 12))
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, testHeader(3))
	w.WriteInterval(synthInterval(rng, 0, 3, 3333))
	data := buf.Bytes()
	b.ReportAllocs()
	for b.Loop() {
		fr, err := NewReader(bytes.NewReader(data), "bench.rb")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := fr.Next(); err != nil {
			b.Fatal(err)
		}
	}
}
