package report_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"regexp"

	"github.com/rpcbench/rpcbench/engine"
	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/report"
	"github.com/rpcbench/rpcbench/serve/lab"
	"github.com/rpcbench/rpcbench/summary"
)

// Render the HTML page of a run made with the library, timeline included: a Timeline observer
// keeps each interval's figures, as `rpcbench run --html` does.
func ExampleHTML() {
	srv, err := lab.New(lab.Config{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	defer srv.Close()

	p := plan.Plan{Endpoints: []plan.Endpoint{{Name: "hello", URL: srv.URL() + "/hello"}}, Load: plan.Load{Rate: 500, Requests: 200}}
	var tl summary.Timeline
	res, err := engine.Run(context.Background(), p, engine.WithObserver(func(t *engine.Tick) { tl.Add(t.Interval, []string{"hello"}) }))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	s := summary.New(summary.Run{Plan: res.Plan, Version: "example", Trailer: res.Trailer}, res.Total)
	s.SetTimeline(tl.Points)
	var page bytes.Buffer
	if err := report.HTML(&page, []*summary.Summary{s}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	title := regexp.MustCompile(`<title>rpcbench report: [^<]*/hello</title>`).MatchString(page.String())
	charts := bytes.Contains(page.Bytes(), []byte(`id="chart-latency"`)) && bytes.Contains(page.Bytes(), []byte(`id="rpcbench-data"`))
	fmt.Println("title:", title, "charts:", charts, "timeline:", len(s.Timeline) > 0)
	// Output: title: true charts: true timeline: true
}
