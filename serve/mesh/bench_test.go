package mesh

import (
	"context"
	"testing"
)

// BenchmarkHop runs chains of 50 hops over each transport and as function calls; ns/hop is
// HopLatency, the chain's round trip per hop, the figure the service reports.
func BenchmarkHop(b *testing.B) {
	const limit = 50
	req := HopRequest{Queue: DefaultNames(), Limit: limit}
	for _, tr := range append(Transports(), "static") {
		b.Run(string(tr), func(b *testing.B) {
			cfg := Config{Transport: tr}
			if tr == "static" {
				cfg.Transport = GRPC
			}
			m := startMesh(b, cfg)
			run := m.Gateway().Hop
			if tr == "static" {
				run = m.Gateway().StaticHop
			}
			if _, err := run(context.Background(), req); err != nil { // connect before timing
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			var total int64
			for b.Loop() {
				r, err := run(context.Background(), req)
				if err != nil {
					b.Fatal(err)
				}
				total += r.State.HopLatency
			}
			b.ReportMetric(float64(total)/float64(b.N), "ns/hop")
		})
	}
}

// BenchmarkDeepChain is the 10,000-hop chain of the issue, once per iteration.
func BenchmarkDeepChain(b *testing.B) {
	req := HopRequest{Queue: DefaultNames(), Limit: 10_000}
	for _, tr := range []Transport{H2C, GRPC} {
		b.Run(string(tr), func(b *testing.B) {
			m := startMesh(b, Config{Transport: tr})
			b.ReportAllocs()
			var total int64
			for b.Loop() {
				r, err := m.Gateway().Hop(context.Background(), req)
				if err != nil {
					b.Fatal(err)
				}
				total += r.State.HopLatency
			}
			b.ReportMetric(float64(total)/float64(b.N), "ns/hop")
		})
	}
}
