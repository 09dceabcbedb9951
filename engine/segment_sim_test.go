package engine

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/schedule"
	"github.com/rpcbench/rpcbench/transport"
)

// indexSource records the arrival numbers it is asked to fill.
type indexSource struct {
	mu   sync.Mutex
	seen map[uint64]int
}

func (s *indexSource) Fill(i uint64, r *transport.Request) error {
	s.mu.Lock()
	if s.seen == nil {
		s.seen = map[uint64]int{}
	}
	s.seen[i]++
	s.mu.Unlock()
	*r = transport.Request{Method: "GET", Scheme: "http", Host: "127.0.0.1:1", Path: []byte("/")}
	return nil
}

// segmentTotals runs load whole and then as each part of parts (fraction ranges of sequence, or
// K/N when sequence is empty), each under the fake clock, and returns the whole run's and the
// parts' summed intended and sent counts, and the arrival numbers the parts filled.
func segmentTotals(t *testing.T, load plan.Load, parts []string, sequence string) (whole, sum [2]uint64, filled map[uint64]int, wholeFilled map[uint64]int) {
	t.Helper()
	run := func(l plan.Load) (uint64, uint64, map[uint64]int) {
		var r *Result
		src := &indexSource{}
		synctest.Test(t, func(t *testing.T) {
			tr := &simTransport{service: 2 * time.Millisecond}
			r = simRun(t, t.Context(), simPlan(l), tr, WithSource(src))
		})
		return r.Intended, r.Total.Endpoints[0].Sent, src.seen
	}
	var wi, ws uint64
	wi, ws, wholeFilled = run(load)
	whole = [2]uint64{wi, ws}
	filled = map[uint64]int{}
	for _, part := range parts {
		l := load
		l.Segment, l.SegmentSequence = part, sequence
		i, s, seen := run(l)
		sum[0] += i
		sum[1] += s
		for k, n := range seen {
			filled[k] += n
		}
	}
	return whole, sum, filled, wholeFilled
}

// The parts of a run, each run alone, add up to the whole run: the same intended and sent counts,
// and every arrival number (the data row, the endpoint in turn) filled by exactly one part.
func TestSimSegmentsAddUp(t *testing.T) {
	t.Parallel()
	eighths := []string{"1/8", "2/8", "3/8", "4/8", "5/8", "6/8", "7/8", "8/8"}
	tests := []struct {
		name     string
		load     plan.Load
		parts    []string
		sequence string
		want     uint64 // the whole run's intended count, by hand
	}{
		{"open, 1000/s for 1 s, in eighths", plan.Load{Rate: 1000, Duration: time.Second}, eighths, "", 1000},
		{"open, 1000/s for 1 s after a 100 ms warm-up, uneven parts", plan.Load{Rate: 1000, Duration: time.Second, Warmup: 100 * time.Millisecond},
			[]string{"0:1/4", "1/4:1/2", "1/2:1"}, "0,1/4,1/2,1", 1000},
		{"open, 333 requests at 1000/s, in thirds", plan.Load{Rate: 1000, Requests: 333}, []string{"1/3", "2/3", "3/3"}, "", 333},
		// a ramp 0→1000/s over 1 s: ∫ = 500 arrivals
		{"open, a ramp, in eighths", plan.Load{Model: plan.Open, Stages: []schedule.Stage{{Duration: time.Second, Target: 1000}}}, eighths, "", 500},
		{"closed, 100 requests over 10 connections, in quarters", plan.Load{Model: plan.Closed, Connections: 10, Requests: 100},
			[]string{"1/4", "2/4", "3/4", "4/4"}, "", 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			whole, sum, filled, wholeFilled := segmentTotals(t, tt.load, tt.parts, tt.sequence)
			if whole[0] != tt.want || whole[1] != tt.want {
				t.Errorf("whole run: intended %d, sent %d; want %d each", whole[0], whole[1], tt.want)
			}
			if sum != whole {
				t.Errorf("parts: intended %d, sent %d; want the whole run's %d, %d", sum[0], sum[1], whole[0], whole[1])
			}
			if len(filled) != len(wholeFilled) {
				t.Errorf("parts filled %d arrival numbers; the whole run %d", len(filled), len(wholeFilled))
			}
			for k, n := range wholeFilled {
				if filled[k] != n {
					t.Fatalf("arrival %d filled %d times by the parts; %d by the whole run", k, filled[k], n)
				}
			}
		})
	}
}

// The closed model's connections and stage targets split over the parts: each part opens its share
// and, under a ramp, connection g of the whole load starts when the level passes g in every part.
func TestSimSegmentConnections(t *testing.T) {
	t.Parallel()
	load := plan.Load{Model: plan.Closed, Stages: []schedule.Stage{{Duration: time.Second, Target: 8}, {Duration: time.Second, Target: 8}}}
	whole, sum, _, _ := segmentTotals(t, load, []string{"1/4", "2/4", "3/4", "4/4"}, "")
	if sum != whole || whole[1] == 0 {
		t.Errorf("parts: intended %d, sent %d; want the whole run's %d, %d", sum[0], sum[1], whole[0], whole[1])
	}
	for _, tt := range []struct {
		part string
		want int64
	}{{"1/4", 3}, {"2/4", 3}, {"3/4", 2}, {"4/4", 2}} { // 10 connections in quarters
		synctest.Test(t, func(t *testing.T) {
			tr := &simTransport{service: 2 * time.Millisecond}
			simRun(t, t.Context(), simPlan(plan.Load{Model: plan.Closed, Connections: 10, Duration: 100 * time.Millisecond, Segment: tt.part}), tr)
			if got := tr.maxSeen.Load(); got != tt.want {
				t.Errorf("part %s: %d connections busy at once; want %d", tt.part, got, tt.want)
			}
		})
	}
}

// With a start instant the run waits for it and counts intended times from it.
func TestSimStartAt(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		at := time.Now().Add(5 * time.Second)
		tr := &simTransport{service: time.Millisecond}
		res := simRun(t, t.Context(), simPlan(plan.Load{Rate: 100, Duration: time.Second, Segment: "1/2"}), tr, WithStartAt(at))
		if !res.MeasuredStart.Equal(at) || res.StartLate != 0 || !res.StartAt.Equal(at.UTC()) {
			t.Errorf("measured start %v, late %v, start at %v; want %v, 0, %v", res.MeasuredStart, res.StartLate, res.StartAt, at, at)
		}
		if res.Intended != 50 || res.Total.Endpoints[0].Sent != 50 || res.Segment != "0:1/2" {
			t.Errorf("intended %d, sent %d, segment %q; want 50, 50, 0:1/2", res.Intended, res.Total.Endpoints[0].Sent, res.Segment)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(time.Second, cancel)
		tr := &simTransport{service: time.Millisecond}
		res := simRun(t, ctx, simPlan(plan.Load{Rate: 100, Duration: time.Second}), tr, WithStartAt(time.Now().Add(time.Hour)))
		if !res.Interrupted || tr.calls != 0 {
			t.Errorf("interrupted %v after %d calls; want an interrupted wait, no call", res.Interrupted, tr.calls)
		}
	})
}
