package engine

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/schedule"
	"github.com/rpcbench/rpcbench/transport"
)

// These tests run the engine under testing/synctest with a transport that takes a known time and
// never touches a network: the fake clock makes "2000/s for 2 s" exact. The same properties are
// tested against real servers on loopback in engine_test.go.

// simTransport answers every request with 200 after service time, or stalls when stall says so.
type simTransport struct {
	service     time.Duration
	stall       func(now time.Time) time.Duration // extra wait for a request started at now
	inFlight    atomic.Int64
	maxSeen     atomic.Int64
	mu          sync.Mutex
	calls       int
	perEndpoint [4]atomic.Int64
}

func (s *simTransport) Do(ctx context.Context, r *transport.Request, out *transport.Outcome) {
	out.Sent = time.Now() // the request is written at once; only the answer takes time
	n := s.inFlight.Add(1)
	defer s.inFlight.Add(-1)
	for {
		m := s.maxSeen.Load()
		if n <= m || s.maxSeen.CompareAndSwap(m, n) {
			break
		}
	}
	s.mu.Lock()
	s.calls++
	s.mu.Unlock()
	s.perEndpoint[r.Endpoint%4].Add(1)
	d := s.service
	if s.stall != nil {
		d += s.stall(time.Now())
	}
	select {
	case <-time.After(d):
		out.Answered, out.Status = true, 200
	case <-ctx.Done():
		out.Class, out.Err = result.Canceled, ctx.Err()
	}
}

func (s *simTransport) Close() error { return nil }

func simPlan(load plan.Load) plan.Plan {
	return plan.Plan{Endpoints: []plan.Endpoint{{URL: "http://127.0.0.1:1/"}}, Load: load}
}

func simRun(t *testing.T, ctx context.Context, p plan.Plan, tr transport.Transport, opts ...Option) *Result {
	t.Helper()
	opts = append([]Option{WithTransport(tr), func(o *options) { o.sleep = timerSleeper{} }}, opts...)
	res, err := Run(ctx, p, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestSimOpenModelExactCount(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		tr := &simTransport{service: time.Millisecond}
		res := simRun(t, t.Context(), simPlan(plan.Load{Rate: 2000, Duration: 2 * time.Second}), tr)
		c := res.Total.Endpoints[0]
		if res.Intended != 4000 || c.Sent != 4000 || c.OK != 4000 {
			t.Errorf("intended %d, sent %d, ok %d; want 4000 each", res.Intended, c.Sent, c.OK)
		}
		// Each request takes 1 ms and is sent on time: latency is exactly the service time.
		if got := c.Latency.Max(); got < 1000 || got > 1001 {
			t.Errorf("max latency %d µs; want 1000", got)
		}
		if got := res.Total.SendLag.Max(); got > 1 {
			t.Errorf("max send lag %d µs; want ≤ 1 under the fake clock", got)
		}
	})
}

// The closed model never has more requests in flight than connections.
func TestSimClosedModelConcurrency(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		tr := &simTransport{service: 10 * time.Millisecond}
		res := simRun(t, t.Context(), simPlan(plan.Load{Connections: 10, Duration: time.Second}), tr)
		if got := tr.maxSeen.Load(); got != 10 {
			t.Errorf("max in flight %d; want 10", got)
		}
		// 10 connections × 1 s / 10 ms each = 1000 requests, give or take the last round
		if c := res.Total.Endpoints[0]; c.Sent < 990 || c.Sent > 1010 {
			t.Errorf("sent %d; want about 1000", c.Sent)
		}
	})
}

// Each stage sends the integral of its rate.
func TestSimStagesPerStage(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		stages := []schedule.Stage{{Duration: time.Second, Target: 1000}, {Duration: 2 * time.Second, Target: 3000}, {Duration: time.Second, Target: 3000}}
		var perTick []uint64
		obs := func(tk *Tick) {
			perTick = append(perTick, tk.Interval.Endpoints[0].Sent)
		}
		tr := &simTransport{service: time.Microsecond}
		res := simRun(t, t.Context(), simPlan(plan.Load{Stages: stages}), tr, WithObserver(obs))
		// 0→1000 over 1 s: 500; 1000→3000 over 2 s: 4000 (1500 then 2500); 3000 for 1 s: 3000
		want := []uint64{500, 1500, 2500, 3000}
		if len(perTick) < 4 {
			t.Fatalf("got %d ticks; want at least 4", len(perTick))
		}
		for i, w := range want {
			if d := int64(perTick[i]) - int64(w); d < -1 || d > 1 {
				t.Errorf("second %d sent %d; want %d ±1", i+1, perTick[i], w)
			}
		}
		if res.Intended != 7500 || res.Total.Endpoints[0].Sent != 7500 {
			t.Errorf("intended %d, sent %d; want 7500", res.Intended, res.Total.Endpoints[0].Sent)
		}
	})
}

// When connections are too few for the rate, arrivals go out late; latency counts from the
// intended time and the send lag shows the shortfall.
func TestSimCoordinatedOmission(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		// One connection at 100/s (one arrival every 10 ms) for 3 s; the server stalls for 1 s
		// a request that starts in [1 s, 1.01 s). Ground truth: arrivals due in the stall wait for
		// its end, so arrival k ms into the stall has latency ≈ 1000 − k ms + 1 ms: a hundred
		// arrivals with latencies spread over 0–1 s, i.e. the top third of the 300 — p99 ≈ 970 ms.
		var start time.Time
		stalled := false
		tr := &simTransport{service: time.Millisecond, stall: func(now time.Time) time.Duration {
			if start.IsZero() {
				start = now
			}
			if !stalled && now.Sub(start) >= time.Second {
				stalled = true
				return time.Second
			}
			return 0
		}}
		res := simRun(t, t.Context(), simPlan(plan.Load{Rate: 100, Duration: 3 * time.Second, Connections: 1}), tr)
		c := res.Total.Endpoints[0]
		p99 := time.Duration(c.Latency.ValueAtQuantile(99)) * time.Microsecond
		if p99 < 900*time.Millisecond || p99 > 1010*time.Millisecond {
			t.Errorf("latency p99 %v; want ≈ 970ms (ground truth)", p99)
		}
		// Service time saw the stall only once: its p99 is the plain service time.
		if svc := time.Duration(c.Service.ValueAtQuantile(99)) * time.Microsecond; svc > 2*time.Millisecond {
			t.Errorf("service time p99 %v; want ≈ 1ms (only one request stalled)", svc)
		}
		if lag := time.Duration(res.Total.SendLag.Max()) * time.Microsecond; lag < 900*time.Millisecond {
			t.Errorf("max send lag %v; want ≈ 1s", lag)
		}
	})
}

func TestSimWarmupAndRequests(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		tr := &simTransport{service: time.Millisecond}
		res := simRun(t, t.Context(), simPlan(plan.Load{Rate: 1000, Requests: 500, Warmup: 200 * time.Millisecond}), tr)
		if res.WarmupSent != 200 {
			t.Errorf("warm-up sent %d; want 200", res.WarmupSent)
		}
		if c := res.Total.Endpoints[0]; c.Sent != 500 || res.Intended != 500 {
			t.Errorf("measured sent %d, intended %d; want 500", c.Sent, res.Intended)
		}
		if res.Elapsed < 499*time.Millisecond || res.Elapsed > 510*time.Millisecond {
			t.Errorf("elapsed %v; want ≈ 500ms (warm-up excluded)", res.Elapsed)
		}
	})
}

func TestSimClosedRequests(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		tr := &simTransport{service: time.Millisecond}
		res := simRun(t, t.Context(), simPlan(plan.Load{Connections: 4, Requests: 100}), tr)
		if c := res.Total.Endpoints[0]; c.Sent != 100 {
			t.Errorf("sent %d; want 100", c.Sent)
		}
	})
}

// An interrupted run stops sending, lets requests in flight finish within the grace period, cuts
// the rest, and still returns what it measured.
func TestSimInterrupt(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(1450*time.Millisecond, cancel)
		// requests take 5 s: those in flight at the interruption outlast the 1 s grace
		tr := &simTransport{service: 5 * time.Second}
		p := simPlan(plan.Load{Rate: 10, Duration: 10 * time.Second, Grace: plan.Wait(time.Second)})
		res := simRun(t, ctx, p, tr)
		if !res.Interrupted {
			t.Error("Interrupted = false; want true")
		}
		c := res.Total.Endpoints[0]
		// arrivals at 0, 0.1, …, 1.4 s: 15 sent, all cut at 2.45 s
		if c.Sent != 15 || c.Errors[result.Canceled] != 15 {
			t.Errorf("sent %d, canceled %d; want 15, 15", c.Sent, c.Errors[result.Canceled])
		}
		if res.Intended != 15 {
			t.Errorf("intended %d; want 15 (arrivals due before the interruption)", res.Intended)
		}
		if res.Elapsed != 2450*time.Millisecond {
			t.Errorf("elapsed %v; want 2.45s (1.45 s of load + 1 s of grace)", res.Elapsed)
		}
	})
}

// Ticks fall on whole intervals of measured time, whatever the length of the warm-up.
func TestNextTick(t *testing.T) {
	t.Parallel()
	r := &run{p: plan.Plan{Load: plan.Load{Interval: time.Second}}, warmup: 1500 * time.Millisecond}
	tests := []struct{ at, want time.Duration }{
		{0, time.Second},                       // a warm-up tick
		{time.Second, 2500 * time.Millisecond}, // the next whole second would pass the warm-up
		{2500 * time.Millisecond, 3500 * time.Millisecond},
		{2600 * time.Millisecond, 3500 * time.Millisecond}, // a late tick keeps the grid
	}
	for _, tt := range tests {
		if got := r.nextTick(tt.at); got != tt.want {
			t.Errorf("nextTick(%v) = %v; want %v", tt.at, got, tt.want)
		}
	}
}

// In the closed model, stages ramp the connections: connection k starts when the level passes k.
func TestSimClosedStagesRampConnections(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		tr := &simTransport{service: 10 * time.Millisecond}
		var perTick []uint64
		obs := WithObserver(func(tk *Tick) {
			if !tk.Final {
				perTick = append(perTick, tk.Interval.Endpoints[0].Sent)
			}
		})
		stages := []schedule.Stage{{Duration: 2 * time.Second, Target: 10}, {Duration: time.Second, Target: 10}}
		simRun(t, t.Context(), simPlan(plan.Load{Model: plan.Closed, Stages: stages}), tr, obs)
		if got := tr.maxSeen.Load(); got != 10 {
			t.Errorf("max in flight %d; want 10", got)
		}
		// connection k sends while the level is above k, so ⌈level⌉ connections are busy: 3
		// connection-seconds in the first second (level 0 → 5: 1, 2, 3, 4, 5 for 0.2 s each), 8 in
		// the second, 10 in the third; at 100 requests per connection-second, ±10%
		want := []float64{300, 800, 1000}
		if len(perTick) < 3 {
			t.Fatalf("ticks %v; want 3", perTick)
		}
		for i, w := range want {
			if got := float64(perTick[i]); got < w*0.9-10 || got > w*1.1+10 {
				t.Errorf("second %d sent %v; want ≈ %v", i+1, got, w)
			}
		}
	})
}

// failingSource fails from arrival n on, as a unique data file that ran out does.
type failingSource struct {
	plan.Source
	n uint64
}

var errRanOut = errors.New("data ran out")

func (f failingSource) Fill(i uint64, r *transport.Request) error {
	if i >= f.n {
		return errRanOut
	}
	return f.Source.Fill(i, r)
}

// A source that runs out stops the run; the arrival it could not make is not counted as intended,
// so the report does not blame the generator.
func TestSimSourceRunsOut(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		p := simPlan(plan.Load{Rate: 100, Duration: 10 * time.Second})
		static, err := plan.NewStaticSource(p.Normalized().Endpoints)
		if err != nil {
			t.Fatal(err)
		}
		tr := &simTransport{service: time.Millisecond}
		res := simRun(t, t.Context(), p, tr, WithSource(failingSource{static, 5}))
		if !errors.Is(res.Stop, errRanOut) {
			t.Errorf("Stop = %v; want %v", res.Stop, errRanOut)
		}
		if c := res.Total.Endpoints[0]; res.Intended != 5 || c.Sent != 5 {
			t.Errorf("intended %d, sent %d; want 5 and 5", res.Intended, c.Sent)
		}
	})
}

// In the closed model the warm-up takes the endpoints in turn like the measured run, and what was
// intended is what was sent.
func TestSimClosedWarmupAndIntended(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		p := simPlan(plan.Load{Connections: 4, Requests: 1000, Warmup: 100 * time.Millisecond})
		p.Endpoints = append(p.Endpoints, plan.Endpoint{URL: "http://127.0.0.1:2/b"})
		tr := &simTransport{service: time.Millisecond}
		res := simRun(t, t.Context(), p, tr)
		if res.Intended != 1000 {
			t.Errorf("intended %d; want 1000", res.Intended)
		}
		// 4 connections × 100 ms / 1 ms = 400 warm-up requests, then 1000 measured: 700 each
		a, b := tr.perEndpoint[0].Load(), tr.perEndpoint[1].Load()
		if a < 690 || a > 710 || b < 690 || b > 710 {
			t.Errorf("requests per endpoint %d and %d; want ≈ 700 each", a, b)
		}
	})
}

// slowFailingSource fails from arrival n on, and takes delay to find out, as a data file read
// that ends in an error does: the failure comes after the arrival's due time.
type slowFailingSource struct {
	plan.Source
	n     uint64
	delay time.Duration
}

func (f slowFailingSource) Fill(i uint64, r *transport.Request) error {
	if i >= f.n {
		time.Sleep(f.delay)
		return errRanOut
	}
	return f.Source.Fill(i, r)
}

// A source that fails after the due time of the arrival it could not make stops the run as of
// that due time, not as of the failure: the arrivals due in between were never intended, and the
// sending window ends at the due time.
func TestSimSourceFailsLate(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		p := simPlan(plan.Load{Rate: 100, Duration: 10 * time.Second, Warmup: 200 * time.Millisecond})
		static, err := plan.NewStaticSource(p.Normalized().Endpoints)
		if err != nil {
			t.Fatal(err)
		}
		tr := &simTransport{service: time.Millisecond}
		// Arrivals every 10 ms; 0–19 are the warm-up (0–190 ms), 20–24 are measured and sent
		// (200–240 ms). Arrival 25 is due at 250 ms and its failure comes 35 ms later, at 285 ms,
		// while arrivals 26–28 (260–280 ms) have fallen due meanwhile.
		src := slowFailingSource{static, 25, 35 * time.Millisecond}
		res := simRun(t, t.Context(), p, tr, WithSource(src))
		if !errors.Is(res.Stop, errRanOut) {
			t.Errorf("Stop = %v; want %v", res.Stop, errRanOut)
		}
		c := res.Total.Endpoints[0]
		if res.Intended != 5 || c.Sent != 5 {
			t.Errorf("intended %d, sent %d; want 5 and 5 (none never sent: the stop is at arrival 25's due time)", res.Intended, c.Sent)
		}
		if res.Sending != 50*time.Millisecond {
			t.Errorf("sending window %v; want 50ms (from the measured start at 200 ms to the failed arrival due at 250 ms)", res.Sending)
		}
		if res.WarmupSent != 20 {
			t.Errorf("warm-up sent %d; want 20", res.WarmupSent)
		}
	})
}

// sentLateTransport sets up a connection before it writes the request, then waits for the answer's
// first byte and its last: Sent and FirstByte fall after Do starts.
type sentLateTransport struct {
	setup, toFirst, toLast time.Duration
}

func (s sentLateTransport) Do(ctx context.Context, r *transport.Request, out *transport.Outcome) {
	time.Sleep(s.setup)
	out.Sent = time.Now()
	time.Sleep(s.toFirst)
	out.FirstByte = time.Now()
	time.Sleep(s.toLast)
	out.Answered, out.Status = true, 200
}

func (sentLateTransport) Close() error { return nil }

// Service time runs from the transport's Sent instant to the end, and time to first byte from Sent
// to FirstByte: connection set-up before Sent counts in the latency only.
func TestSimServiceTimeFromSent(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		tr := sentLateTransport{setup: 5 * time.Millisecond, toFirst: 2 * time.Millisecond, toLast: time.Millisecond}
		res := simRun(t, t.Context(), simPlan(plan.Load{Rate: 100, Duration: time.Second}), tr)
		c := res.Total.Endpoints[0]
		if c.Sent != 100 || c.OK != 100 {
			t.Fatalf("sent %d, ok %d; want 100 each", c.Sent, c.OK)
		}
		// every request alike, sent on time: latency 5+2+1 = 8 ms, service 2+1 = 3 ms, first byte 2 ms
		for _, tt := range []struct {
			name string
			got  interface {
				Min() int64
				Max() int64
			}
			want int64 // µs
		}{{"latency", c.Latency, 8000}, {"service time", c.Service, 3000}, {"time to first byte", c.TTFB, 2000}} {
			// the histogram keeps 3 significant digits: a value reads back within 0.1 %
			if lo, hi := tt.got.Min(), tt.got.Max(); lo < tt.want-tt.want/1000 || hi > tt.want+tt.want/1000 {
				t.Errorf("%s from %d to %d µs; want %d µs for every request", tt.name, lo, hi, tt.want)
			}
		}
	})
}

// Closing the cut channel after an interruption ends the grace period at once: the requests in
// flight are cut then, not when the grace runs out.
func TestSimCutEndsGrace(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(1450*time.Millisecond, cancel)
		cut := make(chan struct{})
		time.AfterFunc(1600*time.Millisecond, func() { close(cut) })
		tr := &simTransport{service: 5 * time.Second}
		p := simPlan(plan.Load{Rate: 10, Duration: 10 * time.Second, Grace: plan.Wait(time.Minute)})
		res := simRun(t, ctx, p, tr, WithCut(cut))
		c := res.Total.Endpoints[0]
		// arrivals at 0, 0.1, …, 1.4 s: 15 sent, all cut at 1.6 s
		if !res.Interrupted || c.Sent != 15 || c.Errors[result.Canceled] != 15 {
			t.Errorf("interrupted %v, sent %d, canceled %d; want true, 15, 15", res.Interrupted, c.Sent, c.Errors[result.Canceled])
		}
		if res.Elapsed != 1600*time.Millisecond {
			t.Errorf("elapsed %v; want 1.6s (the cut), not the minute of grace", res.Elapsed)
		}
	})
}

// sendTimes records the instant of each request, to count the pacer's wake-ups.
type sendTimes struct {
	simTransport
	at map[time.Time]int
}

func (s *sendTimes) Do(ctx context.Context, r *transport.Request, out *transport.Outcome) {
	s.mu.Lock()
	s.at[time.Now()]++
	s.mu.Unlock()
	s.simTransport.Do(ctx, r, out)
}

// With a send slack the pacer wakes once for every arrival due within the slack: at 5,000/s
// (one arrival every 200 µs) a 1 ms slack sends 6 arrivals a wake-up — the one due 1 ms ago and
// the five due since — late by 1000, 800, 600, 400, 200 and 0 µs. Without a slack each arrival
// goes out alone, at its time.
func TestSimSendSlackBatchesWakeUps(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		slack              time.Duration
		wakes              int   // distinct send instants, by hand: ceil(5000 / arrivals a wake-up)
		lagMax, lagMeanMin int64 // µs
		lagMeanMax         int64
	}{
		{0, 5000, 0, 0, 1},
		{time.Millisecond, 834, 1000, 490, 510},
	} {
		t.Run(tc.slack.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				tr := &sendTimes{simTransport: simTransport{service: 100 * time.Microsecond}, at: map[time.Time]int{}}
				res := simRun(t, t.Context(), simPlan(plan.Load{Rate: 5000, Duration: time.Second, SendSlack: tc.slack}), tr)
				c := res.Total.Endpoints[0]
				if res.Intended != 5000 || c.Sent != 5000 || c.OK != 5000 {
					t.Fatalf("intended %d, sent %d, ok %d; want 5000 each", res.Intended, c.Sent, c.OK)
				}
				if len(tr.at) < tc.wakes-1 || len(tr.at) > tc.wakes+1 {
					t.Errorf("requests went out at %d distinct instants; want %d", len(tr.at), tc.wakes)
				}
				lag := res.Total.SendLag
				if got := lag.Max(); got < tc.lagMax || got > tc.lagMax+1 {
					t.Errorf("max send lag %d µs; want %d", got, tc.lagMax)
				}
				if got := int64(lag.Mean()); got < tc.lagMeanMin || got > tc.lagMeanMax {
					t.Errorf("mean send lag %d µs; want %d–%d", got, tc.lagMeanMin, tc.lagMeanMax)
				}
			})
		})
	}
}
