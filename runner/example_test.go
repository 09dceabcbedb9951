package runner_test

import (
	"context"
	"fmt"

	"github.com/rpcbench/rpcbench/engine"
	"github.com/rpcbench/rpcbench/output"
	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/runner"
	"github.com/rpcbench/rpcbench/serve/lab"
	"github.com/rpcbench/rpcbench/summary"
)

// okCounter is an output of one's own: it adds up the answers that succeeded, interval by interval,
// as a dashboard would receive them.
type okCounter struct{ ok uint64 }

func (c *okCounter) Name() string           { return "ok counter" }
func (c *okCounter) Start(output.Run) error { return nil }
func (c *okCounter) Tick(t *engine.Tick)    { c.ok += t.Interval.Total().OK }
func (c *okCounter) Stop(*engine.Result, *summary.Summary) error {
	fmt.Println("ok, interval by interval:", c.ok)
	return nil
}

// Run a plan end to end with an output of one's own beside the summary.
func ExampleRun() {
	srv, err := lab.New(lab.Config{}) // a built-in target on 127.0.0.1
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	prep, err := plan.Prepare(plan.Plan{
		Endpoints: []plan.Endpoint{{URL: srv.URL() + "/hello"}},
		Load:      plan.Load{Rate: 200, Requests: 50},
	}, nil)
	if err != nil {
		panic(err)
	}
	run, err := runner.Run(context.Background(), prep, runner.Options{Outputs: output.Set{&okCounter{}}})
	if err != nil {
		panic(err)
	}
	fmt.Println("ok in the summary:", run.Summary.Requests.OK)
	// Output:
	// ok, interval by interval: 50
	// ok in the summary: 50
}
