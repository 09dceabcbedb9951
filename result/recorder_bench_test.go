package result

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkRecord is the per-request cost of the recorder: three histogram updates, a status count
// and an uncontended shard lock.
//
//	go test -run '^$' -bench 'Record|Flush' ./result
func BenchmarkRecord(b *testing.B) {
	r := NewRecorder(1, 8)
	ev := &Event{Latency: time.Millisecond, Service: time.Millisecond, TTFB: 900 * time.Microsecond, Answered: true, Status: 200, Scheduled: true}
	b.ReportAllocs()
	for b.Loop() {
		r.Record(0, ev)
	}
}

// BenchmarkRecordChecks is BenchmarkRecord with the outcomes of three checks, all passing: what a
// request pays to have each check's passes counted.
func BenchmarkRecordChecks(b *testing.B) {
	r := NewRecorder(1, 8)
	ev := &Event{Latency: time.Millisecond, Service: time.Millisecond, TTFB: 900 * time.Microsecond, Answered: true, Status: 200, Scheduled: true,
		Checks: []CheckResult{{Name: `body contains "ok"`}, {Name: "json result exists"}, {Name: "chain 1: json result == 0x1"}}}
	b.ReportAllocs()
	for b.Loop() {
		r.Record(0, ev)
	}
}

// BenchmarkFlush is the once-per-interval cost of swapping and merging 8 shards.
func BenchmarkFlush(b *testing.B) {
	r := NewRecorder(1, 8)
	ev := &Event{Latency: time.Millisecond, Service: time.Millisecond, Answered: true, Status: 200, Scheduled: true}
	b.ReportAllocs()
	for b.Loop() {
		for i := range 8 {
			r.Record(i, ev)
		}
		r.Flush(0, time.Second)
	}
}

// BenchmarkRecordParallel records from as many goroutines as GOMAXPROCS into a recorder with one
// shard per processor (procs) or four (4procs): what the shards buy against contention.
func BenchmarkRecordParallel(b *testing.B) {
	for _, per := range []int{1, 4} {
		b.Run(fmt.Sprintf("%dprocs", per), func(b *testing.B) {
			r := NewRecorder(1, per*runtime.GOMAXPROCS(0))
			var ids atomic.Int64
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				id := int(ids.Add(1))
				ev := &Event{Latency: time.Millisecond, Service: time.Millisecond, TTFB: 900 * time.Microsecond, Answered: true, Status: 200, Scheduled: true}
				for pb.Next() {
					r.Record(id, ev)
				}
			})
		})
	}
}

// BenchmarkRecordManyEndpoints is the per-request cost of the recorder for a plan of 1,000
// endpoints, whose shards keep sparse histograms: log-normal latencies spread over hundreds of
// buckets, each request to the next endpoint, a Flush every 2,000 requests (one interval at
// 2,000/s).
func BenchmarkRecordManyEndpoints(b *testing.B) {
	const endpoints = 1000
	r := NewRecorder(endpoints, 2)
	rng := rand.New(rand.NewPCG(1, 2))
	evs := make([]Event, 4096)
	for i := range evs {
		svc := time.Duration(2000*math.Exp(rng.NormFloat64())) * time.Microsecond
		evs[i] = Event{Endpoint: i % endpoints, Latency: svc + 20*time.Microsecond, Service: svc, TTFB: svc * 9 / 10, Answered: true, Status: 200, Scheduled: true}
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		r.Record(i, &evs[i%len(evs)])
		if i++; i%2000 == 0 {
			r.Flush(0, time.Second)
		}
	}
}
