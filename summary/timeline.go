package summary

import (
	"github.com/rpcbench/rpcbench/result"
)

// Point is one interval of a run as a row of its time series: what the CSV report lists and the
// HTML report charts. Latencies are in milliseconds; times in seconds from the measured start.
type Point struct {
	Start    float64 `json:"start_s"`
	End      float64 `json:"end_s"`
	Endpoint string  `json:"endpoint,omitempty"` // "" for all endpoints together
	Sent     uint64  `json:"sent"`
	OK       uint64  `json:"ok"`
	Errors   uint64  `json:"errors"`
	RPS      float64 `json:"rps"` // answers per second in the interval
	P50      float64 `json:"p50_ms"`
	P90      float64 `json:"p90_ms"`
	P99      float64 `json:"p99_ms"`
	Max      float64 `json:"max_ms"`
}

// Timeline collects the points of a run, one per interval for all endpoints together and, when
// there are several endpoints, one per interval and endpoint. Its memory grows by a few hundred
// bytes per interval, not per request. The zero value is ready to use; not safe for concurrent use.
type Timeline struct {
	Points []Point        `json:"points"`
	total  *result.Counts // all endpoints of an interval together, reused
}

// Add appends the points of iv; names label the endpoints (by index).
func (t *Timeline) Add(iv *result.Interval, names []string) {
	if iv.End <= iv.Start {
		return
	}
	if t.total == nil {
		t.total = result.NewCounts()
	}
	total := t.total
	total.Reset()
	for _, c := range iv.Endpoints {
		total.Merge(c)
	}
	t.Points = append(t.Points, point(iv, total, ""))
	if len(iv.Endpoints) > 1 {
		for i, c := range iv.Endpoints {
			name := ""
			if i < len(names) {
				name = names[i]
			}
			t.Points = append(t.Points, point(iv, c, name))
		}
	}
}

func point(iv *result.Interval, c *result.Counts, name string) Point {
	p := Point{
		Start: iv.Start.Seconds(), End: iv.End.Seconds(), Endpoint: name,
		Sent: c.Sent, OK: c.OK, Errors: c.Sent - min(c.OK, c.Sent),
	}
	if d := (iv.End - iv.Start).Seconds(); d > 0 {
		p.RPS = float64(c.Completed) / d
	}
	if c.Latency.TotalCount() > 0 {
		p.P50 = ms(c.Latency.ValueAtQuantile(50))
		p.P90 = ms(c.Latency.ValueAtQuantile(90))
		p.P99 = ms(c.Latency.ValueAtQuantile(99))
		p.Max = ms(c.Latency.Max())
	}
	return p
}
