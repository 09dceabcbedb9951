package result

import (
	"math/rand/v2"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Every interval a Recorder flushes, and the run's total merged from them, holds exactly the events
// recorded in it: the counts, the bytes and every bucket of the latency, service and send-lag
// histograms, checked against hdrhistogram-go's own Histogram fed the same values (an independent
// accounting). The intervals alternate between wide and narrow spreads of values at different
// heights, so a shard histogram emptied only partly, or merged over less than it holds, leaves a
// bucket counted in the wrong interval. Both forms of the shards' histograms are covered: dense
// (1 endpoint × 4 shards) and sparse (3 endpoints × 4 shards).
func TestFlushMatchesRecorded(t *testing.T) {
	t.Parallel()
	for _, endpoints := range []int{1, 3} {
		rec := NewRecorder(endpoints, 4)
		if dense := rec.shards[0].cur.Endpoints[0].Latency.Dense(); dense != (endpoints == 1) {
			t.Fatalf("%d endpoints: shard histograms dense = %v", endpoints, dense)
		}
		rng := rand.New(rand.NewPCG(uint64(endpoints), 7))
		total := NewInterval(endpoints)
		refAll := [3]*hdr.Histogram{newRef(), newRef(), newRef()}
		var sentAll, bytesAll uint64
		for k := range 8 {
			// interval k: values from base up to base+spread µs
			base := []int64{1, 5000, 200, 3_000_000, 40, 90_000, 1, 700}[k]
			spread := []int64{100_000, 50, 3_000_000, 10, 400, 1, 20_000_000, 0}[k]
			n := 200 + rng.IntN(300)
			ref := [3]*hdr.Histogram{newRef(), newRef(), newRef()} // latency, service, send lag
			var bytesIn uint64
			for i := range n {
				lat := base + rng.Int64N(spread+1)
				svc := max(lat-rng.Int64N(base+1), 1)
				lag := 1 + rng.Int64N(spread/4+1)
				in := rng.Int64N(5000)
				rec.Record(i, &Event{Endpoint: i % endpoints, Latency: time.Duration(lat) * time.Microsecond,
					Service: time.Duration(svc) * time.Microsecond, Lag: time.Duration(lag) * time.Microsecond, Scheduled: true,
					Answered: true, Status: 200, BytesIn: in})
				for j, v := range []int64{lat, svc, lag} {
					ref[j].RecordValue(v)
					refAll[j].RecordValue(v)
				}
				bytesIn += uint64(in)
			}
			sentAll += uint64(n)
			bytesAll += bytesIn
			iv := rec.Flush(time.Duration(k)*time.Second, time.Duration(k+1)*time.Second)
			c := iv.Total()
			if c.Sent != uint64(n) || c.OK != uint64(n) || c.Status[200] != uint64(n) || c.BytesIn != bytesIn {
				t.Fatalf("%d endpoints, interval %d: sent %d, ok %d, 200s %d, bytes in %d; want %d requests, %d bytes",
					endpoints, k, c.Sent, c.OK, c.Status[200], c.BytesIn, n, bytesIn)
			}
			sameAsRef(t, endpoints, k, "latency", c.Latency, ref[0])
			sameAsRef(t, endpoints, k, "service", c.Service, ref[1])
			sameAsRef(t, endpoints, k, "send lag", iv.SendLag, ref[2])
			total.Merge(iv)
		}
		c := total.Total()
		if c.Sent != sentAll || c.BytesIn != bytesAll {
			t.Fatalf("%d endpoints, run: sent %d, bytes in %d; want %d, %d", endpoints, c.Sent, c.BytesIn, sentAll, bytesAll)
		}
		sameAsRef(t, endpoints, -1, "latency", c.Latency, refAll[0])
		sameAsRef(t, endpoints, -1, "service", c.Service, refAll[1])
		sameAsRef(t, endpoints, -1, "send lag", total.SendLag, refAll[2])
		if iv := rec.Flush(8*time.Second, 9*time.Second); iv.Total().Sent != 0 || iv.Total().Latency.TotalCount() != 0 || iv.SendLag.TotalCount() != 0 {
			t.Fatalf("%d endpoints: an interval with nothing recorded flushed %d requests, %d latencies, %d send lags",
				endpoints, iv.Total().Sent, iv.Total().Latency.TotalCount(), iv.SendLag.TotalCount())
		}
	}
}

func newRef() *hdr.Histogram { return hdr.New(HistMin, HistMax, HistSigFigs) }

// sameAsRef fails unless h holds ref's counts bucket by bucket and answers its percentiles, mean,
// min and max.
func sameAsRef(t *testing.T, endpoints, interval int, name string, h *Histogram, ref *hdr.Histogram) {
	t.Helper()
	var want []hdr.Bar
	for _, b := range ref.Distribution() {
		if b.Count != 0 {
			want = append(want, b)
		}
	}
	got := h.Distribution()
	same := len(got) == len(want)
	for i := 0; same && i < len(got); i++ {
		same = got[i].From == want[i].From && got[i].Count == want[i].Count
	}
	if !same || h.TotalCount() != ref.TotalCount() {
		t.Fatalf("%d endpoints, interval %d, %s: %d values in %d buckets; want %d in %d (first buckets %v, want %v)",
			endpoints, interval, name, h.TotalCount(), len(got), ref.TotalCount(), len(want), head(got), head(want))
	}
	for _, q := range []float64{0, 50, 90, 99, 99.9, 100} {
		if g, w := h.ValueAtQuantile(q), ref.ValueAtQuantile(q); g != w {
			t.Fatalf("%d endpoints, interval %d, %s: p%v = %d; want %d", endpoints, interval, name, q, g, w)
		}
	}
	if h.Min() != ref.Min() || h.Max() != ref.Max() || h.Mean() != ref.Mean() {
		t.Fatalf("%d endpoints, interval %d, %s: min %d max %d mean %v; want %d %d %v",
			endpoints, interval, name, h.Min(), h.Max(), h.Mean(), ref.Min(), ref.Max(), ref.Mean())
	}
}

func head(b []hdr.Bar) []hdr.Bar { return b[:min(len(b), 3)] }
