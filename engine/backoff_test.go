package engine

import (
	"context"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rpcbench/rpcbench/internal/testnet"
	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/transport"
)

// refusingTransport fails every request as a connection that could not be made, after
// refusalTime, except the calls listed in ok, which are answered after as long.
type refusingTransport struct {
	calls atomic.Int64
	ok    map[int64]bool
}

const refusalTime = 100 * time.Microsecond

func (f *refusingTransport) Do(_ context.Context, _ *transport.Request, out *transport.Outcome) {
	time.Sleep(refusalTime) // the fake clock of synctest: keeps a run without back-off bounded
	if n := f.calls.Add(1); f.ok[n] {
		out.Sent = time.Now()
		out.Answered, out.Status = true, 200
		return
	}
	out.Class, out.Err = result.Refused, syscall.ECONNREFUSED
	out.Opened, out.Conn.Failed = true, true
}

func (f *refusingTransport) Close() error { return nil }

// The waits of one connection double from 1 ms after each failure in a row, and a request that
// gets a connection starts them again from 1 ms.
func TestSimClosedModelBacksOff(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		length   time.Duration
		ok       map[int64]bool
		attempts int64
		backoffs uint64
	}{
		// each attempt takes 0.1 ms, then waits 1, 2, 4, … ms: attempts at 0, 1.1, 3.2, 7.3,
		// 15.4, 31.5, 63.6, 127.7 and 255.8 ms; the next would be at 511.9 ms
		{"every request refused", 300 * time.Millisecond, nil, 9, 9},
		// 0, 1.1 and 3.2 ms refused; 7.3 ms answered; then 7.4, 8.5, 10.6 and 14.7 ms refused
		// (waits of 1, 2, 4 ms again); the next would be at 22.8 ms
		{"an answer resets the wait", 20 * time.Millisecond, map[int64]bool{4: true}, 8, 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				tr := &refusingTransport{ok: tt.ok}
				res := simRun(t, t.Context(), simPlan(plan.Load{Connections: 1, Duration: tt.length}), tr)
				if got := tr.calls.Load(); got != tt.attempts {
					t.Errorf("got %d attempts; want %d", got, tt.attempts)
				}
				// every moment not spent on an attempt is spent backing off
				if want := tt.length - time.Duration(tt.attempts)*refusalTime; res.Backoffs != tt.backoffs || res.BackoffTime != want {
					t.Errorf("got %d back-offs for %v; want %d for %v", res.Backoffs, res.BackoffTime, tt.backoffs, want)
				}
				if res.Elapsed != tt.length {
					t.Errorf("elapsed %v; want %v: the stop ends a back-off at once", res.Elapsed, tt.length)
				}
			})
		})
	}
}

// Against a port where nothing listens, the closed model makes a few connects per connection,
// not tens of thousands a second.
func TestClosedModelBacksOffFromRefusedAddr(t *testing.T) {
	t.Parallel()
	const conns, length = 2, 300 * time.Millisecond
	p := plan.Plan{Endpoints: []plan.Endpoint{{URL: "http://" + testnet.RefusedAddr(t) + "/"}}, Load: plan.Load{Connections: conns, Duration: length}}
	res := runPlan(t, p)
	c := res.Total.Endpoints[0]
	// Each connection's attempts start at least 0, 1, 3, 7, 15, 31, 63, 127 and 255 ms after the
	// start (the waits double from 1 ms): at most 9 of them fit in 300 ms, however quick a refusal.
	// The first fits however slow the machine.
	const most, least = conns * 9, conns
	if n := c.Unsent; n > most || n < least || c.Errors[result.Refused] != n || c.Sent != 0 {
		t.Errorf("%d requests failed before sending (%d refused, %d sent); want from %d to %d, all refused, none sent", n, c.Errors[result.Refused], c.Sent, least, most)
	}
	if res.Backoffs+conns < c.Unsent || res.Backoffs > c.Unsent {
		t.Errorf("%d back-offs for %d refused requests; want one after each (bar the last of each connection)", res.Backoffs, c.Unsent)
	}
	if res.Elapsed > length+time.Second {
		t.Errorf("elapsed %v; want about %v: the stop ends a back-off at once", res.Elapsed, length)
	}
}
