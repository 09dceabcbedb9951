package summary

import (
	"runtime"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/result"
)

// Adding an interval to the timeline costs its points and nothing else, not a new Counts (three
// histograms) per interval: the memory of a long run stays flat.
func TestTimelineAddAllocatesLittle(t *testing.T) {
	iv := result.NewInterval(1)
	for i := range 1000 {
		result.RecordDuration(iv.Endpoints[0].Latency, time.Duration(i)*time.Microsecond)
	}
	iv.Endpoints[0].Sent = 1000
	var tl Timeline
	const n = 200
	tl.Points = make([]Point, 0, n+1)
	tl.Add(iv, nil) // the first Add makes what later ones reuse
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := range n {
		iv.Start, iv.End = time.Duration(i+1)*time.Second, time.Duration(i+2)*time.Second
		tl.Add(iv, nil)
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / n; per > 64 {
		t.Errorf("Timeline.Add allocated %d bytes per interval; want at most 64 (the points are made beforehand)", per)
	}
}
