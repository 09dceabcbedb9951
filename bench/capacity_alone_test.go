package bench

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/rpcbench/rpcbench/output"
	"github.com/rpcbench/rpcbench/report"
	"github.com/rpcbench/rpcbench/serve/lab"
)

// A capacity scenario with alone: true searches each endpoint alone, one search per endpoint and
// target: each sends to its own path only, every step of it gets a result file of its own named
// SCENARIO.stepK.capacityN.TARGET, and the reports give each endpoint's searches a section of
// their own, with the knee chart of each search on the HTML page. The SLO is one a running lab
// server cannot miss and max is two steps above start, so that each search is exactly 20, 40 and
// 80/s, then 80/s twice more to confirm it.
func TestCapacityEachAlone(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	byPath := map[string]int{}
	srv, err := lab.New(lab.Config{}, lab.WithMiddleware(func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			byPath[r.URL.Path]++
			mu.Unlock()
			h.ServeHTTP(w, r)
		})
	}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	bench := readBench(t, t.TempDir(), fmt.Sprintf(`targets:
  a: {url: %q}
scenarios:
  each:
    alone: true
    endpoints:
      - {name: put, method: PUT, path: /put, body: x, weight: 1}
      - {name: get, path: /get, weight: 9}
    capacity: {slo: "errors<1%%", start: 20, max: 80, step: 200ms, warmup: 0s, max_steps: 5}
`, srv.URL()))
	var stems []string
	sent := map[string]uint64{} // by path, as the steps' own summaries count them
	out, err := Run(context.Background(), bench, Options{
		Outputs: func(id RunID) output.Set {
			stems = append(stems, id.FileStem())
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Capacity) != 2 || len(out.Runs) != 0 {
		t.Fatalf("got %d searches and %d runs; want 2 searches, put's and get's", len(out.Capacity), len(out.Runs))
	}
	for i, c := range out.Capacity {
		if c.Err != nil {
			t.Fatalf("%s: %v", c, c.Err)
		}
		if want := []string{"put alone", "get alone"}[i]; c.Level != want || c.Step != i || c.Steps != 2 {
			t.Errorf("search %d: %q, step %d of %d; want %q, step %d of 2", i, c.Level, c.Step, c.Steps, want, i)
		}
		var rates []string
		for _, st := range c.Result.Steps {
			rates = append(rates, fmt.Sprint(st.Rate))
			eps := st.Summary.Endpoints
			if len(eps) != 1 || eps[0].Name != []string{"put", "get"}[i] {
				t.Fatalf("%s: a step sent to %v; want its endpoint alone", c, eps)
			}
			sent["/"+eps[0].Name] += st.Summary.Requests.Sent
		}
		if strings.Join(rates, " ") != "20 40 80 80 80" || c.Result.Best == nil || c.Result.Best.Rate != 80 {
			t.Errorf("%s: steps %v; want 20 40 80 80 80, 80/s sustained", c, rates)
		}
	}
	mu.Lock()
	got := fmt.Sprint(byPath)
	mu.Unlock()
	// 4 + 8 + 16 + 16 + 16 arrivals of 200 ms each, per search: 60 to each path, none elsewhere
	if want := "map[/get:60 /put:60]"; got != want || sent["/put"] != 60 || sent["/get"] != 60 {
		t.Errorf("the server got %s, the steps counted %v; want %s", got, sent, want)
	}
	var want []string
	for k := 1; k <= 2; k++ {
		for n := 1; n <= 5; n++ {
			want = append(want, fmt.Sprintf("each.step%d.capacity%d.a", k, n))
		}
	}
	if strings.Join(stems, " ") != strings.Join(want, " ") {
		t.Errorf("result files %v; want %v", stems, want)
	}
	for _, format := range []string{"text", "markdown", "html", "json"} {
		var buf bytes.Buffer
		if err := Render(&buf, out, format, report.Options{}); err != nil {
			t.Fatal(err)
		}
		want := map[string][]string{
			"text": {"═══ each · step 1/2: put alone (capacity search) ═══", "═══ each · step 2/2: get alone (capacity search) ═══",
				"Capacity of a, put alone, against errors<1%", "Capacity of a, get alone, against errors<1%", "max sustainable: at least 80/s"},
			"markdown": {"## each · step 1/2: put alone (capacity search)", "## each · step 2/2: get alone (capacity search)", "Capacity of a, get alone, against errors<1%:"},
			"html": {"<h2>each · step 1/2: put alone (capacity search)</h2>", "<h2>each · step 2/2: get alone (capacity search)</h2>",
				"<figcaption>each (put alone) on a: latency against rate", "<figcaption>each (get alone) on a: latency against rate", "achieved 80/s (pass)</title>"},
			"json": {`"step": 1,`, `"level": "put alone"`, `"step": 2,`, `"level": "get alone"`, `"max_sustainable_rps": 80`},
		}[format]
		for _, w := range want {
			if !strings.Contains(buf.String(), w) {
				t.Errorf("%s report lacks %q:\n%s", format, w, buf.String())
			}
		}
		if format == "html" && strings.Count(buf.String(), "<svg") != 2 {
			t.Errorf("html report has %d charts; want 2, one per search", strings.Count(buf.String(), "<svg"))
		}
	}
}
