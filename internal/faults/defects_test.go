package faults_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/engine"
	"github.com/rpcbench/rpcbench/internal/faults"
	"github.com/rpcbench/rpcbench/internal/testnet"
	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/transport"
)

// A server that never answers, with the connections capped: the run still ends at its duration
// plus the time limit, and the arrivals that found no free connection by then count as never
// sent, not sent late.
func TestFaultNeverAnswersEndsOnTime(t *testing.T) {
	t.Parallel()
	s := faults.Silent(t)
	p := faultPlan(s.URL()+"/", 50, time.Second, time.Second)
	p.Load.Connections = 5
	o := run(t, p, 50, result.Timeout)
	tot := o.res.Total.Total()
	// 5 connections, each held 1 s per request, at 0 s, about 1 s and — overdue arrivals go out
	// up to 1 s (the time limit) after the end of the schedule — about 2 s: at most 15 of the 50
	// are sent, the rest never are.
	if tot.Sent > 15 {
		t.Errorf("sent %d; want at most 15 (5 connections, each held 1 s, sending until 1 s after the 1 s run)", tot.Sent)
	}
	s.Close()
}

// acceptAll is a Verifier that passes every answer; with it, the transport keeps answer bodies.
type acceptAll struct{}

func (acceptAll) Verify(*transport.Request, *transport.Outcome) (result.Class, error) {
	return result.OK, nil
}

// A body kept for a verifier (checks, JSON-RPC) is bounded: an endless answer does not grow the
// heap by what it sends.
func TestFaultEndlessBodyKept(t *testing.T) {
	s := faults.EndlessBody(t, false)
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base, peak := ms.HeapInuse, ms.HeapInuse
	stop := sampleHeap(&peak)
	p := faultPlan(s.URL()+"/", 2, time.Second, 2*time.Second)
	p.Load.Connections = 1
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	start := time.Now()
	res, err := engine.Run(ctx, p, engine.WithVerifier(acceptAll{}))
	stop()
	if err != nil {
		t.Fatal(err)
	}
	// a kept body longer than --max-body fails as too-large (a 1 GiB Content-Length is refused
	// before it is read)
	checkRun(t, p, outcome{res, time.Since(start)}, 2, result.TooLarge, result.Timeout)
	// the run's own buffers take about 25 MiB; a body limit of tens of MiB may double in a buffer
	const allowed = 256 << 20
	tot := res.Total.Total()
	if grew := peak - base; grew > allowed {
		t.Errorf("heap in use grew by %d MiB while reading %d MiB of kept bodies; want at most %d MiB", grew>>20, tot.BytesIn>>20, allowed>>20)
	}
	t.Logf("read %d MiB, heap grew by %d MiB", tot.BytesIn>>20, (peak-base)>>20)
	s.Close()
}

// The closed model backs off when connecting fails: against a refused address, two connections
// for 1 s do not spin through thousands of attempts.
func TestFaultClosedBacksOffRefused(t *testing.T) {
	t.Parallel()
	p := plan.Plan{
		Endpoints: []plan.Endpoint{{URL: "http://" + testnet.RefusedAddr(t) + "/"}},
		Load:      plan.Load{Duration: time.Second, Connections: 2, Interval: 100 * time.Millisecond},
		HTTP:      plan.HTTP{Timeout: 500 * time.Millisecond, ConnectTimeout: 500 * time.Millisecond},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	start := time.Now()
	res, err := engine.Run(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	wall := time.Since(start)
	if bound := p.Load.Duration + p.HTTP.Timeout + slack; wall > bound {
		t.Errorf("run took %v; want at most %v", wall, bound)
	}
	tot := res.Total.Total()
	attempts := tot.OK + tot.Failed()
	if tot.Errors[result.Refused] != attempts {
		t.Errorf("%d refused of %d attempts; want all (messages %v)", tot.Errors[result.Refused], attempts, tot.Messages)
	}
	// a refused connect on loopback takes tens of µs: without a pause, thousands
	const most = 200 // 100 attempts per connection per second
	if attempts > most {
		t.Errorf("%d attempts in 1 s over 2 connections; want at most %d (a back-off between refused connects)", attempts, most)
	}
}

// A request that could not be written (the connection was refused, the name did not resolve) was
// never sent: it fails, as refused, but is not counted among the requests sent.
func TestFaultRefusedNotSent(t *testing.T) {
	t.Parallel()
	p := faultPlan("http://"+testnet.RefusedAddr(t)+"/", 20, time.Second, 500*time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := engine.Run(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	tot := res.Total.Total()
	if tot.Sent != 0 || tot.Errors[result.Refused] != 20 {
		t.Errorf("sent %d, refused %d; want 0 sent and 20 refused", tot.Sent, tot.Errors[result.Refused])
	}
}
