package bench

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/rpcbench/rpcbench/engine"
	"github.com/rpcbench/rpcbench/output"
	"github.com/rpcbench/rpcbench/report"
	"github.com/rpcbench/rpcbench/serve/lab"
	"github.com/rpcbench/rpcbench/summary"
)

// methodLab starts a lab server that counts the requests it answers by HTTP method.
func methodLab(t *testing.T) (*lab.Server, func() map[string]int) {
	t.Helper()
	var mu sync.Mutex
	n := map[string]int{}
	s, err := lab.New(lab.Config{}, lab.WithMiddleware(func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			n[r.Method]++
			mu.Unlock()
			h.ServeHTTP(w, r)
		})
	}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, func() map[string]int {
		mu.Lock()
		defer mu.Unlock()
		out := map[string]int{}
		for k, v := range n {
			out[k] = v
		}
		n = map[string]int{}
		return out
	}
}

// TestRunAlone runs a scenario with alone: each endpoint goes by itself, with the whole of the
// load (its own load: when it has one) and nothing of the other, against each target in turn; the
// report has a step per endpoint and a table with a row per endpoint and figure.
func TestRunAlone(t *testing.T) {
	t.Parallel()
	a, counts := methodLab(t)
	b, _ := methodLab(t)
	bench := readBench(t, t.TempDir(), fmt.Sprintf(`targets:
  a: {url: %q}
  b: {url: %q}
scenarios:
  kv:
    model: open
    rate: 200
    requests: 12
    alone: true
    endpoints:
      - {name: get, path: "/v0/entity?id=1", weight: 9}
      - {name: put, method: PUT, path: "/v0/entity?id=1", body: x, weight: 1, load: 100}
`, a.URL(), b.URL()))
	var observed []string
	seen := map[string]map[string]int{}
	out, err := Run(context.Background(), bench, Options{
		Outputs: func(id RunID) output.Set {
			return output.Set{&probe{
				start: func(r output.Run) {
					observed = append(observed, fmt.Sprintf("%s/%s/%g/%d", id.Level, id.Target, r.Plan.Load.Rate, len(r.Plan.Endpoints)))
				},
				stop: func(*engine.Result, *summary.Summary) {
					if id.Target == "a" {
						seen[id.Level] = counts()
					}
				},
			}}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"get alone/a/200/1", "get alone/b/200/1", "put alone at its own 100/s/a/100/1", "put alone at its own 100/s/b/100/1"}
	if strings.Join(observed, " ") != strings.Join(want, " ") {
		t.Errorf("runs: got %v; want %v", observed, want)
	}
	// the requests target a answered during each of its runs: 12 of the one method, none else
	if g, p := seen["get alone"], seen["put alone at its own 100/s"]; g["GET"] != 12 || len(g) != 1 || p["PUT"] != 12 || len(p) != 1 {
		t.Errorf("target a answered %v while get ran alone and %v while put did; want 12 GETs, then 12 PUTs", g, p)
	}
	for _, m := range out.Runs {
		if m.Err != nil || len(m.Summary.Endpoints) != 1 || m.Summary.Requests.Sent != 12 {
			t.Fatalf("%s: %v; want 12 requests of one endpoint", m.RunID, m.Err)
		}
	}
	var text bytes.Buffer
	if err := Render(&text, out, "markdown", report.Options{}); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"## kv · step 1/2: get alone", "## kv · step 2/2: put alone at its own 100/s", "## kv: each alone",
		"| step | figure | a | b | vs a |", "| get alone | throughput |", "| put alone at its own 100/s | throughput |", "|  | p99 |"} {
		if !strings.Contains(text.String(), w) {
			t.Errorf("report lacks %q:\n%s", w, text.String())
		}
	}
	// the plan's stats: are the figures of every side-by-side table, in every format
	out.Bench.Stats = []string{"requests", "p95"}
	for format, want := range map[string][]string{
		"markdown": {"| get alone | requests | 12 | 12 | same requests |", "|  | p95 |", "| requests | 12 | 12 |"},
		"html":     {"<tr><td>requests</td><td class=\"n\">12</td>", "<td>p95</td>"},
		"json":     {`"name": "requests"`, `"name": "p95"`},
	} {
		var b bytes.Buffer
		if err := Render(&b, out, format, report.Options{}); err != nil {
			t.Fatal(err)
		}
		for _, w := range want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s with stats: [requests, p95]: lacks %q:\n%s", format, w, b.String())
			}
		}
		if format == "markdown" && strings.Contains(b.String(), "throughput") {
			t.Errorf("%s with stats: [requests, p95]: shows the throughput, not asked for", format)
		}
	} // --stats (report.Options.Stats) goes before the plan's
	var md bytes.Buffer
	if err := Render(&md, out, "markdown", report.Options{Stats: []string{"max"}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "| get alone | max |") || strings.Contains(md.String(), "| requests |") {
		t.Errorf("--stats max beside the plan's stats: [requests, p95]: want max alone:\n%s", md.String())
	}
}

// One scenario's stats: are its own: the scenario rendered after it shows the default figures,
// in text, Markdown and JSON.
func TestStatsStayWithTheirScenario(t *testing.T) {
	t.Parallel()
	a, _ := methodLab(t)
	b, _ := methodLab(t)
	bench := readBench(t, t.TempDir(), fmt.Sprintf(`targets:
  a: {url: %q}
  b: {url: %q}
scenarios:
  first:
    requests: 5
    connections: 1
    stats: [p50, mean]
  second:
    requests: 5
    connections: 1
`, a.URL()+"/", b.URL()+"/"))
	out, err := Run(context.Background(), bench, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// p90 in a side-by-side table: its ratio words in text and Markdown, a figure named so in JSON
	// (ratio words: "0.8× the p90", or "same p90" when the two runs' p90 are equal)
	for format, m := range map[string][2]string{
		"text": {"═══ second", `(the|same) p90`}, "markdown": {"## second", `(the|same) p90`}, "json": {`"name": "second"`, `"name": "p90"`},
	} {
		var doc bytes.Buffer
		if err := Render(&doc, out, format, report.Options{}); err != nil {
			t.Fatal(err)
		}
		text, p90 := doc.String(), regexp.MustCompile(m[1])
		second := strings.Index(text, m[0])
		if second < 0 {
			t.Fatalf("%s: no second scenario:\n%s", format, text)
		}
		// the first's tables: p50 and mean only; the second's: the default rows, p90 among them
		if before, in := p90.MatchString(text[:second]), p90.MatchString(text[second:]); before || !in {
			t.Errorf("%s: p90 before the second scenario %v, in it %v; want only in it:\n%s", format, before, in, text)
		}
	}
}
