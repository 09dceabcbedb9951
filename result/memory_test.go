package result

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"
)

// runMemory is what a run of the given endpoints holds in the live heap, in bytes, after
// `intervals` intervals of perInterval requests per endpoint, recorded from every shard: the
// Recorder, the run's total (what the summary reads at the end) and a result-file Writer. Latencies
// are log-normal around 2 ms with a wide spread (σ = 1), the service time and the time to first
// byte a little less, so that the histograms fill hundreds of buckets.
func runMemory(endpoints, shards, intervals, perInterval int) uint64 {
	rng := rand.New(rand.NewPCG(41, 42))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	rec := NewRecorder(endpoints, shards)
	total := NewInterval(endpoints)
	fw, err := NewWriter(io.Discard, Header{Endpoints: make([]string, endpoints)})
	if err != nil {
		panic(err)
	}
	ev := &Event{Answered: true, Status: 200, Scheduled: true, BytesIn: 300, BytesOut: 100}
	for i := range intervals {
		for k := range perInterval * endpoints {
			svc := time.Duration(2000*math.Exp(rng.NormFloat64())) * time.Microsecond
			ev.Endpoint = k % endpoints
			ev.Service, ev.TTFB = svc, svc*9/10
			ev.Lag = time.Duration(rng.ExpFloat64()*20) * time.Microsecond
			ev.Latency = svc + ev.Lag
			rec.Record(k/endpoints+k, ev) // every shard sees every endpoint
		}
		iv := rec.Flush(time.Duration(i)*time.Second, time.Duration(i+1)*time.Second)
		total.Merge(iv)
		if err := fw.WriteInterval(iv); err != nil {
			panic(err)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(rec)
	runtime.KeepAlive(total)
	runtime.KeepAlive(fw)
	return after.HeapAlloc - min(after.HeapAlloc, before.HeapAlloc)
}

// TestMemoryPerEndpoint measures what a run keeps per endpoint (a memory measurement, not a timed
// one): 1,000 endpoints × 4 shards, 30 intervals of 20 requests each per endpoint (600 values
// over some 250 buckets in each of an endpoint's histograms), must fit in 100 MB of live heap, so
// that a process of 1,000 endpoints, with its garbage, its connections and its timeline, stays
// within 150 MB. It was about 5.6 MB per endpoint when every endpoint kept dense histograms in
// every shard, and the cap was 100 endpoints.
func TestMemoryPerEndpoint(t *testing.T) {
	// not parallel: it measures the process's heap
	if testing.Short() || raceEnabled {
		t.Skip("records 600,000 requests (and the race detector's memory is not the heap's): CI runs it in its step without -race (.ci/run)")
	}
	const endpoints = 1000
	got := runMemory(endpoints, 4, 30, 20)
	per := got / endpoints
	t.Logf("%d endpoints: %.1f MB live, %.1f KB per endpoint", endpoints, float64(got)/1e6, float64(per)/1e3)
	if got > 100e6 {
		t.Errorf("%d endpoints hold %.1f MB; want at most 100 MB", endpoints, float64(got)/1e6)
	}
	// One endpoint keeps dense histograms in its shards (fast recording) and stays small.
	one := runMemory(1, 4, 30, 20000)
	t.Logf("1 endpoint: %.1f MB live", float64(one)/1e6)
	if one > 12e6 {
		t.Errorf("1 endpoint holds %.1f MB; want at most 12 MB", float64(one)/1e6)
	}
}

// BenchmarkMemoryPerEndpoint reports the live heap a run holds per endpoint (B/endpoint), for 1,
// 100 and 1,000 endpoints in 4 shards; the time it reports is of no interest.
//
//	go test -run '^$' -bench MemoryPerEndpoint -benchtime 1x ./result
func BenchmarkMemoryPerEndpoint(b *testing.B) {
	for _, n := range []int{1, 100, 1000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			var got uint64
			for b.Loop() {
				got = runMemory(n, 4, 10, max(20, 20000/n))
			}
			b.ReportMetric(float64(got)/float64(n), "B/endpoint")
			b.ReportMetric(float64(got)/1e6, "MB")
		})
	}
}

// A result file of MaxEndpoints endpoints reads back; one naming more is refused.
func TestReadMaxEndpoints(t *testing.T) {
	t.Parallel()
	f, err := Read(bytes.NewReader(manyIntervals(t, MaxEndpoints, 3)), "max.rb", nil)
	if err != nil {
		t.Fatalf("%d endpoints: %v", MaxEndpoints, err)
	}
	if got := len(f.Total.Endpoints); got != MaxEndpoints || f.Total.Sent() != 3 {
		t.Errorf("got %d endpoints, %d sent; want %d, 3", got, f.Total.Sent(), MaxEndpoints)
	}
	_, err = Read(bytes.NewReader(manyIntervals(t, MaxEndpoints+1, 1)), "over.rb", nil)
	if want := fmt.Sprintf("%d endpoints; a result file has at most %d", MaxEndpoints+1, MaxEndpoints); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("%d endpoints: got %v; want %q", MaxEndpoints+1, err, want)
	}
}
