package replay

import (
	"io"
	"testing"

	"github.com/rpcbench/rpcbench/result"
)

// BenchmarkReplayPass is the cost per line of a replay, network aside: scanning a generated access
// log and taking every record in order, as the pacer and senders do (scripts/replay-throughput.sh
// measures the same on a file of any size).
func BenchmarkReplayPass(b *testing.B) {
	const lines = 20_000
	o := Options{Files: []string{"gen.log"}, Format: msecLayout, Base: "http://127.0.0.1:9",
		Open: func(string) (io.ReadCloser, error) { return io.NopCloser(&genLog{n: lines}), nil }}
	b.ReportAllocs()
	for b.Loop() {
		tl, err := Scan(o)
		if err != nil {
			b.Fatal(err)
		}
		tl.Start()
		var r result.Request
		for i := range tl.Records() {
			tl.At(i)
			if err := tl.Fill(i, &r); err != nil {
				b.Fatal(err)
			}
		}
		tl.Close()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*lines), "ns/line")
}
