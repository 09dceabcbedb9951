package compare_test

import (
	"fmt"

	"github.com/rpcbench/rpcbench/compare"
	"github.com/rpcbench/rpcbench/summary"
)

func ExampleNew() {
	before, after := &summary.Summary{}, &summary.Summary{}
	before.Throughput, before.Latency.P99 = 1000, 40
	after.Throughput, after.Latency.P99 = 3200, 20
	c := compare.New([]*summary.Summary{before, after}, []string{"before.rb", "after.rb"})
	for _, m := range c.Metrics {
		if m.Name == "throughput" || m.Name == "p99" {
			fmt.Printf("%s vs %s: %s (better: %v)\n", c.Labels[1], c.Labels[0], m.Phrase(1), m.Improved(1))
		}
	}
	// Output:
	// after.rb vs before.rb: 3.2× more requests/s (better: true)
	// after.rb vs before.rb: 0.50× the p99 (better: true)
}

// Each endpoint is compared too, matched by name, when a run has several.
func ExampleNew_endpoints() {
	before, after := &summary.Summary{}, &summary.Summary{}
	get, put := summary.Endpoint{Name: "get"}, summary.Endpoint{Name: "put"}
	get.Throughput, get.Latency.P99, put.Throughput, put.Latency.P99 = 100, 20, 50, 40
	before.Endpoints = []summary.Endpoint{get, put}
	get.Throughput, get.Latency.P99, put.Throughput, put.Latency.P99 = 150, 30, 25, 10
	after.Endpoints = []summary.Endpoint{put, get}
	c := compare.New([]*summary.Summary{before, after}, []string{"before", "after"})
	for _, e := range c.Endpoints {
		for _, name := range []string{"throughput", "p99"} {
			m, _ := compare.Find(e.Metrics, name)
			fmt.Printf("%s: %s\n", e.Name, m.Phrase(1))
		}
	}
	// Output:
	// get: 1.5× more requests/s
	// get: 1.5× the p99
	// put: 0.50× the requests/s
	// put: 0.25× the p99
}
