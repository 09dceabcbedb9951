package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/rpcbench/rpcbench/compare"
	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/summary"
)

// hostileMessage is an error message that would end the page's scripts early if it were not
// escaped.
const hostileMessage = `dial tcp: </script><script>alert("x")</script> <b>bold</b> & more`

// testRun builds the Summary of a realistic run: two endpoints, an open model at about rate
// answers/s for secs one-second intervals, latencies around base ms with a long tail, a few 500s
// and timeouts, and a timeline.
func testRun(seed uint64, secs int, rate int, base float64) *summary.Summary {
	p := plan.Plan{
		Endpoints: []plan.Endpoint{
			{Name: "get item", Method: "GET", URL: "http://127.0.0.1:8080/rpz/items/1"},
			{Name: "create item", Method: "POST", URL: "http://127.0.0.1:8080/rpz/items", Body: []byte(`{"id":1,"name":"x"}`)},
		},
		Load: plan.Load{Model: plan.Open, Rate: float64(rate), Duration: time.Duration(secs) * time.Second, Connections: 64, Interval: time.Second},
		HTTP: plan.HTTP{Timeout: 2 * time.Second},
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	rec := result.NewRecorder(len(p.Endpoints), 1) // one shard: merging shards is slow under -race
	total := result.NewInterval(len(p.Endpoints))
	var tl summary.Timeline
	names := []string{"get item", "create item"}
	var sent uint64
	for sec := range secs {
		n := rate + rng.IntN(rate/5+1) - rate/10
		if sec == secs/2 {
			n /= 3 // a stall in the middle of the run
		}
		for i := range n {
			lat := base * math.Exp(rng.NormFloat64()*0.35)
			if rng.IntN(200) == 0 {
				lat *= 20 // the tail
			}
			if sec == secs/2 {
				lat *= 8
			}
			e := result.Event{Endpoint: i % 2, Answered: true, Status: 200, BytesIn: 310, BytesOut: 120, Scheduled: true,
				Latency: time.Duration(lat * float64(time.Millisecond)), Service: time.Duration(lat * 0.9 * float64(time.Millisecond)),
				Lag: time.Duration(lat * 0.1 * float64(time.Millisecond))} // latency = send lag + service time
			switch r := rng.IntN(400); {
			case r == 0:
				e.Status, e.Class = 500, result.Status
			case r == 1:
				e.Answered, e.Status, e.Class, e.Err = false, 0, result.Timeout, errors.New(hostileMessage)
			}
			rec.Record(i, &e)
			sent++
		}
		iv := rec.Flush(time.Duration(sec)*time.Second, time.Duration(sec+1)*time.Second)
		tl.Add(iv, names)
		total.Merge(iv)
	}
	s := summary.New(summary.Run{Plan: p.Normalized(), Version: "v0.4.0-test", Trailer: result.Trailer{MeasuredStart: time.Date(2026, 3, 14, 9, 26, 53, 0, time.UTC).Add(time.Duration(seed) * time.Hour), Elapsed: time.Duration(secs) * time.Second, Sending: time.Duration(secs) * time.Second, Intended: sent}}, total)
	s.Timeline = tl.Points
	return s
}

// runA and runB are two realistic runs, built once for all tests (building them is slow under
// -race). Tests must not change them: copy first.
var (
	runA = sync.OnceValue(func() *summary.Summary { return testRun(1, 20, 300, 4) })
	runB = sync.OnceValue(func() *summary.Summary { return testRun(2, 16, 250, 6) })
)

func render(t *testing.T, runs ...*summary.Summary) string {
	t.Helper()
	var b bytes.Buffer
	if err := HTML(&b, runs); err != nil {
		t.Fatalf("HTML: %v", err)
	}
	return b.String()
}

// pageData decodes the chart data embedded in page.
func pageData(t *testing.T, page string) chartData {
	t.Helper()
	m := regexp.MustCompile(`(?s)<script type="application/json" id="rpcbench-data">(.*?)</script>`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("the page has no data block")
	}
	var d chartData
	if err := json.Unmarshal([]byte(m[1]), &d); err != nil {
		t.Fatalf("the data block is not JSON: %v", err)
	}
	return d
}

func TestHTMLContainsTheRun(t *testing.T) {
	t.Parallel()
	s := *runA()
	s.Notes = append(slices.Clone(s.Notes), "the generator fell behind: a note that must show")
	page := render(t, &s)
	for _, want := range []string{
		"<!DOCTYPE html>", "rpcbench v0.4.0-test", "2026-03-14 10:26:53 UTC",
		"Latency and service time over time", "Throughput and errors over time", "Latency and service time by percentile", "Latency histogram",
		"get item", "create item", "all endpoints", "the generator fell behind: a note that must show",
		"Status codes", "Error classes", "timeout", "Configuration", "open model at 300 req/s",
		"Permission is hereby granted", // uPlot's licence travels with it
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	d := pageData(t, page)
	if got, want := len(d.Runs), 1; got != want {
		t.Fatalf("runs in data: got %d; want %d", got, want)
	}
	if got, want := len(d.Time.X), 20; got != want {
		t.Errorf("timeline points: got %d; want %d", got, want)
	}
	if got := d.Time.Runs[0].P99[10]; got == nil || *got <= *d.Time.Runs[0].P99[0] {
		t.Errorf("p99 of the stalled interval: got %v; want above the first interval's", got)
	}
	sp := d.Spectrum[0]
	if len(sp.X) < 20 || sp.X[0] != 1 {
		t.Fatalf("spectrum x: got %d points from %v; want ≥ 20 from 1", len(sp.X), sp.X[:min(1, len(sp.X))])
	}
	for i := 1; i < len(sp.Y); i++ {
		if sp.Y[i] < sp.Y[i-1] || sp.X[i] <= sp.X[i-1] {
			t.Fatalf("spectrum not monotonic at %d: x %v→%v, y %v→%v", i, sp.X[i-1], sp.X[i], sp.Y[i-1], sp.Y[i])
		}
	}
	if got, want := sp.Y[len(sp.Y)-1], s.Latency.Max; math.Abs(got-want) > want*0.01 {
		t.Errorf("spectrum ends at %v ms; want the max %v ms", got, want)
	}
	var sum float64
	for _, v := range d.Hist.Pct[0] {
		sum += v
	}
	if math.Abs(sum-100) > 0.01 {
		t.Errorf("histogram shares add up to %v%%; want 100%%", sum)
	}
	if got, want := len(d.Hist.Pct[0]), len(d.Hist.Labels); got != want {
		t.Errorf("histogram bins: got %d values; want %d (one per label)", got, want)
	}
}

func TestHTMLSelfContained(t *testing.T) {
	t.Parallel()
	a, b := runA(), new(summary.Summary)
	*b = *runB()
	b.Config.Endpoints = slices.Clone(b.Config.Endpoints)
	b.Config.Endpoints[0].URL = "https://127.0.0.1:8443/</script><script>alert(1)</script>"
	b.Target = b.Config.Endpoints[0].URL
	page := render(t, a, b)
	for _, re := range []string{`<script[^>]+src=`, `<link[^>]+href=`, `@import`, `url\(`, `<iframe`, `<img`} {
		if m := regexp.MustCompile(`(?i)` + re).FindString(page); m != "" {
			t.Errorf("page loads something: found %q", m)
		}
	}
	// Every </script> is one of the page's own three scripts: none came from the data.
	if got, want := strings.Count(strings.ToLower(page), "</script"), 3; got != want {
		t.Errorf("</script occurrences: got %d; want %d", got, want)
	}
	if strings.Contains(page, "<b>bold</b>") || strings.Contains(page, `alert("x")`) {
		t.Error("an error message reached the page unescaped")
	}
	// The only URLs are the targets' (data and config) and uPlot's banner.
	rest := page
	for _, u := range []string{a.Config.Endpoints[0].URL, a.Config.Endpoints[1].URL, "https://github.com/leeoniya/uPlot"} {
		rest = strings.ReplaceAll(rest, u, "")
	}
	rest = strings.ReplaceAll(rest, "https://127.0.0.1:8443/", "") // b's target, escaped in several ways
	if m := regexp.MustCompile(`https?:(//|\\/\\/)`).FindString(rest); m != "" {
		i := strings.Index(rest, m)
		t.Errorf("page has an external reference: %q", rest[max(0, i-60):min(len(rest), i+60)])
	}
	d := pageData(t, page)
	if got, want := len(d.Runs), 2; got != want {
		t.Fatalf("runs: got %d; want %d", got, want)
	}
	if d.Runs[0].Color == d.Runs[1].Color || d.Runs[0].Letter != "A" || d.Runs[1].Letter != "B" {
		t.Errorf("runs: got %+v; want A and B in different colours", d.Runs)
	}
	// B's ratios against A come from compare: the figure's note and the comparison table
	if want := compare.FormatRatio(b.Throughput/a.Throughput) + "× A"; !strings.Contains(page, `<span class="vs">`+want+`</span>`) {
		t.Errorf("page lacks B's throughput against A, %q", want)
	}
	if want := "<td>throughput</td>"; !strings.Contains(page, "Compared with A") || !strings.Contains(page, want) {
		t.Errorf("page lacks the comparison table with its %s row", want)
	}
	if !strings.Contains(d.Runs[1].Label, "</script>") {
		t.Errorf("run B's label: got %q; want the target with its </script> intact in the data", d.Runs[1].Label)
	}
}

func TestHTMLWithNames(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := HTMLWithNames(&b, []*summary.Summary{runA(), runB()}, []string{"before.rb"}); err != nil {
		t.Fatal(err)
	}
	d := pageData(t, b.String())
	if got, want := d.Runs[0].Label, "before.rb: "+runA().Target; !strings.HasPrefix(got, want) {
		t.Errorf("A's label: got %q; want it to start with %q", got, want)
	}
	if got, want := d.Runs[1].Label, runB().Target; !strings.HasPrefix(got, want) {
		t.Errorf("B's label (no name given): got %q; want it to start with %q", got, want)
	}
	if !strings.Contains(b.String(), `<span class="run-name">before.rb</span>`) {
		t.Error("the page does not show A's name in its card")
	}
}

func TestHTMLWithoutHistograms(t *testing.T) {
	t.Parallel()
	s := runB()
	raw, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var decoded summary.Summary // as read back from a JSON report: no histograms
	if err := json.Unmarshal(raw, &decoded); err != nil {
		t.Fatal(err)
	}
	page := render(t, &decoded, s)
	d := pageData(t, page)
	if got := d.Hist.Pct[0]; got != nil {
		t.Errorf("histogram of a decoded run: got %v; want none", got)
	}
	if got := d.Hist.Pct[1]; len(got) == 0 {
		t.Error("histogram of the run with histograms: got none")
	}
	sp := d.Spectrum[0]
	if len(sp.X) < 5 || sp.Y[len(sp.Y)-1] != s.Latency.Max {
		t.Errorf("spectrum from percentiles: got %v / %v; want ≥ 5 points ending at max %v", sp.X, sp.Y, s.Latency.Max)
	}
}

func TestHTMLEdgeCases(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := HTML(&b, nil); err == nil {
		t.Error("HTML(no runs): got no error; want one")
	}
	if err := HTML(&b, []*summary.Summary{nil}); err == nil {
		t.Error("HTML(nil run): got no error; want one")
	}
	tests := []struct {
		name string
		s    *summary.Summary
	}{
		{"zero summary", &summary.Summary{}},
		{"no requests", summary.New(summary.Run{Plan: plan.Plan{Endpoints: []plan.Endpoint{{URL: "http://127.0.0.1:1/"}}}.Normalized()}, result.NewInterval(1))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			page := render(t, tt.s)
			d := pageData(t, page)
			if len(d.Time.X) != 0 || len(d.Hist.Labels) != 0 {
				t.Errorf("got data %+v; want no points and no bins", d)
			}
		})
	}
}

// TestTimeTail: the few empty ms between the last send and the end of a run leave a gap in the
// throughput chart instead of a dive to 0; a full interval without answers (a stall) is a 0.
func TestTimeTail(t *testing.T) {
	t.Parallel()
	s := &summary.Summary{Timeline: []summary.Point{
		{Start: 0, End: 1, Sent: 100, OK: 100, RPS: 100, P50: 1, Max: 2},
		{Start: 1, End: 2}, // a stall: nothing answered for a whole interval
		{Start: 2, End: 3, Sent: 100, OK: 100, RPS: 100, P50: 1, Max: 2},
		{Start: 3, End: 3.006}, // the tail
	}}
	td := buildTime([]*summary.Summary{s})
	r := td.Runs[0]
	got := make([]string, len(r.RPS))
	for i, v := range r.RPS {
		got[i] = "nil"
		if v != nil {
			got[i] = strconv.FormatFloat(*v, 'g', -1, 64)
		}
	}
	if want := []string{"100", "0", "100", "nil"}; !slices.Equal(got, want) {
		t.Errorf("throughput points %v; want %v", got, want)
	}
	if r.ErrRPS[3] != nil {
		t.Errorf("errors in the tail: %v; want a gap", *r.ErrRPS[3])
	}
}

// TestTimeDrainLeftOut: the intervals after the last send (the drain, a few stragglers) are left out
// of the time charts of one run, of its endpoints, and of runs side by side.
func TestTimeDrainLeftOut(t *testing.T) {
	t.Parallel()
	run := func(rps float64) *summary.Summary {
		s := &summary.Summary{SendSpanS: 2}
		for _, ep := range []string{"", "a", "b"} {
			s.Timeline = append(s.Timeline,
				summary.Point{Start: 0, End: 1, Endpoint: ep, Sent: 100, OK: 100, RPS: rps, P50: 1, P99: 2, Max: 2},
				summary.Point{Start: 1, End: 2, Endpoint: ep, Sent: 100, OK: 100, RPS: rps, P50: 1, P99: 2, Max: 2},
				summary.Point{Start: 2, End: 2.3, Endpoint: ep, OK: 3, RPS: 10, P50: 300, P99: 300, Max: 300}, // drain
			)
		}
		return s
	}
	for _, runs := range [][]*summary.Summary{{run(100)}, {run(100), run(200)}} {
		td := buildTime(runs)
		if want := []float64{1, 2}; !slices.Equal(td.X, want) {
			t.Errorf("%d run(s): got x %v; want %v", len(runs), td.X, want)
		}
		for i, r := range td.Runs {
			for j, v := range r.P99 {
				if v == nil || *v != 2 {
					t.Errorf("%d run(s), run %d: got p99[%d] %v; want 2 (no drain spike)", len(runs), i, j, v)
				}
			}
		}
		if len(runs) == 1 {
			for k, p99 := range td.Endpoints.P99 {
				for j, v := range p99 {
					if v == nil || *v != 2 {
						t.Errorf("endpoint %d: got p99[%d] %v; want 2", k, j, v)
					}
				}
			}
		}
	}
}

// TestEndpointTimeBusiest: one run of more endpoints than there are colours charts the busiest,
// in the run's order, and says of how many.
func TestEndpointTimeBusiest(t *testing.T) {
	t.Parallel()
	s := &summary.Summary{}
	for iv := range 2 {
		start := float64(iv)
		s.Timeline = append(s.Timeline, summary.Point{Start: start, End: start + 1, Sent: 100, RPS: 100})
		for e := range 10 { // endpoint e9 is the busiest, e0 the least busy
			s.Timeline = append(s.Timeline, summary.Point{Start: start, End: start + 1, Endpoint: "e" + strconv.Itoa(e),
				Sent: uint64(e + 1), OK: uint64(e + 1), RPS: float64(e + 1), P99: float64(e), Max: float64(e)})
		}
	}
	et := buildTime([]*summary.Summary{s}).Endpoints
	if et == nil {
		t.Fatal("no per-endpoint series; want them for one run of 10 endpoints")
	}
	if want := []string{"e3", "e4", "e5", "e6", "e7", "e8", "e9"}; !slices.Equal(et.Names, want) || et.Of != 10 {
		t.Errorf("charted %v of %d; want %v of 10", et.Names, et.Of, want)
	}
	if len(et.RPS) != 7 || len(et.RPS[0]) != 2 || et.RPS[0][1] == nil || *et.RPS[0][1] != 4 || et.P99[6][0] == nil || *et.P99[6][0] != 9 {
		t.Errorf("series %v / %v; want e3's throughput 4 and e9's p99 9 at each point", et.RPS, et.P99)
	}
	if two := buildTime([]*summary.Summary{s, s}).Endpoints; two != nil {
		t.Errorf("two runs: got per-endpoint series %v; want none", two.Names)
	}
}

func TestBinEdges(t *testing.T) {
	t.Parallel()
	tests := []struct {
		lo, hi float64
		log    bool
	}{
		{1000, 1500, false}, {100, 90_000, true}, {5, 5, false}, {0, 3, false},
	}
	for _, tt := range tests {
		e := binEdges(tt.lo, tt.hi)
		if len(e) < 2 || len(e) > histBins+2 {
			t.Errorf("binEdges(%v, %v): got %d edges; want 2..%d", tt.lo, tt.hi, len(e), histBins+2)
			continue
		}
		if e[0] > math.Max(tt.lo, 1) || e[len(e)-1] < tt.hi*(1-1e-9) {
			t.Errorf("binEdges(%v, %v): got [%v, %v]; want it to cover the range", tt.lo, tt.hi, e[0], e[len(e)-1])
		}
		for i := 1; i < len(e); i++ {
			if e[i] <= e[i-1] {
				t.Fatalf("binEdges(%v, %v): not increasing at %d: %v", tt.lo, tt.hi, i, e)
			}
		}
		ratio := (e[2] - e[1]) / (e[1] - e[0])
		if got := math.Abs(ratio-1) > 1e-6; got != tt.log && len(e) > 2 {
			t.Errorf("binEdges(%v, %v): log spacing %v; want %v", tt.lo, tt.hi, got, tt.log)
		}
	}
}

func BenchmarkHTML(b *testing.B) {
	runs := []*summary.Summary{testRun(1, 60, 500, 4), testRun(2, 60, 500, 6)}
	b.ReportAllocs()
	for b.Loop() {
		var w bytes.Buffer
		if err := HTML(&w, runs); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzHTMLStrings puts arbitrary text where a summary holds strings from outside (the target, an
// endpoint's name, an error message, a note) and checks that the page keeps its structure: its own
// three scripts and two style sheets, and the text back intact from the data block.
func FuzzHTMLStrings(f *testing.F) {
	for _, s := range []string{"</script>", "</SCRIPT ><script>alert(1)</script>", "<!--", "</style>", "]]>", "\u2028\u2029",
		`{{.Data}}`, `"; alert(1); "`, "<script src=http://127.0.0.1/x.js>", "a\x00b", "\xff\xfe"} {
		f.Add(s)
	}
	base := testRun(1, 2, 40, 2)
	f.Fuzz(func(t *testing.T, s string) {
		run := *base
		run.Target = s
		run.Notes = []string{s}
		run.Endpoints = append([]summary.Endpoint(nil), base.Endpoints...)
		run.Endpoints[0].Name = s
		run.ErrorMessages = []summary.ErrorMessage{{Class: "other", Message: s, Count: 1}}
		var b bytes.Buffer
		if err := HTML(&b, []*summary.Summary{&run}); err != nil {
			t.Fatalf("HTML: %v", err)
		}
		page := strings.ToLower(b.String())
		for _, c := range []struct {
			tag  string
			want int
		}{{"<script", 3}, {"</script", 3}, {"<style", 2}, {"</style", 2}, {"<!--", 0}} {
			if got := strings.Count(page, c.tag); got != c.want {
				t.Errorf("%q occurs %d times; want %d", c.tag, got, c.want)
			}
		}
		d := pageData(t, b.String())
		if utf8.ValidString(s) && !strings.HasPrefix(d.Runs[0].Label, s) {
			t.Errorf("label: got %q; want it to start with %q", d.Runs[0].Label, s)
		}
	})
}
