package summary_test

import (
	"context"
	"fmt"
	"os"

	"github.com/rpcbench/rpcbench/engine"
	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/report"
	"github.com/rpcbench/rpcbench/serve/lab"
	"github.com/rpcbench/rpcbench/summary"
)

// The four imports of a library user: plan describes the work, engine runs it, summary folds the
// results, report prints them.
func ExampleNew() {
	srv, err := lab.New(lab.Config{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	defer srv.Close()

	p := plan.Plan{Endpoints: []plan.Endpoint{{URL: srv.URL()}}, Load: plan.Load{Connections: 4, Requests: 200}}
	res, err := engine.Run(context.Background(), p)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	s := summary.New(summary.Run{Plan: res.Plan, Version: "example", Trailer: res.Trailer}, res.Total)
	fmt.Println(s.Schema, s.Requests.OK, s.Status["200"])
	if err := report.Text(os.Stderr, s); err != nil { // the report people read
		fmt.Fprintln(os.Stderr, err)
	}
	// Output: rpcbench.report/v1 200 200
}
