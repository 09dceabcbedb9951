package plan

import (
	"fmt"

	"github.com/rpcbench/rpcbench/schedule"
)

// Part returns the execution segment of the load (Load.Segment) and the stripe of indices it owns;
// ok is false for a load without a segment, which runs the whole plan.
func (l Load) Part() (seg schedule.Segment, stripe *schedule.Stripe, ok bool, err error) {
	if l.Segment == "" {
		if l.SegmentSequence != "" {
			return seg, nil, false, fmt.Errorf("plan: segment sequence %q without a segment: give the segment this generator runs", l.SegmentSequence)
		}
		return seg, nil, false, nil
	}
	seg, err = schedule.ParseSegment(l.Segment, l.SegmentSequence)
	if err != nil {
		return seg, nil, false, fmt.Errorf("plan: %w", err)
	}
	stripe, err = schedule.NewStripe(seg)
	if err != nil {
		return seg, nil, false, fmt.Errorf("plan: %w", err)
	}
	return seg, stripe, true, nil
}

// Stripe returns the stripe of indices (arrivals, connections, data rows) the load's segment owns;
// nil, which owns every index, for a load without a segment or with a segment that is not valid
// (Validate says so).
func (l Load) Stripe() *schedule.Stripe {
	_, st, _, _ := l.Part()
	return st
}

// SegmentShare returns the part of n (connections, requests) the load's segment runs: n for a
// load without a segment.
func (l Load) SegmentShare(n uint64) uint64 { return l.Stripe().Count(n) }
