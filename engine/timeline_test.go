package engine

import (
	"strings"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/serve/lab"
)

// dues is a Timeline of fixed due times, ending one gap after the last.
type dues []time.Duration

func (d dues) At(i uint64) (time.Duration, bool) {
	if i >= uint64(len(d)) {
		return 0, false
	}
	return d[i], true
}

func (d dues) Count(t time.Duration) uint64 {
	var n uint64
	for _, x := range d {
		if x < t {
			n++
		}
	}
	return n
}

func (d dues) End() time.Duration { return d[len(d)-1] + 10*time.Millisecond }

// WithTimeline sends at the timeline's due times, not at the plan's rate: the arrivals, the
// intended count and the sending window are the timeline's.
func TestWithTimeline(t *testing.T) {
	t.Parallel()
	srv := startLab(t, lab.Config{})
	tl := dues{0, 20 * time.Millisecond, 20 * time.Millisecond, 60 * time.Millisecond}
	// the rate (1/s) would send 4 requests over 3 s, its window 4 s; the timeline's end is 70 ms
	p := plan.Plan{Endpoints: []plan.Endpoint{{URL: srv.URL()}}, Load: plan.Load{Model: plan.Open, Rate: 1, Requests: 4}}
	res := runPlan(t, p, WithTimeline(tl))
	c := res.Total.Endpoints[0]
	if c.Sent != 4 || c.OK != 4 || res.Intended != 4 {
		t.Errorf("sent %d, ok %d, intended %d; want 4 each", c.Sent, c.OK, res.Intended)
	}
	if res.Sending != tl.End() {
		t.Errorf("sending window %v; want the timeline's end %v", res.Sending, tl.End())
	}

	p.Load = plan.Load{Model: plan.Closed, Connections: 1, Requests: 4}
	if _, err := Run(t.Context(), p, WithTimeline(tl)); err == nil || !strings.Contains(err.Error(), "the plan must be of the open model") {
		t.Errorf("a timeline with the closed model: %v; want it refused", err)
	}
}
