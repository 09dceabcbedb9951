package engine

import (
	"context"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/plan"
)

// connCounter counts the connections a server has open, as the server sees them.
type connCounter struct{ open atomic.Int64 }

func (c *connCounter) state(_ net.Conn, s http.ConnState) {
	switch s {
	case http.StateNew:
		c.open.Add(1)
	case http.StateClosed, http.StateHijacked:
		c.open.Add(-1)
	}
}

// A step with ramp_from: previous ramps the connections open from the step before's level to its
// own over the ramp, linearly, as a k6 ramping-vus stage does: the server, sampled by the test,
// sees 4 connections first, then one more every 0.3 s, not all 12 at once (the ramp held at the
// step's level, as ramp: alone does).
func TestStepRampFromPreviousOpensConnectionsLinearly(t *testing.T) {
	t.Parallel()
	var conns connCounter
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(20 * time.Millisecond) // the server's latency: 50 answers/s per connection
	}))
	srv.Config.ConnState = conns.state
	srv.Start()
	t.Cleanup(srv.Close)

	const ramp = 2400 * time.Millisecond
	s := plan.Scenario{Steps: []float64{4, 12}, Step: 300 * time.Millisecond, Ramp: ramp, RampFrom: plan.RampFromPrevious}
	p := s.PlanFor(plan.BenchTarget{URL: srv.URL}, 1, "")
	if l := p.Load; l.WarmupFrom == nil || *l.WarmupFrom != 4 || l.Connections != 12 || l.Warmup != ramp {
		t.Fatalf("step 2's load %+v; want a warm-up of %v from 4 to 12 connections", l, ramp)
	}

	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	done := make(chan *Result, 1)
	go func() {
		res, err := Run(ctx, p)
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	type sample struct {
		at   time.Duration // since the first connection was seen
		open int64
	}
	var samples []sample
	var first time.Time
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	var res *Result
	for res == nil {
		select {
		case res = <-done:
		case now := <-tick.C:
			n := conns.open.Load()
			if n == 0 && first.IsZero() {
				continue
			}
			if first.IsZero() {
				first = now
			}
			samples = append(samples, sample{now.Sub(first), n})
		}
	}
	if res == nil || len(samples) == 0 {
		t.Fatal("no connection seen")
	}
	if got := samples[0].open; got > 6 {
		t.Errorf("first sample %d connections open; want about 4 (the step before's level), not 12 at once", got)
	}
	// connection k (from 0) sends while the level, 4 + 8·t/2.4 s, is above k: ⌈level⌉ open
	between := map[int64]bool{}
	var top int64
	for _, sm := range samples {
		top = max(top, sm.open)
		if sm.open > 4 && sm.open < 12 {
			between[sm.open] = true
		}
		if sm.at > ramp {
			continue
		}
		want := math.Ceil(4 + 8*sm.at.Seconds()/ramp.Seconds())
		if math.Abs(float64(sm.open)-want) > 3 {
			t.Errorf("at %v after the first connection %d open; want ≈ %v (a linear rise from 4 to 12 over %v)", sm.at.Round(time.Millisecond), sm.open, want, ramp)
		}
	}
	if top != 12 {
		t.Errorf("at most %d connections open; want 12, the step's level", top)
	}
	if len(between) < 4 {
		t.Errorf("levels between 4 and 12 seen: %v; want at least 4 of 5…11 (a gradual rise, not a jump)", between)
	}
	// the ramp is the warm-up: its requests are outside the measured figures
	if res.WarmupSent == 0 {
		t.Error("nothing sent in the ramp; want its requests counted as the warm-up's")
	}
}
