package monitor_test

import (
	"fmt"
	"time"

	"github.com/rpcbench/rpcbench/monitor"
)

// A Sampler turns readings into per-interval figures; a Series keeps them and sums them up. Here
// the readings are written by hand, as NewSampler's Sample would read them from /proc each tick.
func Example() {
	var s monitor.Sampler
	var series monitor.Series
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	for i, cpu := range []time.Duration{0, 500 * time.Millisecond, 2500 * time.Millisecond} {
		snap := monitor.Snapshot{Procs: []monitor.ProcReading{{
			PID: 42, CPU: cpu, RSS: uint64(64+i) << 20, Threads: 8, FDs: 12, IOKnown: true,
		}}}
		x := s.Observe(t0.Add(time.Duration(i)*time.Second), snap)
		series.Add(x)
		fmt.Printf("t=%ds cpu=%.0f%% rss=%dMiB\n", i, x.CPUPercent, x.RSS>>20)
	}
	sum := series.Summary()
	fmt.Printf("cpu avg %.0f%% peak %.0f%% of one core; rss peak %.0f MiB\n",
		sum.CPUPercent.Avg, sum.CPUPercent.Peak, sum.RSS.Peak/(1<<20))
	fmt.Println("one core saturated:", sum.Saturated(1))
	// Output:
	// t=0s cpu=0% rss=64MiB
	// t=1s cpu=50% rss=65MiB
	// t=2s cpu=200% rss=66MiB
	// cpu avg 125% peak 200% of one core; rss peak 66 MiB
	// one core saturated: true
}
