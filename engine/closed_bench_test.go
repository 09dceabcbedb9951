//go:build unix

package engine

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/plan"
)

// BenchmarkClosedTarget runs the closed loop, 50 connections for 5 s per iteration, through the
// plan's own transport against the HTTP/1.1 target in RPCBENCH_BENCH_URL (skipped without it), and
// reports answers per CPU-second of the whole process. With -cpuprofile it is the profile of the
// generator's work per request (docs/performance.md, "A write and a read per request over
// HTTP/1.1"): start nginx on another core (scripts/lib.sh start_nginx) and pin this one:
//
//	RPCBENCH_BENCH_URL=http://127.0.0.1:PORT/ taskset -c 0 go test -run '^$' -bench ClosedTarget -benchtime 1x -cpuprofile cpu.pprof ./engine
func BenchmarkClosedTarget(b *testing.B) {
	url := os.Getenv("RPCBENCH_BENCH_URL")
	if url == "" {
		b.Skip("set RPCBENCH_BENCH_URL to an HTTP/1.1 target on loopback")
	}
	p := plan.Plan{Endpoints: []plan.Endpoint{{URL: url}}, Load: plan.Load{Connections: 50, Duration: 5 * time.Second}}
	var answers, cpu float64
	for b.Loop() {
		before := cpuTime()
		res, err := Run(context.Background(), p)
		if err != nil {
			b.Fatal(err)
		}
		cpu += (cpuTime() - before).Seconds()
		c := res.Total.Endpoints[0]
		if c.Failed() > 0 {
			b.Fatalf("%d of %d requests failed", c.Failed(), c.Sent)
		}
		answers += float64(c.Sent)
	}
	b.ReportMetric(answers/cpu, "answers/cpu-s")
}
