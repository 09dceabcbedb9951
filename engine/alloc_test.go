package engine

import (
	"context"
	"runtime"
	"testing"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/transport"
)

// nopTransport answers at once, so that a benchmark measures the pacer and the engine alone.
type nopTransport struct{}

func (nopTransport) Do(_ context.Context, _ *transport.Request, out *transport.Outcome) {
	out.Answered, out.Status = true, 200
}
func (nopTransport) Close() error { return nil }

// The engine's per-request path — pacing, filling, sending through a transport, recording —
// allocates nothing in steady state: the allocations of a run do not grow with its requests.
func TestSteadyStateAllocatesNothingPerRequest(t *testing.T) {
	if testing.Short() {
		t.Skip("counts allocations over 40,000 requests")
	}
	allocs := func(n uint64) uint64 {
		p := plan.Plan{Endpoints: []plan.Endpoint{{URL: "http://127.0.0.1:1/"}}, Load: plan.Load{Connections: 4, Requests: n}}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		if _, err := Run(context.Background(), p, WithTransport(nopTransport{})); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		return after.Mallocs - before.Mallocs
	}
	allocs(1000) // warm up the runtime's own caches
	small, large := allocs(1000), allocs(41000)
	perRequest := (float64(large) - float64(small)) / 40000
	t.Logf("%d allocations for 1,000 requests, %d for 41,000", small, large)
	if perRequest > 0.01 {
		t.Errorf("%.3f allocations per request (%d for 1,000 requests, %d for 41,000); want 0", perRequest, small, large)
	}
}
