package report

import (
	"fmt"
	"io"

	"github.com/rpcbench/rpcbench/summary"
)

// HGRM writes the run's latency distribution (from the intended send times, every endpoint
// together) as HdrHistogram's percentile distribution text, values in milliseconds: the table of
// Value, Percentile, TotalCount and 1/(1-Percentile) with the Mean, StdDeviation, Max and Total
// count footer, which HdrHistogram's plotter and other tools read.
func HGRM(w io.Writer, s *summary.Summary) error {
	h := s.LatencyHist
	if h == nil {
		return fmt.Errorf("report: hgrm: the run has no latency histogram")
	}
	_, err := h.PercentilesPrint(w, 5, 1000) // 5 ticks per half distance, as HdrHistogram prints; µs → ms
	return err
}
