package report

import (
	"encoding/json"
	"math"
	"slices"
	"sort"
	"testing"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/summary"
)

// series is what a chart draws, by series label: x → y, for the points that have a value.
type series map[string]map[float64]float64

// timelineSeries is what the page's charts over time must draw for runs, chart by chart, worked
// out from the runs' timelines: the series of a run are named by the percentile or figure they
// show, after the run's letter when the page holds several runs. Every point of the fixtures'
// timelines is a whole interval with answers, so every point is drawn.
func timelineSeries(runs []*summary.Summary) map[string]series {
	out := map[string]series{"chart-latency": {}, "chart-throughput": {}}
	put := func(chart, label string, x, y float64) {
		if out[chart] == nil {
			out[chart] = series{}
		}
		if out[chart][label] == nil {
			out[chart][label] = map[float64]float64{}
		}
		out[chart][label][x] = y
	}
	for r, s := range runs {
		name := func(what string) string {
			if len(runs) > 1 {
				return string(rune('A'+r)) + " " + what
			}
			return what
		}
		for _, p := range s.Timeline {
			if p.Endpoint != "" {
				if len(runs) == 1 {
					put("chart-endpoint-latency", p.Endpoint, p.End, p.P99)
					put("chart-endpoint-throughput", p.Endpoint, p.End, p.RPS)
				}
				continue
			}
			put("chart-latency", name("p50"), p.End, p.P50)
			put("chart-latency", name("p90"), p.End, p.P90)
			put("chart-latency", name("p99"), p.End, p.P99)
			put("chart-latency", name("max"), p.End, p.Max)
			if p.SvcP99 > 0 {
				put("chart-latency", name("service p50"), p.End, p.SvcP50)
				put("chart-latency", name("service p99"), p.End, p.SvcP99)
			}
			if p.LagP99 > 0 {
				put("chart-latency", name("send lag p99"), p.End, p.LagP99)
			}
			put("chart-throughput", name("answers/s"), p.End, p.RPS)
			put("chart-throughput", name("errors/s"), p.End, float64(p.Errors)/(p.End-p.Start))
		}
	}
	return out
}

// sameSeries fails unless got has exactly the series of want, with the same values at the same x.
func sameSeries(t *testing.T, chart string, got, want series) {
	t.Helper()
	labels := func(s series) []string {
		var l []string
		for k := range s {
			l = append(l, k)
		}
		sort.Strings(l)
		return l
	}
	if g, w := labels(got), labels(want); !slices.Equal(g, w) {
		t.Errorf("%s: series %q; want %q", chart, g, w)
	}
	for label, w := range want {
		g := got[label]
		if len(g) != len(w) {
			t.Errorf("%s, %s: %d points; want %d", chart, label, len(g), len(w))
		}
		for x, wy := range w {
			gy, ok := g[x]
			if !ok || math.Abs(gy-wy) > 1e-9*math.Max(1, math.Abs(wy)) {
				t.Errorf("%s, %s at %vs: got %v (drawn %v); want %v", chart, label, x, gy, ok, wy)
			}
		}
	}
}

// put adds the values of ys over xs to s as the series label.
func (s series) put(label string, xs []float64, ys []*float64) {
	m := map[float64]float64{}
	for i, y := range ys {
		if y != nil && i < len(xs) {
			m[xs[i]] = *y
		}
	}
	s[label] = m
}

// putSome is put for a series that only some runs have: one without a value is left out.
func (s series) putSome(label string, xs []float64, ys []*float64) {
	if slices.ContainsFunc(ys, func(y *float64) bool { return y != nil }) {
		s.put(label, xs, ys)
	}
}

// The data the page charts over time is the runs' timelines, series by series: p90 is the p90 of
// each interval, not another percentile's, and the service time and send lag beside the latency
// are each interval's own.
func TestHTMLSeriesFollowTheTimeline(t *testing.T) {
	t.Parallel()
	for _, runs := range [][]*summary.Summary{{runA()}, {runA(), runB()}} {
		d := pageData(t, render(t, runs...))
		got := map[string]series{"chart-latency": {}, "chart-throughput": {}}
		for r, ts := range d.Time.Runs {
			name := func(what string) string {
				if len(runs) > 1 {
					return d.Runs[r].Letter + " " + what
				}
				return what
			}
			got["chart-latency"].put(name("p50"), d.Time.X, ts.P50)
			got["chart-latency"].put(name("p90"), d.Time.X, ts.P90)
			got["chart-latency"].put(name("p99"), d.Time.X, ts.P99)
			got["chart-latency"].put(name("max"), d.Time.X, ts.Max)
			got["chart-latency"].putSome(name("service p50"), d.Time.X, ts.SvcP50)
			got["chart-latency"].putSome(name("service p99"), d.Time.X, ts.SvcP99)
			got["chart-latency"].putSome(name("send lag p99"), d.Time.X, ts.LagP99)
			got["chart-throughput"].put(name("answers/s"), d.Time.X, ts.RPS)
			got["chart-throughput"].put(name("errors/s"), d.Time.X, ts.ErrRPS)
		}
		if e := d.Time.Endpoints; e != nil {
			got["chart-endpoint-latency"], got["chart-endpoint-throughput"] = series{}, series{}
			for k, name := range e.Names {
				got["chart-endpoint-latency"].put(name, d.Time.X, e.P99[k])
				got["chart-endpoint-throughput"].put(name, d.Time.X, e.RPS[k])
			}
		}
		want := timelineSeries(runs)
		if len(got) != len(want) {
			t.Errorf("%d runs: %d charts over time; want %d", len(runs), len(got), len(want))
		}
		for chart, w := range want {
			sameSeries(t, chart, got[chart], w)
		}
	}
}

// TestHTMLSpectrumSeries: the page's data holds each run's percentile spectrum under that run, and
// a spectrum from percentiles (a run read back from JSON) puts each percentile at its own x: the
// figures worked out by hand.
func TestHTMLSpectrumSeries(t *testing.T) {
	t.Parallel()
	// run A: 90 answers of 1 ms and 10 of 5 ms, so 1 ms up to p90 (x = 10) and 5 ms above; run B: 100
	// of 40 ms. HdrHistogram keeps 1,000 µs and 5,000 µs exactly (within 3 digits: 5,000–5,003 µs).
	a, b := *runA(), *runB()
	a.LatencyHist, b.LatencyHist = result.NewHistogram(), result.NewHistogram()
	a.LatencyHist.RecordValues(1000, 90)
	a.LatencyHist.RecordValues(5000, 10)
	b.LatencyHist.RecordValues(40000, 100)
	d := pageData(t, render(t, &a, &b))
	if len(d.Spectrum) != 2 || d.Runs[0].Letter != "A" || d.Runs[1].Letter != "B" {
		t.Fatalf("got %d spectra for runs %+v; want 2, A's then B's", len(d.Spectrum), d.Runs)
	}
	near := func(got, want float64) bool { return math.Abs(got-want) <= want*0.001 }
	for i, sp := range d.Spectrum {
		if len(sp.X) != len(sp.Y) || len(sp.X) < 40 || sp.X[len(sp.X)-1] != 100 { // 100 answers: x from 1 to 100
			t.Fatalf("run %s: %d x and %d y, the last x %v; want as many, from 1 to 100 (2 decades of 24 steps)", d.Runs[i].Letter, len(sp.X), len(sp.Y), sp.X[len(sp.X)-1])
		}
		for k, x := range sp.X {
			want := 40.0 // run B
			if i == 0 {
				switch {
				case x < 9.5:
					want = 1
				case x > 10.5:
					want = 5
				default:
					continue // p90 itself, where 1 ms turns into 5 ms
				}
			}
			if !near(sp.Y[k], want) {
				t.Errorf("run %s at x %v (p%.4g): %v ms; want %v ms", d.Runs[i].Letter, x, 100*(1-1/x), sp.Y[k], want)
			}
		}
	}

	// from percentiles only: min 1, p50 2, p75 3, p90 4, p95 5, p99 6, p99.9 7, p99.99 8, max 9 ms of
	// 1,000,000 answers, at x = 1, 2, 4, 10, 20, 100, 1,000, 10,000 and 1,000,000
	raw, err := json.Marshal(runB())
	if err != nil {
		t.Fatal(err)
	}
	var c summary.Summary // as read back from a JSON report: no histograms
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	c.Requests.Completed = 1e6
	c.Latency = summary.Percentiles{Min: 1, P50: 2, P75: 3, P90: 4, P95: 5, P99: 6, P999: 7, P9999: 8, Max: 9}
	sp := pageData(t, render(t, &c)).Spectrum[0]
	wantX := []float64{1, 2, 4, 10, 20, 100, 1000, 10000, 1e6}
	wantY := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9}
	if !slices.Equal(sp.X, wantX) || !slices.Equal(sp.Y, wantY) {
		t.Errorf("spectrum from percentiles: x %v, y %v; want %v, %v", sp.X, sp.Y, wantX, wantY)
	}
}
