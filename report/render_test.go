package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/rpcbench/rpcbench/summary"
)

// synthetic returns a run of two endpoints with the figures given per endpoint: answers/s,
// requests sent and failed, p50 and p99 in ms; the totals add the counts up.
func synthetic(get, put [5]float64) *summary.Summary {
	s := &summary.Summary{Target: "http://127.0.0.1:1/"}
	for _, e := range []struct {
		name string
		f    [5]float64
	}{{"get", get}, {"put", put}} {
		ep := summary.Endpoint{Name: e.name}
		ep.Throughput = e.f[0]
		ep.Requests.Sent, ep.Requests.Errors = uint64(e.f[1]), uint64(e.f[2])
		ep.Requests.OK = ep.Requests.Sent - ep.Requests.Errors
		ep.Latency.P50, ep.Latency.P99 = e.f[3], e.f[4]
		s.Endpoints = append(s.Endpoints, ep)
		s.Throughput += ep.Throughput
		s.Requests.Sent += ep.Requests.Sent
		s.Requests.Errors += ep.Requests.Errors
		s.Requests.OK += ep.Requests.OK
	}
	return s
}

// before and after: get goes from 100/s, 2 of 100 failed, p50 4 ms, p99 20 ms to 150/s, 3 of 150
// failed (the same 2%), p50 2 ms, p99 30 ms; put from 50/s, none failed, p99 40 ms to 25/s, 5 of
// 25 failed, p99 10 ms.
func beforeAfter() []*summary.Summary {
	return []*summary.Summary{
		synthetic([5]float64{100, 100, 2, 4, 20}, [5]float64{50, 50, 0, 10, 40}),
		synthetic([5]float64{150, 150, 3, 2, 30}, [5]float64{25, 25, 5, 10, 10}),
	}
}

// Every format that shows several runs compares them endpoint by endpoint, with the ratios worked
// out by hand from beforeAfter's figures, and names the runs by their labels.
func TestRenderComparesEndpoints(t *testing.T) {
	t.Parallel()
	o := Options{Labels: []string{"before", "after"}}
	render := func(format string) string {
		var b bytes.Buffer
		if err := Render(&b, beforeAfter(), format, o); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		return b.String()
	}
	tests := []struct {
		format string
		want   []string // regular expressions
	}{
		{"text", []string{
			`(?m)^══ before ══$`, `(?m)^══ after ══$`, `(?m)^══ compared with before ══$`,
			// totals: 150/s → 175/s is 1.2×; error rate 2/150 → 8/175 (1.33% → 4.57%) is 3.4×
			`throughput\s+150\.0 req/s\s+175\.0 req/s\s+1\.2× more requests/s \(better\)`,
			`error rate\s+1\.33%\s+4\.57%\s+3\.4× the error rate \(worse\)`,
			`(?m)^\s+get\s+throughput\s+100\.0 req/s\s+150\.0 req/s\s+1\.5× more requests/s \(better\)`,
			`(?m)^\s+error rate\s+2\.00%\s+2\.00%\s+same error rate\s*$`,
			`(?m)^\s+p50\s+4\.00ms\s+2\.00ms\s+0\.50× the p50 \(better\)`,
			`(?m)^\s+put\s+throughput\s+50\.0 req/s\s+25\.0 req/s\s+0\.50× the requests/s \(worse\)`,
			`(?m)^\s+error rate\s+0\.00%\s+20\.00%\s+n/a \(first run: 0\)`,
			`(?m)^\s+p99\s+40\.0ms\s+10\.0ms\s+0\.25× the p99 \(better\)`,
		}},
		{"markdown", []string{
			`\| get \| throughput \| 100\.0 req/s \| 150\.0 req/s \| \*\*1\.5× more requests/s\*\* \|`,
			`\|  \| p99 \| 20\.0ms \| 30\.0ms \| 1\.5× the p99 \|`,
			`\| put \| throughput \| 50\.0 req/s \| 25\.0 req/s \| 0\.50× the requests/s \|`,
			`\|  \| p99 \| 40\.0ms \| 10\.0ms \| \*\*0\.25× the p99\*\* \|`,
		}},
		{"csv", []string{
			`(?m)^run,start_s,end_s,endpoint,sent,ok,errors,rps,p50_ms,p90_ms,p99_ms,max_ms,rps_vs_first,error_rate_vs_first,p50_vs_first,p99_vs_first$`,
			`(?m)^before,,,get,100,98,2,100\.0,4,0,20,0,1,1,1,1$`,
			`(?m)^after,,,get,150,147,3,150\.0,2,0,30,0,1\.5,1,0\.5,1\.5$`,
			`(?m)^after,,,put,25,20,5,25\.0,10,0,10,0,0\.5,,1,0\.25$`,      // no error-rate ratio against 0
			`(?m)^after,,,all,175,167,8,175\.0,0,0,0,0,1\.167,3\.429,1,1$`, // 175/150, 8/175 ÷ 2/150; latency totals 0 in both: 1
		}},
		{"html", []string{
			`<h2>Compared with A</h2>`,
			`<td>get</td><td>throughput</td><td>100\.0 req/s</td><td>150\.0 req/s</td><td class="better">1\.5× more requests/s</td>`,
			`<td></td><td>p99</td><td>40\.0ms</td><td>10\.0ms</td><td class="better">0\.25× the p99</td>`,
			`<span class="vs">1\.2× A</span>`, // the throughput figure's note
		}},
	}
	for _, tc := range tests {
		got := render(tc.format)
		for _, w := range tc.want {
			if !regexp.MustCompile(w).MatchString(got) {
				t.Errorf("%s: got:\n%s\nwant a match of %s", tc.format, got, w)
			}
		}
	}

	var js struct {
		Schema     string             `json:"schema"`
		Runs       []*summary.Summary `json:"runs"`
		Comparison struct {
			Labels    []string `json:"labels"`
			Endpoints []struct {
				Name    string `json:"name"`
				Metrics []struct {
					Name   string     `json:"name"`
					Ratios []*float64 `json:"ratios"`
				} `json:"metrics"`
			} `json:"endpoints"`
		} `json:"comparison"`
	}
	if err := json.Unmarshal([]byte(render("json")), &js); err != nil {
		t.Fatal(err)
	}
	c := js.Comparison
	if js.Schema != CompareSchema || len(js.Runs) != 2 || strings.Join(c.Labels, ",") != "before,after" || len(c.Endpoints) != 2 {
		t.Fatalf("json: got schema %q, %d runs, labels %v, %d endpoints; want %s, 2, before and after, 2", js.Schema, len(js.Runs), c.Labels, len(c.Endpoints), CompareSchema)
	}
	ratio := func(ep, metric int) *float64 { return c.Endpoints[ep].Metrics[metric].Ratios[1] }
	if r := ratio(0, 0); c.Endpoints[0].Name != "get" || c.Endpoints[0].Metrics[0].Name != "throughput" || r == nil || *r != 1.5 {
		t.Errorf("json: get's throughput ratio: got %v; want 1.5", r)
	}
	if r := ratio(1, 1); c.Endpoints[1].Metrics[1].Name != "error rate" || r != nil {
		t.Errorf("json: put's error-rate ratio against 0: got %v; want null", *r)
	}
}

// One place decides what a format can show: hgrm renders one run, hlog needs intervals, and an
// unknown format is a FormatError naming it.
func TestRenderFormatErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		format string
		runs   []*summary.Summary
		want   string
	}{
		{"hgrm", beforeAfter(), "renders one run, got 2"},
		{"hlog", beforeAfter()[:1], "intervals"},
		{"yaml", beforeAfter()[:1], "unknown; want one of text, json, csv, markdown, hgrm, html"},
	} {
		err := Render(&bytes.Buffer{}, tc.runs, tc.format, Options{})
		var fe *FormatError
		if !errors.As(err, &fe) || fe.Format != tc.format || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v; want a FormatError saying %q", tc.format, err, tc.want)
		}
	}
	if err := Render(&bytes.Buffer{}, nil, "text", Options{}); err == nil {
		t.Error("no runs: got no error; want one")
	}
}

// The text report of two runs ends with their comparison (go test -update rewrites the golden file).
func TestTextCompareGolden(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := Render(&b, []*summary.Summary{load(t, fixtures[0]), load(t, fixtures[1])}, "text", Options{Labels: []string{"one.rb", "two.rb"}}); err != nil {
		t.Fatal(err)
	}
	golden(t, "compare.txt", b.Bytes())
}

func TestFormatForPath(t *testing.T) {
	t.Parallel()
	for path, want := range map[string]string{
		"r.json": "json", "r.csv": "csv", "r.md": "markdown", "r.markdown": "markdown", "r.hgrm": "hgrm",
		"r.html": "html", "r.HTM": "html", "r.txt": "text", "report": "text",
	} {
		if got := FormatForPath(path); got != want {
			t.Errorf("FormatForPath(%q): got %q; want %q", path, got, want)
		}
	}
}
