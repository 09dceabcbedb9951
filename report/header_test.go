package report

import (
	"strings"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/summary"
)

// A segment's header says what is the whole plan's (the rate, the stages, the closed model's
// connections, split over the generators) and what is this generator's own (the open model's cap
// of connections).
func TestHeaderOfASegment(t *testing.T) {
	t.Parallel()
	tests := []struct {
		load plan.Load
		want string
	}{
		{plan.Load{Model: plan.Open, Rate: 400, Connections: 1000, Segment: "1/2:1", SegmentSequence: "0,1/4,1/2,1"},
			"open model at 400/s in the whole plan, up to 1000 connections on this generator; this generator ran segment 1/2:1 of 0,1/4,1/2,1;"},
		{plan.Load{Model: plan.Closed, Connections: 10, Segment: "2/4"},
			"closed model, 10 connections in the whole plan; this generator ran segment 1/4:1/2 of 0,1/4,1/2,3/4,1;"},
		{plan.Load{Model: plan.Open, Rate: 400, Connections: 1000},
			"open model at 400/s, up to 1000 connections; started"},
	}
	for _, tt := range tests {
		var b strings.Builder
		header(&b, &summary.Summary{Target: "http://127.0.0.1:1/", Config: plan.Plan{Load: tt.load}, StartedAt: time.Unix(0, 0)})
		if !strings.Contains(b.String(), "\n"+tt.want) {
			t.Errorf("%+v: got\n%s\nwant a line starting %q", tt.load, b.String(), tt.want)
		}
	}
}
