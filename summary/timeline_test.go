package summary

import (
	"runtime"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/result"
)

func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestTimelineAllocs adds 200 intervals: the timeline grows by its points, and sums the endpoints
// of each interval into one reused Counts instead of new histograms per interval.
func TestTimelineAllocs(t *testing.T) {
	// not parallel: it measures the process's allocations
	iv := result.NewInterval(2)
	iv.Endpoints[0].Sent, iv.Endpoints[0].OK = 3, 3
	result.RecordDuration(iv.Endpoints[0].Latency, 4*time.Millisecond)
	counts := allocated(func() { _ = result.NewCounts() })
	tl := Timeline{Points: make([]Point, 0, 600)} // the points' own memory apart
	got := allocated(func() {
		for i := range 200 {
			iv.Start, iv.End = time.Duration(i)*time.Second, time.Duration(i+1)*time.Second
			tl.Add(iv, []string{"a", "b"})
		}
	})
	if len(tl.Points) != 600 || tl.Points[0].Sent != 3 || tl.Points[0].P50 != 4.001 {
		t.Fatalf("got %d points, first %+v; want 600, the first with 3 sent and p50 4.001 ms (4 ms at 3 digits)", len(tl.Points), tl.Points[0])
	}
	if limit := 10 * counts; got > limit { // a new Counts per interval would be 200 of them
		t.Errorf("got %d bytes allocated for 200 intervals; want at most %d (ten empty Counts: the reused one and its growth)", got, limit)
	}
}

// A run of more than TimelineEndpoints endpoints keeps the points of all endpoints together only,
// unless Every; a run of at most that many keeps each endpoint's too.
func TestTimelineEndpointsBound(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		endpoints int
		every     bool
		want      int // points per interval
	}{
		{TimelineEndpoints, false, 1 + TimelineEndpoints},
		{TimelineEndpoints + 1, false, 1},
		{TimelineEndpoints + 1, true, 2 + TimelineEndpoints},
	} {
		iv := result.NewInterval(tc.endpoints)
		iv.Start, iv.End = 0, time.Second
		tl := Timeline{Every: tc.every}
		tl.Add(iv, nil)
		tl.Add(iv, nil)
		if got := len(tl.Points); got != 2*tc.want {
			t.Errorf("%d endpoints, every %v: %d points for 2 intervals; want %d", tc.endpoints, tc.every, got, 2*tc.want)
		}
	}
}

// Each point holds the interval's service time beside its latency, and the send lag of all
// endpoints together in the point of all endpoints.
func TestTimelineServiceAndSendLag(t *testing.T) {
	t.Parallel()
	iv := result.NewInterval(2)
	iv.Start, iv.End = 0, time.Second
	for i := range 10 { // endpoint 0: service 700 µs nine times and 900 µs once, latency 1.5 ms
		c := iv.Endpoints[0]
		c.Sent++
		result.RecordDuration(c.Latency, 1500*time.Microsecond)
		result.RecordDuration(c.Service, map[bool]time.Duration{true: 900, false: 700}[i == 9]*time.Microsecond)
		result.RecordDuration(iv.SendLag, 300*time.Microsecond)
	}
	var tl Timeline
	tl.Add(iv, []string{"a", "b"})
	all, a, b := tl.Points[0], tl.Points[1], tl.Points[2]
	if all.SvcP50 != 0.7 || all.SvcP99 != 0.9 || all.P50 != 1.5 || all.LagP99 != 0.3 {
		t.Errorf("all endpoints: %+v; want service p50 0.7 and p99 0.9 ms, latency p50 1.5 ms, send lag p99 0.3 ms", all)
	}
	if a.SvcP50 != 0.7 || a.SvcP99 != 0.9 || a.LagP99 != 0 {
		t.Errorf("endpoint a: %+v; want service p50 0.7 and p99 0.9 ms, no send lag of its own", a)
	}
	if b.SvcP50 != 0 || b.SvcP99 != 0 {
		t.Errorf("endpoint b, which sent nothing: %+v; want no service time", b)
	}
}
