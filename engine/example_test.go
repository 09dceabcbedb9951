package engine_test

import (
	"context"
	"fmt"
	"math"
	"os"

	"github.com/rpcbench/rpcbench/engine"
	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/serve/ethrpc"
	"github.com/rpcbench/rpcbench/serve/lab"
)

// Run a plan against a service: 100 requests at 200 per second, latency counted from each
// request's intended send time.
func ExampleRun() {
	srv, err := lab.New(lab.Config{}) // a built-in service on 127.0.0.1
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	defer srv.Close()

	p := plan.Plan{
		Endpoints: []plan.Endpoint{{URL: srv.URL() + "/hello"}},
		Load:      plan.Load{Rate: 200, Requests: 100},
	}
	res, err := engine.Run(context.Background(), p)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	c := res.Total.Endpoints[0]
	fmt.Printf("intended %d, sent %d, ok %d\n", res.Intended, c.Sent, c.OK)
	// Output: intended 100, sent 100, ok 100
}

// Weighted endpoints whose URLs hold templates: nine reads for each write, each read of a random
// id. engine.Run builds the requests as `rpcbench run` does (plan.Prepare).
func ExampleRun_weighted() {
	srv, err := lab.New(lab.Config{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	defer srv.Close()

	p := plan.Plan{
		Endpoints: []plan.Endpoint{
			{Name: "read", URL: srv.URL() + "/v0/entity?id={{randInt 1 1000}}", Weight: 9},
			{Name: "write", Method: "PUT", URL: srv.URL() + "/v0/entity?id={{randInt 1 1000}}", Body: []byte(`{"v":"{{randString 16}}"}`), Weight: 1},
		},
		Load: plan.Load{Connections: 4, Requests: 2000},
	}
	res, err := engine.Run(context.Background(), p)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	read, write := res.Total.Endpoints[0], res.Total.Endpoints[1]
	share := float64(read.Sent) / float64(read.Sent+write.Sent)
	fmt.Printf("ok %d of %d; reads %.0f%%\n", read.OK+write.OK, read.Sent+write.Sent, math.Round(share*10)*10)
	// Output: ok 2000 of 2000; reads 90%
}

// JSON-RPC calls with a check on every answer, reported per method.
func ExampleRun_jsonrpc() {
	node, err := ethrpc.New(context.Background(), ethrpc.Config{}) // a built-in Ethereum-style node
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	defer node.Close()

	p := plan.Plan{
		Endpoints: []plan.Endpoint{{URL: node.URL()}},
		JSONRPC: plan.JSONRPC{Calls: []plan.Call{
			{Method: "eth_blockNumber"},
			{Method: "eth_getBalance", Params: []byte(`["{{randAddress}}","latest"]`), Name: "balance"},
		}},
		Checks: plan.Checks{Body: []string{"has result: json result exists"}},
		Load:   plan.Load{Connections: 2, Requests: 100},
	}
	res, err := engine.Run(context.Background(), p)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	for i, e := range res.Plan.Endpoints {
		c := res.Total.Endpoints[i]
		fmt.Printf("%s: %d ok of %d\n", e.Name, c.OK, c.Sent)
	}
	// Output:
	// eth_blockNumber: 50 ok of 50
	// balance: 50 ok of 50
}
