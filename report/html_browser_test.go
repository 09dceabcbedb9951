package report

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/rpcbench/rpcbench/summary"
)

var screenshotDir = flag.String("html.screenshots", "", "also save the HTML report's browser screenshots in this directory")

// findBrowser returns the path of a Chromium or Chrome, or why there is none.
func findBrowser() (string, error) {
	names := []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no browser found in PATH (looked for %s); install Debian's chromium package to run this test", strings.Join(names, ", "))
}

// chartCheck is what the page reports about one chart: its id and, per series, how many pixels of
// the plot area have the series' colour.
type chartCheck struct {
	ID     string   `json:"id"`
	Width  int      `json:"width"`
	Height int      `json:"height"`
	Series []string `json:"series"`
	Pixels []int    `json:"pixels"`
	Data   []bool   `json:"data"` // the series is shown and has a value other than null and 0
}

// checkChartsJS counts, for every uPlot chart on the page and every series of it, the pixels of
// the plot area whose colour is (nearly) the series' colour: a series that drew nothing has none.
const checkChartsJS = `(window.rpcbenchCharts || []).map(function (c) {
  var u = c.plot, b = u.bbox, ctx = u.ctx;
  var img = ctx.getImageData(b.left, b.top, b.width, b.height).data;
  var out = { id: c.id, width: u.width, height: u.height, series: [], pixels: [], data: [] };
  for (var i = 1; i < u.series.length; i++) {
    var s = u.series[i], col = s.stroke(u, i), n = 0;
    var R = parseInt(col.slice(1, 3), 16), G = parseInt(col.slice(3, 5), 16), B = parseInt(col.slice(5, 7), 16);
    for (var p = 0; p < img.length; p += 4) {
      if (img[p + 3] > 200 && Math.abs(img[p] - R) + Math.abs(img[p + 1] - G) + Math.abs(img[p + 2] - B) < 40) n++;
    }
    out.series.push(s.label);
    out.pixels.push(n);
    out.data.push(s.show && u.data[i].some(function (v) { return v != null && v !== 0; }));
  }
  return out;
})`

// browserEvents collects what the page did that a test must see: console errors, exceptions and
// every request it made. Safe for concurrent use.
type browserEvents struct {
	mu       sync.Mutex
	problems []string
	requests []string
}

func (e *browserEvents) listen(ev any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	switch ev := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert || ev.Type == runtime.ConsoleAPICalledTypeWarning {
			var args []string
			for _, a := range ev.Args {
				args = append(args, strings.Trim(string(a.Value), `"`)+a.Description)
			}
			e.problems = append(e.problems, fmt.Sprintf("console.%s: %s", ev.Type, strings.Join(args, " ")))
		}
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		msg := d.Text
		if d.Exception != nil {
			msg += " " + d.Exception.Description
		}
		e.problems = append(e.problems, fmt.Sprintf("exception at %d:%d: %s", d.LineNumber, d.ColumnNumber, msg))
	case *cdplog.EventEntryAdded:
		if ev.Entry.Level == cdplog.EntryLevelError || ev.Entry.Level == cdplog.EntryLevelWarning {
			e.problems = append(e.problems, fmt.Sprintf("browser log (%s): %s %s", ev.Entry.Source, ev.Entry.Text, ev.Entry.URL))
		}
	case *network.EventRequestWillBeSent:
		e.requests = append(e.requests, ev.Request.URL)
	}
}

func TestHTMLInBrowser(t *testing.T) {
	path, err := findBrowser()
	if err != nil {
		if ci, _ := strconv.ParseBool(os.Getenv("CI")); ci {
			t.Fatalf("%v: CI (CI=%s) must run the browser test, not skip it", err, os.Getenv("CI"))
		}
		t.Skip(err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1440, 900),
	)
	one := *runA()
	one.Notes = append(slices.Clone(one.Notes), "requests went out late: send lag p99 12.0ms, max 40.0ms")

	start := time.Now()
	// A few seconds on an idle machine; the bound is generous for a loaded CI machine, and stops a hang.
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	defer acancel()
	defer func() { t.Logf("browser part took %v", time.Since(start).Round(time.Millisecond)) }()
	raw, err := json.Marshal(runB())
	if err != nil {
		t.Fatal(err)
	}
	var decoded summary.Summary // as read back from a JSON report: no histograms
	if err := json.Unmarshal(raw, &decoded); err != nil {
		t.Fatal(err)
	}
	all := []string{"chart-latency", "chart-throughput", "chart-spectrum", "chart-histogram"}
	// one run of several endpoints adds a chart of each endpoint's p99 and one of its throughput
	perEndpoint := []string{"chart-endpoint-latency", "chart-endpoint-throughput"}
	tests := []struct {
		name   string
		runs   []*summary.Summary
		charts []string // the charts drawn; the others say why they are empty
		alone  bool     // a run of subscriptions alone: its chart only, none of the calls'
	}{
		{"one run", []*summary.Summary{&one}, append(slices.Clone(all), perEndpoint...), false},
		{"two runs", []*summary.Summary{runA(), runB()}, all, false},
		{"from JSON", []*summary.Summary{&decoded}, append(slices.Clone(all[:3]), perEndpoint...), false},
		{"subscriptions alone", []*summary.Summary{aloneSample()}, []string{"chart-subscriptions"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var page bytes.Buffer
			if err := HTML(&page, tt.runs); err != nil {
				t.Fatalf("HTML: %v", err)
			}
			dir := t.TempDir()
			file := filepath.Join(dir, "report.html")
			if err := os.WriteFile(file, page.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			ev := &browserEvents{}
			tctx, tcancel := chromedp.NewContext(actx, chromedp.WithListener(ev.listen))
			defer tcancel()
			url := "file://" + file
			if err := chromedp.Do(tctx, chromedp.Navigate(url)); err != nil {
				t.Fatalf("loading the page: %v", err)
			}
			if _, err := chromedp.Run(tctx, chromedp.Poll[bool](`window.rpcbenchCharts && window.rpcbenchCharts.length === `+strconv.Itoa(len(tt.charts)),
				chromedp.WithPollingTimeout(10*time.Second))); err != nil {
				t.Fatalf("waiting for the %d charts: %v", len(tt.charts), err)
			}
			shot, err := chromedp.Run(tctx, chromedp.FullScreenshot(100))
			if err != nil {
				t.Fatalf("screenshot: %v", err)
			}
			png := filepath.Join(dir, "report.png")
			if err := os.WriteFile(png, shot, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("screenshot: %s", png)
			if *screenshotDir != "" {
				name := strings.ReplaceAll(tt.name, " ", "-")
				for _, f := range []struct {
					ext  string
					data []byte
				}{{".png", shot}, {".html", page.Bytes()}} {
					if err := os.WriteFile(filepath.Join(*screenshotDir, name+f.ext), f.data, 0o644); err != nil {
						t.Error(err)
					}
				}
			}

			ev.mu.Lock()
			problems, requests := append([]string(nil), ev.problems...), append([]string(nil), ev.requests...)
			ev.mu.Unlock()
			for _, p := range problems {
				t.Errorf("page reported: %s", p)
			}
			for _, r := range requests {
				if r != url {
					t.Errorf("page requested %q; want no request but the page itself", r)
				}
			}
			checkCharts(t, tctx, "linear axes", tt.charts)
			if tt.alone {
				checkAloneChart(t, tctx)
				return
			}
			checkSeries(t, tctx, tt.runs)
			checkJumpShading(t, tctx, tt.runs)
			// time axes start at 0, ticked on whole seconds
			lo, err := chromedp.Run(tctx, chromedp.Evaluate[[]float64](`(function () {
  var c = window.rpcbenchCharts.find(function (c) { return c.id === "chart-latency"; });
  return [c.plot.scales.x.min, c.plot.axes[0]._splits[0], c.plot.axes[0]._splits[1]];
})()`))
			if err != nil || len(lo) != 3 || lo[0] != 0 || lo[1] != 0 || lo[2] != math.Trunc(lo[2]) {
				t.Errorf("latency chart's time axis: got min and first ticks %v (%v); want 0, 0 and a whole second", lo, err)
			}
			for _, id := range all {
				if slices.Contains(tt.charts, id) {
					continue
				}
				why, err := chromedp.Run(tctx, chromedp.Evaluate[string](`document.querySelector("#`+id+` .empty").textContent`))
				if err != nil || why == "" {
					t.Errorf("%s: got no explanation of the empty chart (%v); want one", id, err)
				}
			}
			n, err := chromedp.Run(tctx, chromedp.Evaluate[int](`(function () {
  var boxes = document.querySelectorAll(".log-toggle input");
  boxes.forEach(function (b) { b.click(); });
  return boxes.length;
})()`))
			boxes := 2 // latency over time and by percentile, and p99 per endpoint when charted
			if slices.Contains(tt.charts, "chart-endpoint-latency") {
				boxes++
			}
			if err != nil || n != boxes {
				t.Fatalf("switching to log scales: got %d boxes, %v; want %d boxes", n, err, boxes)
			}
			checkCharts(t, tctx, "log scales", tt.charts)
			if *screenshotDir != "" {
				shot, err := chromedp.Run(tctx, chromedp.FullScreenshot(100))
				if err != nil {
					t.Fatalf("screenshot: %v", err)
				}
				if err := os.WriteFile(filepath.Join(*screenshotDir, strings.ReplaceAll(tt.name, " ", "-")+"-log.png"), shot, 0o644); err != nil {
					t.Error(err)
				}
			}
		})
	}
}

// checkCharts asserts that the page in ctx has the charts wantIDs, each of a sane size and each of its
// shown series drawn.
func checkCharts(t *testing.T, ctx context.Context, when string, wantIDs []string) {
	t.Helper()
	checks, err := chromedp.Run(ctx, chromedp.Evaluate[[]chartCheck](checkChartsJS))
	if err != nil {
		t.Fatalf("%s: inspecting the charts: %v", when, err)
	}
	if len(checks) != len(wantIDs) {
		t.Fatalf("%s: charts: got %d; want %d", when, len(checks), len(wantIDs))
	}
	for i, c := range checks {
		if c.ID != wantIDs[i] {
			t.Errorf("%s: chart %d: got %q; want %q", when, i, c.ID, wantIDs[i])
		}
		if c.Width < 400 || c.Height < 200 {
			t.Errorf("%s: %s: %dx%d px; want at least 400x200 on a laptop-sized window", when, c.ID, c.Width, c.Height)
		}
		drawn := 0
		for j, n := range c.Pixels {
			if c.Data[j] && n < 10 {
				t.Errorf("%s: %s, series %q: %d pixels of its colour; want a drawn series", when, c.ID, c.Series[j], n)
			}
			drawn += n
		}
		if drawn < 100 {
			t.Errorf("%s: %s: %d data pixels in all; want a chart that drew its data", when, c.ID, drawn)
		}
		t.Logf("%s: %s: %dx%d, series %q drew %v px", when, c.ID, c.Width, c.Height, c.Series, c.Pixels)
	}
}

// chartSeries is the data of one uPlot chart as the page holds it: its series' labels, and its
// data (x first, then one array per series, null where a series has no value).
type chartSeries struct {
	ID     string       `json:"id"`
	Labels []string     `json:"labels"`
	Data   [][]*float64 `json:"data"`
}

const chartSeriesJS = `(window.rpcbenchCharts || []).map(function (c) {
  var u = c.plot;
  return { id: c.id, labels: u.series.map(function (s) { return s.label; }), data: u.data };
})`

// checkSeries asserts that the page in ctx draws, in each chart over time, the values of runs'
// timelines under the right labels.
func checkSeries(t *testing.T, ctx context.Context, runs []*summary.Summary) {
	t.Helper()
	charts, err := chromedp.Run(ctx, chromedp.Evaluate[[]chartSeries](chartSeriesJS))
	if err != nil {
		t.Fatalf("reading the charts' data: %v", err)
	}
	got := map[string]series{}
	for _, c := range charts {
		if len(c.Data) == 0 || len(c.Labels) != len(c.Data) {
			t.Errorf("%s: %d labels for %d data arrays; want as many, x first", c.ID, len(c.Labels), len(c.Data))
			continue
		}
		xs := make([]float64, len(c.Data[0]))
		for i, x := range c.Data[0] {
			if x != nil {
				xs[i] = *x
			}
		}
		s := series{}
		for i := 1; i < len(c.Data); i++ {
			s.put(c.Labels[i], xs, c.Data[i])
		}
		got[c.ID] = s
	}
	for chart, want := range timelineSeries(runs) {
		if _, ok := got[chart]; !ok {
			t.Errorf("%s: not drawn; want its series", chart)
			continue
		}
		sameSeries(t, chart, got[chart], want)
	}
}

// checkJumpShading reads the latency chart's pixels at the top of its plot: tinted in the middle
// of each jump of a run that has some (summary.Jumps), and, for one run, the plain background in
// the middle of each interval outside every jump.
func checkJumpShading(t *testing.T, ctx context.Context, runs []*summary.Summary) {
	t.Helper()
	var in, out []float64 // x values, seconds from the measured start
	for _, s := range runs {
		jumps := summary.Jumps(s)
		for _, j := range jumps {
			in = append(in, (j.StartS+j.EndS)/2)
		}
	points:
		for _, p := range s.Timeline {
			mid := (p.Start + p.End) / 2
			if p.Endpoint != "" || len(runs) > 1 {
				continue
			}
			for _, j := range jumps {
				if p.End > j.StartS && p.Start < j.EndS {
					continue points
				}
			}
			out = append(out, mid)
		}
	}
	if len(in) == 0 {
		return
	}
	read := func(xs []float64) [][4]float64 {
		if len(xs) == 0 {
			return nil
		}
		raw, _ := json.Marshal(xs)
		px, err := chromedp.Run(ctx, chromedp.Evaluate[[][4]float64](`(function (xs) {
  var c = window.rpcbenchCharts.find(function (c) { return c.id === "chart-latency"; });
  var u = c.plot, ctx = u.ctx;
  return xs.map(function (x) {
    return Array.from(ctx.getImageData(Math.round(u.valToPos(x, "x", true)), Math.round(u.bbox.top + 2), 1, 1).data);
  });
})(`+string(raw)+`)`))
		if err != nil {
			t.Fatalf("reading the latency chart's pixels: %v", err)
		}
		return px
	}
	// the shade: red over green for one run, the run's colour (any) when the page compares runs
	tinted := func(p [4]float64) bool { return p[3] > 0 && (len(runs) > 1 || p[0] > p[1]+10) }
	for i, p := range read(in) {
		if !tinted(p) {
			t.Errorf("the latency chart at %.1fs, in a jump: pixel %v; want the jump's shade", in[i], p)
		}
	}
	for i, p := range read(out) {
		if tinted(p) {
			t.Errorf("the latency chart at %.1fs, outside every jump: pixel %v is shaded", out[i], p)
		}
	}
}

// checkAloneChart asserts that the page in ctx, of aloneSample, charts its subscriptions' figures
// by percentile under their names, the figures as the sample has them, and offers a log scale.
func checkAloneChart(t *testing.T, ctx context.Context) {
	t.Helper()
	charts, err := chromedp.Run(ctx, chromedp.Evaluate[[]chartSeries](chartSeriesJS))
	if err != nil || len(charts) != 1 {
		t.Fatalf("reading the charts' data: %d charts, %v; want the subscriptions' one", len(charts), err)
	}
	want := map[string][]float64{"time to id": {1, 2, 3, 4, 5}, "time to first": {10, 20, 30, 40, 50},
		"delivery latency": {2, 7, 8, 8.5, 9}, "fan-out spread": {0.5, 0, 0, 0, 1}}
	c := charts[0]
	if len(c.Labels) != len(want)+1 {
		t.Fatalf("series %q; want percentile and %d measures", c.Labels, len(want))
	}
	for i, l := range c.Labels[1:] {
		var got []float64
		for _, v := range c.Data[i+1] {
			if v == nil {
				t.Fatalf("%s: a null among %v", l, c.Data[i+1])
			}
			got = append(got, *v)
		}
		if !slices.Equal(got, want[l]) {
			t.Errorf("%s: drew %v; want %v", l, got, want[l])
		}
	}
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll(".log-toggle input").length`))
	if err != nil || n != 1 {
		t.Errorf("log scale boxes: %d (%v); want the subscriptions chart's one", n, err)
	}
}
