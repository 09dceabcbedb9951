package report

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/rpcbench/rpcbench/compare"
	"github.com/rpcbench/rpcbench/summary"
)

// deltaRuns returns a base of 1000/s and 10 ms over six intervals and a new run, 10% slower and
// 20% later in every interval, with 0.5% errors, both with two endpoints.
func deltaRuns() (base, next *summary.Summary) {
	mk := func(rps, p99 float64, errs uint64, names ...string) *summary.Summary {
		s := &summary.Summary{}
		s.Throughput, s.Latency.P99, s.Latency.P50, s.Latency.P90, s.Latency.Max = rps, p99, p99/2, p99-1, p99+3
		s.Requests.Sent, s.Requests.Errors = 6000, 6*errs
		for _, n := range names {
			e := summary.Endpoint{Name: n}
			e.Throughput, e.Latency.P99, e.Latency.P50 = rps/2, p99, p99/2
			e.Requests.Sent, e.Requests.Errors = 3000, 3*errs
			s.Endpoints = append(s.Endpoints, e)
		}
		for i, d := range []float64{-2.5, -1.5, -0.5, 0.5, 1.5, 2.5} {
			for _, n := range append([]string{""}, names...) {
				s.Timeline = append(s.Timeline, summary.Point{Start: float64(i), End: float64(i + 1), Endpoint: n, Sent: 1000, OK: 1000 - errs, Errors: errs, RPS: rps + d, P50: p99/2 + d/10, P90: p99 - 1 + d/10, P99: p99 + d/10, Max: p99 + 1 + d})
			}
		}
		return s
	}
	return mk(1000, 10, 0, "get", "put"), mk(900, 12, 5, "get", "put")
}

func TestRenderDelta(t *testing.T) {
	t.Parallel()
	base, next := deltaRuns()
	d := compare.NewDelta(base, next, []string{"base.rb", "new.rb"}, 0)
	gates, err := compare.ParseGates("p99:+10%,rps:-15%,errors:+0.5pp")
	if err != nil {
		t.Fatal(err)
	}
	results := d.Check(gates)
	for _, f := range []struct{ format, golden string }{{"text", "delta.txt"}, {"markdown", "delta.md"}, {"json", "delta.json"}} {
		var b strings.Builder
		if err := RenderDelta(&b, d, results, f.format); err != nil {
			t.Fatal(err)
		}
		golden(t, f.golden, []byte(b.String()))
	}
	// 6 intervals against 6, wholly apart: P = 2/C(12,6) = 2/924 = 0.0022, below 0.05/3, the level
	// Holm's method gives the smallest P of three gates
	var b strings.Builder
	if err := RenderDelta(&b, d, results, "json"); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Schema string
		Failed bool
		Gates  []struct{ Failed bool }
		Delta  struct {
			Changes []struct {
				Name    string
				Verdict string
				Test    struct{ P float64 }
			}
		}
	}
	if err := json.Unmarshal([]byte(b.String()), &got); err != nil {
		t.Fatal(err)
	}
	if got.Schema != DeltaSchema || !got.Failed || len(got.Gates) != 3 || !got.Gates[0].Failed || got.Gates[1].Failed || got.Gates[2].Failed {
		t.Errorf("got schema %q, failed %v, gates %+v; want %s, failed by the first gate only", got.Schema, got.Failed, got.Gates, DeltaSchema)
	}
	for _, c := range got.Delta.Changes {
		if c.Name == "p99" && (c.Verdict != "worse" || c.Test.P != 2.0/924) {
			t.Errorf("p99: got %q, P %v; want worse, P 2/924", c.Verdict, c.Test.P)
		}
	}
	var fe *FormatError
	if err := RenderDelta(&b, d, nil, "html"); !errors.As(err, &fe) {
		t.Errorf("html: got %v; want a FormatError", err)
	}
}
