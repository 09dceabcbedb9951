package promrw_test

import (
	"testing"

	"github.com/rpcbench/rpcbench/output"
	"github.com/rpcbench/rpcbench/output/internal/outputtest"
	"github.com/rpcbench/rpcbench/output/promrw"
)

// BenchmarkTick is remote write's cost per interval: the series of a second at 20,000/s, queued,
// encoded, compressed and posted to a loopback receiver that discards them (its own cost counted
// too). At one interval a second, its time per op bounds the CPU remote write adds per second.
func BenchmarkTick(b *testing.B) {
	rw, err := promrw.New("prometheus-rw", outputtest.Sink(b)+"/", promrw.Options{PushOptions: output.PushOptions{Queue: 1 << 16}})
	if err != nil {
		b.Fatal(err)
	}
	outputtest.Bench(b, rw)
}
