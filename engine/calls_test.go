package engine_test

import (
	"context"
	"net"
	"testing"

	"github.com/rpcbench/rpcbench/engine"
	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/serve/ethrpc"
)

// A batch of three methods is one endpoint, "batch of 3"; its calls are counted one by one, by
// method and outcome, against the built-in node. The calls go in turn by id, so each of the 20
// batches holds one call of each: 20 eth_blockNumber and 20 eth_chainId answered with a result, 20
// eth_nope answered with -32601 (method not found), which fails each batch as a whole.
func TestRunCountsCallsInsideBatches(t *testing.T) {
	t.Parallel()
	node, err := ethrpc.New(context.Background(), ethrpc.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer node.Close()
	p := plan.Plan{
		Endpoints: []plan.Endpoint{{URL: node.URL()}},
		JSONRPC: plan.JSONRPC{Batch: 3, Calls: []plan.Call{
			{Method: "eth_blockNumber"}, {Method: "eth_chainId"}, {Method: "eth_nope"},
		}},
		Load: plan.Load{Connections: 2, Requests: 20},
	}
	res, err := engine.Run(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(res.Plan.Endpoints); n != 1 || res.Plan.Endpoints[0].Name != "batch of 3" {
		t.Fatalf("got endpoints %+v; want one, \"batch of 3\"", res.Plan.Endpoints)
	}
	c := res.Total.Endpoints[0]
	if c.Sent != 20 || c.OK != 0 || c.Errors[result.Status] != 20 {
		t.Errorf("batches: got sent %d, ok %d, status failures %d; want 20, 0, 20", c.Sent, c.OK, c.Errors[result.Status])
	}
	want := map[result.CallKey]uint64{
		{Method: "eth_blockNumber", Outcome: result.CallOK}:           20,
		{Method: "eth_chainId", Outcome: result.CallOK}:               20,
		{Method: "eth_nope", Outcome: result.CallError, Code: -32601}: 20,
	}
	if len(c.Calls) != len(want) {
		t.Errorf("got calls %v; want %v", c.Calls, want)
	}
	for k, n := range want {
		if c.Calls[k] != n {
			t.Errorf("calls %+v: got %d; want %d", k, c.Calls[k], n)
		}
	}
}

// A batch that gets no answer leaves its calls unanswered, each still counted by method: 5 batches
// of 2 to a port where nothing listens are 5 calls of each method, none answered.
func TestRunCountsCallsOfUnansweredBatches(t *testing.T) {
	t.Parallel()
	p := plan.Plan{
		Endpoints: []plan.Endpoint{{URL: closedURL(t)}},
		JSONRPC:   plan.JSONRPC{Batch: 2, Calls: []plan.Call{{Method: "eth_blockNumber"}, {Method: "eth_chainId"}}},
		Load:      plan.Load{Connections: 1, Requests: 5},
	}
	res, err := engine.Run(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	c := res.Total.Endpoints[0]
	want := map[result.CallKey]uint64{
		{Method: "eth_blockNumber", Outcome: result.CallUnanswered}: 5,
		{Method: "eth_chainId", Outcome: result.CallUnanswered}:     5,
	}
	if len(c.Calls) != len(want) || c.Calls[result.CallKey{Method: "eth_blockNumber", Outcome: result.CallUnanswered}] != 5 ||
		c.Calls[result.CallKey{Method: "eth_chainId", Outcome: result.CallUnanswered}] != 5 {
		t.Errorf("got calls %v; want %v", c.Calls, want)
	}
}

// closedURL is the URL of a loopback port that was just closed: nothing listens there.
func closedURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u := "http://" + ln.Addr().String() + "/"
	ln.Close()
	return u
}
