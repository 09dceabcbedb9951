package result

import (
	"testing"
	"time"
)

// Recording a request allocates nothing, whether it succeeded or failed with a status or a check's
// name, nor does closing an interval of 8 shards: the per-request path of a run stays at 0 allocs.
// (Run without -race: the race detector allocates.)
func TestRecordAllocs(t *testing.T) {
	r := NewRecorder(2, 8)
	conn := &ConnEvent{Connect: 150 * time.Microsecond}
	for _, tc := range []struct {
		name string
		ev   Event
	}{
		{"ok", Event{Endpoint: 1, Latency: time.Millisecond, Service: 900 * time.Microsecond, TTFB: 800 * time.Microsecond,
			Answered: true, Status: 200, BytesIn: 300, BytesOut: 100, Lag: 50 * time.Microsecond, Scheduled: true}},
		{"status failure", Event{Latency: time.Millisecond, Service: time.Millisecond, Answered: true, Status: 503, Class: Status}},
		{"check failure", Event{Latency: time.Millisecond, Service: time.Millisecond, Answered: true, Status: 200, Class: Check, Err: Exact("has result")}},
		{"new connection", Event{Latency: time.Millisecond, Service: time.Millisecond, Answered: true, Status: 200, Conn: conn}},
	} {
		shard := 0
		if n := testing.AllocsPerRun(1000, func() { r.Record(shard, &tc.ev); shard++ }); n != 0 {
			t.Errorf("Record (%s): %v allocations; want 0", tc.name, n)
		}
	}
}

func TestFlushAllocs(t *testing.T) {
	r := NewRecorder(2, 8)
	ev := &Event{Latency: time.Millisecond, Service: time.Millisecond, Answered: true, Status: 200, Scheduled: true}
	fail := &Event{Endpoint: 1, Latency: time.Millisecond, Service: time.Millisecond, Answered: true, Status: 500, Class: Status}
	var start time.Duration
	if n := testing.AllocsPerRun(100, func() {
		for i := range 8 {
			r.Record(i, ev)
			r.Record(i, fail)
		}
		r.Flush(start, start+time.Second)
		start += time.Second
	}); n != 0 {
		t.Errorf("Flush: %v allocations; want 0", n)
	}
}
