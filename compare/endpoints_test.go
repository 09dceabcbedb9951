package compare

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/rpcbench/rpcbench/summary"
)

// endpoint returns an endpoint's figures: answers/s, requests sent and failed, p50 and p99 in ms.
func endpoint(name string, rps float64, sent, errors uint64, p50, p99 float64) summary.Endpoint {
	e := summary.Endpoint{Name: name}
	e.Throughput = rps
	e.Requests.Sent, e.Requests.Errors = sent, errors
	e.Latency.P50, e.Latency.P99 = p50, p99
	return e
}

// Two runs of known figures per endpoint give known ratios, endpoint by endpoint, matched by name.
func TestEndpointRows(t *testing.T) {
	t.Parallel()
	a, b, c := &summary.Summary{}, &summary.Summary{}, &summary.Summary{}
	a.Endpoints = []summary.Endpoint{endpoint("get", 100, 100, 2, 4, 20), endpoint("put", 50, 50, 0, 10, 40)}
	b.Endpoints = []summary.Endpoint{endpoint("put", 25, 25, 5, 10, 10), endpoint("get", 150, 150, 3, 2, 30), endpoint("del", 10, 10, 0, 1, 2)}
	c.Endpoints = []summary.Endpoint{endpoint("get", 100, 100, 2, 4, 20)}
	cmp := New([]*summary.Summary{a, b, c}, []string{"a", "b", "c"})
	var names []string
	for _, e := range cmp.Endpoints {
		names = append(names, e.Name)
	}
	if got, want := names, []string{"get", "put", "del"}; len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("endpoints: got %v; want %v (the first run's order, then the new ones)", got, want)
	}
	tests := []struct {
		endpoint int
		metric   string
		run      int
		value    float64 // NaN: not in the run
		ratio    float64 // NaN: no ratio
		phrase   string
	}{
		{0, "throughput", 1, 150, 1.5, "1.5× more requests/s"}, // 150/100
		{0, "error rate", 1, 2, 1, "same error rate"},          // 3 of 150 and 2 of 100: both 2%
		{0, "p50", 1, 2, 0.5, "0.50× the p50"},                 // 2 ms against 4 ms
		{0, "p99", 1, 30, 1.5, "1.5× the p99"},                 // 30 ms against 20 ms
		{1, "throughput", 1, 25, 0.5, "0.50× the requests/s"},  // 25/50
		{1, "error rate", 1, 20, math.NaN(), "n/a (first run: 0)"},
		{1, "p99", 1, 10, 0.25, "0.25× the p99"},
		{1, "p99", 2, math.NaN(), math.NaN(), "n/a (not in this run)"},        // c has no put
		{2, "p99", 1, 2, math.NaN(), "n/a (not in the first run)"},            // a has no del
		{2, "throughput", 0, math.NaN(), math.NaN(), "n/a (not in this run)"}, // nor its own ratio
	}
	for _, tc := range tests {
		m, ok := Find(cmp.Endpoints[tc.endpoint].Metrics, tc.metric)
		if !ok {
			t.Fatalf("no metric %q", tc.metric)
		}
		name := cmp.Endpoints[tc.endpoint].Name
		if math.IsNaN(tc.value) != m.missing(tc.run) || !math.IsNaN(tc.value) && m.Values[tc.run] != tc.value {
			t.Errorf("%s %s run %d: got value %v (missing %v); want %v", name, tc.metric, tc.run, m.Values[tc.run], m.missing(tc.run), tc.value)
		}
		if r := m.Ratios[tc.run]; math.IsNaN(r) != math.IsNaN(tc.ratio) || !math.IsNaN(r) && math.Abs(r-tc.ratio) > 1e-12 {
			t.Errorf("%s %s run %d: got ratio %v; want %v", name, tc.metric, tc.run, r, tc.ratio)
		}
		if got := m.Phrase(tc.run); got != tc.phrase {
			t.Errorf("%s %s run %d: got %q; want %q", name, tc.metric, tc.run, got, tc.phrase)
		}
	}
}

// Runs of one endpoint each have no endpoint rows: their totals say it all.
func TestNoEndpointRowsForOneEndpoint(t *testing.T) {
	t.Parallel()
	a, b := &summary.Summary{}, &summary.Summary{}
	a.Endpoints = []summary.Endpoint{endpoint("default", 100, 100, 0, 1, 2)}
	b.Endpoints = []summary.Endpoint{endpoint("default", 200, 200, 0, 1, 2)}
	if got := New([]*summary.Summary{a, b}, nil).Endpoints; got != nil {
		t.Errorf("got endpoint rows %+v; want none", got)
	}
}

// In JSON a ratio without meaning and a figure a run lacks are null, never NaN (which JSON cannot hold).
func TestMetricJSON(t *testing.T) {
	t.Parallel()
	m := metricOf(p99, []*summary.Stats{nil, {Latency: summary.Percentiles{P99: 3}}})
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), `{"name":"p99","unit":"ms","better":"lower","values":[null,3],"ratios":[null,null]}`; got != want {
		t.Errorf("got %s; want %s", got, want)
	}
}
