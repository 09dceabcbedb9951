package monitor

import (
	"math"
	"runtime/metrics"
	"time"
)

// pauseMetric is the Go runtime's histogram of its stop-the-world pauses for garbage collection.
const pauseMetric = "/sched/pauses/total/gc:seconds"

// Pauses counts the garbage collector's stop-the-world pauses of this process between two reads
// of the runtime's histogram. The runtime keeps no exact figure of the longest pause, only the
// histogram bucket it fell in: it lasted at least MaxLow and less than Max.
type Pauses struct {
	Count       uint64
	MaxLow, Max time.Duration
}

// pauseReading is one read of the runtime's pause histogram.
type pauseReading struct {
	counts  []uint64
	buckets []float64 // seconds; len(counts)+1 edges
}

func readPauses() pauseReading {
	s := []metrics.Sample{{Name: pauseMetric}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindFloat64Histogram {
		return pauseReading{}
	}
	h := s[0].Value.Float64Histogram()
	return pauseReading{counts: append([]uint64(nil), h.Counts...), buckets: h.Buckets}
}

// since returns the pauses counted after prev.
func (r pauseReading) since(prev pauseReading) Pauses {
	var p Pauses
	for i, c := range r.counts {
		if i < len(prev.counts) {
			c -= min(c, prev.counts[i])
		}
		if c == 0 {
			continue
		}
		p.Count += c
		lo, hi := max(0, r.buckets[i]), r.buckets[i+1]
		if math.IsInf(hi, 1) {
			hi = lo
		}
		p.MaxLow = max(p.MaxLow, time.Duration(lo*float64(time.Second)))
		p.Max = max(p.Max, time.Duration(hi*float64(time.Second)))
	}
	return p
}
