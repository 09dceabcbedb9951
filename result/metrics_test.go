package result

import "testing"

// Answer metrics are recorded per endpoint and name, merged across shards, and emptied by each
// Flush: the second interval holds only what was recorded after the first.
func TestRecorderAnswerMetrics(t *testing.T) {
	t.Parallel()
	r := NewRecorder(2, 2)
	rec := func(shard, ep int, vs ...MetricValue) { r.Record(shard, &Event{Endpoint: ep, Metrics: vs}) }
	rec(0, 0, MetricValue{Name: "hop", Value: 100})
	rec(1, 0, MetricValue{Name: "hop", Value: 300}, MetricValue{Name: "rows", Missing: true})
	rec(1, 1, MetricValue{Name: "hop", Missing: true})
	iv := r.Flush(0, 1)
	hop := iv.Endpoints[0].Metrics["hop"]
	if hop == nil || hop.Values.TotalCount() != 2 || hop.Values.Min() != 100 || hop.Values.Max() != 300 || hop.Missing != 0 {
		t.Fatalf("endpoint 0, hop: %+v; want 100 and 300 from two shards, none missing", hop)
	}
	if got := iv.Endpoints[0].MetricNames(); len(got) != 2 || got[0] != "hop" || got[1] != "rows" {
		t.Errorf("endpoint 0: names %v; want [hop rows]", got)
	}
	if m := iv.Endpoints[1].Metrics["hop"]; m == nil || m.Missing != 1 || m.Values.TotalCount() != 0 {
		t.Errorf("endpoint 1, hop: %+v; want 1 missing, no values", m)
	}
	rec(0, 0, MetricValue{Name: "hop", Value: 50})
	iv = r.Flush(1, 2)
	hop = iv.Endpoints[0].Metrics["hop"]
	if hop == nil || hop.Values.TotalCount() != 1 || hop.Values.Max() != 50 {
		t.Errorf("second interval, hop: %+v; want only the 50 recorded after the first Flush", hop)
	}
	if names := iv.Endpoints[1].MetricNames(); len(names) != 0 {
		t.Errorf("second interval, endpoint 1: names %v; want none (nothing recorded)", names)
	}
}
