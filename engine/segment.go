package engine

import (
	"context"
	"time"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/schedule"
)

// WithStartAt makes the run count its intended times from at instead of from when it starts, so
// that generators on several machines (each an execution segment, plan.Load.Segment) send on one
// schedule: the run waits until at (an interruption or a cut ends the wait, and the run, with
// nothing measured) and then runs as if it had started then. A generator that gets there late
// starts at once with its arrivals already due, their latency counted from their intended times;
// the Result's StartLate says by how much. A zero at starts at once.
func WithStartAt(at time.Time) Option { return func(o *options) { o.startAt = at } }

// applySegment narrows a run to its plan's execution segment: the open model's schedule to the
// arrivals the segment owns, the closed model's connections (and stage targets, through the global
// number of each connection) and request count to its share.
func (r *run) applySegment() {
	part := r.p.Load.Stripe()
	if part == nil {
		return
	}
	r.part = part
	if r.p.Load.Model == plan.Open {
		r.sched = schedule.Striped{S: r.sched, P: part}
		return
	}
	r.workers = int(part.Count(uint64(r.workers)))
	if r.limit > 0 {
		r.limit = part.Count(r.limit)
		if r.limit == 0 {
			r.workers = 0 // none of the requests is this segment's
		}
	}
}

// begin sets the run's start: now, or the instant of WithStartAt after waiting for it. It reports
// false when ctx or the cut ended the wait.
func (r *run) begin(ctx context.Context, res *Result) bool {
	if seg, _, ok, _ := r.p.Load.Part(); ok {
		res.Segment = seg.String()
	}
	at := r.o.startAt
	if at.IsZero() {
		r.start = time.Now()
		return true
	}
	res.StartAt = at.UTC()
	if wait := time.Until(at); wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return false
		case <-r.o.cut:
			return false
		}
	}
	now := time.Now()
	r.start = now.Add(at.Sub(now)) // at, on the monotonic clock of now
	res.StartLate = max(now.Sub(at), 0)
	return true
}
