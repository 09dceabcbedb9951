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
