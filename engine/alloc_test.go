package engine

import (
	"context"
	"runtime"
	"testing"

	"github.com/rpcbench/rpcbench/check"
	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/transport"
)

// nopTransport answers at once, so that a benchmark measures the pacer and the engine alone.
type nopTransport struct{}

func (nopTransport) Do(_ context.Context, _ *transport.Request, out *transport.Outcome) {
	out.Answered, out.Status = true, 200
}
func (nopTransport) Close() error { return nil }

// bodyTransport answers at once with a JSON body, for a Verifier to judge.
type bodyTransport struct{}

var answerBody = []byte(`{"jsonrpc":"2.0","id":1,"result":{"n":10,"s":"ok"}}`)

func (bodyTransport) Do(_ context.Context, _ *transport.Request, out *transport.Outcome) {
	out.Answered, out.Status, out.Body = true, 200, answerBody
}
func (bodyTransport) Close() error { return nil }

// The engine's per-request path — pacing, filling, sending through a transport, recording —
// allocates nothing in steady state: the allocations of a run do not grow with its requests.
func TestSteadyStateAllocatesNothingPerRequest(t *testing.T) {
	if testing.Short() {
		t.Skip("counts allocations over 40,000 requests")
	}
	verifier := func(specs ...string) Verifier {
		v := &check.Verifier{}
		for _, s := range specs {
			c, err := check.Parse(s)
			if err != nil {
				t.Fatal(err)
			}
			v.Checks = append(v.Checks, c)
		}
		return v
	}
	for _, tc := range []struct {
		name string
		tr   transport.Transport
		v    Verifier
	}{
		{"no checks", nopTransport{}, nil},
		// each check's outcome is counted by name: passing checks cost no allocation
		{"passing checks", bodyTransport{}, verifier(`body contains "ok"`, "json result.n == 10", "json result.s exists")},
		// a check failing on the same value again and again keeps it once, and allocates no more
		{"a check failing on one value", bodyTransport{}, verifier("json result.n == 11", "json result.s == ok")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			allocs := func(n uint64) uint64 {
				p := plan.Plan{Endpoints: []plan.Endpoint{{URL: "http://127.0.0.1:1/"}}, Load: plan.Load{Connections: 4, Requests: n}}
				opts := []Option{WithTransport(tc.tr)}
				if tc.v != nil {
					opts = append(opts, WithVerifier(tc.v))
				}
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				if _, err := Run(context.Background(), p, opts...); err != nil {
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
		})
	}
}
