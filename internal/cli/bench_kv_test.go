package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rpcbench/rpcbench/serve/kv"
)

// A plan against two prefilled key-value stores whose GETs ask for ids beyond the prefill counts
// the misses as the write-up does — a 404 is a miss, not an error — in total and per endpoint,
// with their share, and the transfer/s row is the bytes read over the run's length. The stores
// hold ids 0 … 99; the endpoints take turns (no weights), so 300 requests are 150 GETs of ids 0 …
// 149 ({{seq}} counts the GETs alone) and 150 PUTs of id 0, a key that exists: 50 misses exactly,
// a third of the GETs and a sixth of the requests, and no error.
func TestBenchCountsMisses(t *testing.T) {
	t.Parallel()
	var urls []string
	for range 2 {
		s, err := kv.New(context.Background(), kv.Config{Prefill: kv.Prefill{Keys: 100}, NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		urls = append(urls, s.URL())
	}
	dir := t.TempDir()
	planFile := filepath.Join(dir, "kv.yaml")
	text := fmt.Sprintf(`targets:
  a: {url: %q}
  b: {url: %q}
stats: [rps, transfer/s, requests, errors, misses, miss-rate]
scenarios:
  mix:
    connections: 3
    requests: 300
    endpoints:
      - {name: get, path: "/v0/entity?id={{seq}}"}
      - {name: put, method: PUT, path: "/v0/entity?id=0", body: x}
    checks: {status: 2xx, miss: 404}
`, urls[0]+"/", urls[1]+"/")
	if err := os.WriteFile(planFile, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := Main([]string{"bench", "--quiet", "--format", "json", "--out-dir", filepath.Join(dir, "run"), planFile}, strings.NewReader(""), &out, &errb); code != ExitOK {
		t.Fatalf("exit %d:\n%s\n%s", code, out.String(), errb.String())
	}
	var rep struct {
		Scenarios []struct {
			Steps []struct {
				Report struct {
					Runs []struct {
						Requests struct {
							Sent, OK, Errors, Misses uint64
						} `json:"requests"`
						Bytes     struct{ In uint64 } `json:"bytes"`
						DurationS float64             `json:"duration_s"`
					} `json:"runs"`
					Comparison struct {
						Metrics   []metricJSON `json:"metrics"`
						Endpoints []struct {
							Name    string       `json:"name"`
							Metrics []metricJSON `json:"metrics"`
						} `json:"endpoints"`
					} `json:"comparison"`
				} `json:"report"`
			} `json:"steps"`
		} `json:"scenarios"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("%v:\n%s", err, out.String())
	}
	r := rep.Scenarios[0].Steps[0].Report
	if len(r.Runs) != 2 {
		t.Fatalf("%d runs; want a and b", len(r.Runs))
	}
	for i, run := range r.Runs {
		if q := run.Requests; q.Sent != 300 || q.OK != 300 || q.Errors != 0 || q.Misses != 50 {
			t.Errorf("target %d: %+v; want 300 sent, all ok, 50 misses, no error", i, q)
		}
	}
	want := map[string][2]float64{"misses": {50, 50}, "miss rate": {100 * 50.0 / 300, 100 * 50.0 / 300}, "requests": {300, 300}, "error rate": {0, 0},
		// wrk's Transfer/sec: the bytes read over the run's length, as the run's own figures say
		"transfer/s": {float64(r.Runs[0].Bytes.In) / r.Runs[0].DurationS, float64(r.Runs[1].Bytes.In) / r.Runs[1].DurationS}}
	checkMetrics(t, "totals", r.Comparison.Metrics, want)
	if len(r.Comparison.Endpoints) != 2 {
		t.Fatalf("endpoints %+v; want get and put", r.Comparison.Endpoints)
	}
	for _, e := range r.Comparison.Endpoints {
		w := map[string][2]float64{"misses": {50, 50}, "miss rate": {100 * 50.0 / 150, 100 * 50.0 / 150}, "requests": {150, 150}}
		if e.Name == "put" {
			w = map[string][2]float64{"misses": {0, 0}, "miss rate": {0, 0}, "requests": {150, 150}}
		}
		checkMetrics(t, e.Name, e.Metrics, w)
	}
	md, err := os.ReadFile(filepath.Join(dir, "run", "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"| misses | 50 | 50 | same misses |", "| miss rate | 16.67% | 16.67% | same miss rate |", "|  | misses | 50 | 50 | same misses |", "|  | miss rate | 33.33% | 33.33% |"} {
		if !strings.Contains(string(md), w) {
			t.Errorf("report.md lacks %q:\n%s", w, md)
		}
	}
	if !regexp.MustCompile(`\| transfer/s \| [0-9.]+ (KiB|MiB)/s \| [0-9.]+ (KiB|MiB)/s \|`).Match(md) {
		t.Errorf("report.md: no transfer/s row in binary units per second:\n%s", md)
	}
	// one run's own report says it too
	for format, w := range map[string]string{"text": "  misses      50 (16.67% of the requests): status 404, counted as ok, not failed\n",
		"markdown": "| misses | 50 (16.67% of the requests): status 404, counted as ok, not failed |"} {
		out.Reset()
		if code := Main([]string{"report", "--format", format, filepath.Join(dir, "run", "mix.b.rb")}, strings.NewReader(""), &out, &errb); code != ExitOK || !strings.Contains(out.String(), w) {
			t.Errorf("report --format %s: exit %d; want %q in:\n%s%s", format, code, w, out.String(), errb.String())
		}
	}
}

type metricJSON struct {
	Name   string     `json:"name"`
	Unit   string     `json:"unit"`
	Values []*float64 `json:"values"`
}

// checkMetrics checks the values of the metrics of ms named in want, for both runs.
func checkMetrics(t *testing.T, of string, ms []metricJSON, want map[string][2]float64) {
	t.Helper()
	found := 0
	for _, m := range ms {
		w, ok := want[m.Name]
		if !ok {
			continue
		}
		found++
		for i := range 2 {
			if m.Values[i] == nil || math.Abs(*m.Values[i]-w[i]) > 1e-6*math.Max(1, w[i]) {
				t.Errorf("%s: %s of run %d: %v; want %v", of, m.Name, i, m.Values[i], w[i])
			}
		}
	}
	if found != len(want) {
		t.Errorf("%s: %d of the figures %v; want all of them", of, found, want)
	}
}
