//go:build unix

package engine

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/plan"
)

// BenchmarkPacer10k runs the open model at 10,000/s for 2 s per iteration with a transport that
// answers at once, and reports the achieved rate against the intended one (%-of-rate), the send
// lag p99 (µs) and the CPU the whole process used per second of run (cpu-%: 100 is one core).
//
//	go test -run '^$' -bench Pacer10k -benchtime 3x ./engine
func BenchmarkPacer10k(b *testing.B) {
	p := plan.Plan{Endpoints: []plan.Endpoint{{URL: "http://127.0.0.1:1/"}}, Load: plan.Load{Rate: 10_000, Duration: 2 * time.Second, Connections: 64}}
	var ratio, lag, cpu float64
	for b.Loop() {
		before := cpuTime()
		res, err := Run(context.Background(), p, WithTransport(nopTransport{}))
		if err != nil {
			b.Fatal(err)
		}
		used := cpuTime() - before
		c := res.Total.Endpoints[0]
		ratio += float64(c.Sent) / res.Sending.Seconds() / 10_000
		lag += float64(res.Total.SendLag.ValueAtQuantile(99))
		cpu += used.Seconds() / res.Elapsed.Seconds()
	}
	n := float64(b.N)
	b.ReportMetric(100*ratio/n, "%-of-rate")
	b.ReportMetric(lag/n, "lag-p99-µs")
	b.ReportMetric(100*cpu/n, "cpu-%")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
