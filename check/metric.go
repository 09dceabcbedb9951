package check

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/rpcbench/rpcbench/internal/jsonscan"
	"github.com/rpcbench/rpcbench/result"
)

// Metric reads a number from each answer's body, at a JSON path, so that a figure the service
// reports about itself (the latency of one hop of a chain, the rows a query scanned) gets a
// distribution of its own beside the latency the client measured. Make it with NewMetric; Metrics
// are immutable and safe for concurrent use.
type Metric struct {
	name string
	path Path
}

// NewMetric returns the metric name read at path, e.g. NewMetric("hop_latency_ns",
// "State.HopLatency"). The name says the unit: the value is recorded as the answer gives it.
func NewMetric(name, path string) (Metric, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return Metric{}, fmt.Errorf("metric at %q: empty name; want NAME: PATH, such as hop_latency_ns: State.HopLatency", path)
	}
	p, err := ParsePath(strings.TrimSpace(path))
	if err != nil {
		return Metric{}, fmt.Errorf("metric %s: %v", name, err)
	}
	return Metric{name: name, path: p}, nil
}

// Name returns the metric's name.
func (m Metric) Name() string { return m.name }

// read returns the value of m in body: a JSON number from 0 to result.MetricMax, rounded to a whole
// number; ok is false for anything else (no value at the path, not a number, out of range).
func (m *Metric) read(body []byte) (v int64, ok bool) {
	raw, found, err := m.path.Lookup(body)
	if err != nil || !found || jsonscan.KindOf(raw) != jsonscan.Number {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || f < 0 || f > float64(result.MetricMax) {
		return 0, false
	}
	return int64(math.Round(f)), true
}
