package engine_test

import (
	"context"
	"fmt"
	"os"

	"github.com/rpcbench/rpcbench/engine"
	"github.com/rpcbench/rpcbench/plan"
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
