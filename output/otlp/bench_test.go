package otlp_test

import (
	"testing"

	"github.com/rpcbench/rpcbench/output"
	"github.com/rpcbench/rpcbench/output/internal/outputtest"
	"github.com/rpcbench/rpcbench/output/otlp"
)

// BenchmarkTick is OTLP/HTTP's cost per interval, as promrw's BenchmarkTick measures remote
// write's.
func BenchmarkTick(b *testing.B) {
	o, err := otlp.New("--out otlp", outputtest.Sink(b)+"/v1/metrics", otlp.Options{PushOptions: output.PushOptions{Queue: 1 << 16}})
	if err != nil {
		b.Fatal(err)
	}
	outputtest.Bench(b, o)
}
