package promrw

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/prometheus/prometheus/model/histogram"

	"github.com/rpcbench/rpcbench/engine"
	"github.com/rpcbench/rpcbench/output"
	"github.com/rpcbench/rpcbench/result"
)

// Latencies of 1 µs, 1 ms twice and 2 ms (exact in the HDR histograms) fall in the native buckets
// ceil(log2(seconds)·8): -159, -79 and -71 (log2 1e-6 = -19.932, log2 1e-3 = -9.966, log2 2e-3 =
// -8.966); as Prometheus's histogram: spans at offsets -159, 79, 7 of one bucket each, counts
// delta-encoded 1, +1, -1, and it passes Prometheus's own validation.
func TestNativeHistogram(t *testing.T) {
	iv := result.NewInterval(1)
	iv.End = time.Second
	for _, us := range []int64{1, 1000, 1000, 2000} {
		iv.Endpoints[0].Latency.RecordValue(us) //nolint:errcheck // in range
	}
	s := output.NewSeries(output.Run{Endpoints: []string{"a"}})
	s.Natives = true
	var n *output.Native
	for _, sm := range s.Tick(&engine.Tick{Interval: iv}) {
		if sm.Kind == output.Histogram {
			n = sm.Native
		}
	}
	if n == nil {
		t.Fatal("no native histogram among the samples")
	}
	h := native(n)
	want := &histogram.Histogram{Schema: 3, Count: 4, Sum: 4001e-6,
		PositiveSpans: []histogram.Span{{Offset: -159, Length: 1}, {Offset: 79, Length: 1}, {Offset: 7, Length: 1}}, PositiveBuckets: []int64{1, 1, -1}}
	if h.Schema != want.Schema || h.Count != want.Count || math.Abs(h.Sum-want.Sum) > 1e-12 ||
		!slices.Equal(h.PositiveSpans, want.PositiveSpans) || !slices.Equal(h.PositiveBuckets, want.PositiveBuckets) {
		t.Errorf("got %+v\nwant %+v", h, want)
	}
	if err := h.Validate(); err != nil {
		t.Errorf("Prometheus refuses it: %v", err)
	}
}
