package check

import (
	"testing"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/transport"
)

// A metric reads a JSON number, rounded to a whole number; anything else counts as missing.
func TestMetricRead(t *testing.T) {
	t.Parallel()
	m, err := NewMetric("hop_ns", "State.HopLatency")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		body string
		want int64
		ok   bool
	}{
		{`{"State":{"HopLatency":33329}}`, 33329, true},
		{`{"State":{"HopLatency":3.3e4}}`, 33000, true},
		{`{"State":{"HopLatency":0.5}}`, 1, true}, // rounded half away from zero
		{`{"State":{"HopLatency":0}}`, 0, true},
		{`{"State":{"HopLatency":-1}}`, 0, false},
		{`{"State":{"HopLatency":3600000001}}`, 0, false}, // beyond result.MetricMax
		{`{"State":{"HopLatency":"33329"}}`, 0, false},
		{`{"State":{}}`, 0, false},
		{`not json`, 0, false},
	} {
		if v, ok := m.read([]byte(tc.body)); v != tc.want || ok != tc.ok {
			t.Errorf("%s: got %d, %v; want %d, %v", tc.body, v, ok, tc.want, tc.ok)
		}
	}
	if _, err := NewMetric(" ", "a"); err == nil {
		t.Error("a metric without a name: no error")
	}
	if _, err := NewMetric("x", "a..b"); err == nil {
		t.Error("a metric with a bad path: no error")
	}
}

// VerifyDetail reads the metrics of answers that succeeded only, and once the detail has room,
// without allocating.
func TestVerifyDetailMetrics(t *testing.T) { // not parallel: AllocsPerRun
	m, _ := NewMetric("hop_ns", "n")
	c, _ := JSONExists("", "n")
	v := &Verifier{Checks: []Check{c}, Metrics: []Metric{m}}
	req := &transport.Request{Scheme: "http"}
	ok := &transport.Outcome{Status: 200, Body: []byte(`{"n":42}`)}
	bad := &transport.Outcome{Status: 500, Body: []byte(`{"n":7}`)}
	var d result.Detail
	if cl, _ := v.VerifyDetail(req, ok, true, &d); cl != result.OK || len(d.Metrics) != 1 || d.Metrics[0] != (result.MetricValue{Name: "hop_ns", Value: 42}) {
		t.Fatalf("a good answer: class %v, metrics %+v; want ok and hop_ns 42", cl, d.Metrics)
	}
	d.Reset()
	if cl, _ := v.VerifyDetail(req, bad, true, &d); cl != result.Status || len(d.Metrics) != 0 {
		t.Errorf("a failed answer: class %v, metrics %+v; want status and none read", cl, d.Metrics)
	}
	if n := testing.AllocsPerRun(100, func() { d.Reset(); _, _ = v.VerifyDetail(req, ok, true, &d) }); n != 0 {
		t.Errorf("reading a metric allocates %v times; want 0", n)
	}
	if (&Verifier{Metrics: []Metric{m}}).Empty() || !(&Verifier{}).Empty() {
		t.Error("Empty: a verifier with a metric must keep the bodies; one without anything need not")
	}
}
