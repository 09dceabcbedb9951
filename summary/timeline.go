package summary

import (
	"math"

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
	// SvcP50 and SvcP99 are the service time's (from the actual send), beside the latency's
	// (from the intended send).
	SvcP50 float64 `json:"service_p50_ms"`
	SvcP99 float64 `json:"service_p99_ms"`
	// LagP99 is the p99 send lag of the requests sent on a schedule in the interval (how late
	// after their intended times they went out), for all endpoints together; 0 when none was.
	LagP99 float64 `json:"send_lag_p99_ms,omitempty"`
}

// TimelineEndpoints is the most endpoints whose own points a Timeline keeps (unless Every): a run of
// more keeps the points of all endpoints together only, so that the timeline of a long run stays
// small — each point takes about 100 bytes, and 1,000 endpoints would add 100 KB a second.
const TimelineEndpoints = 100

// Timeline collects the points of a run, one per interval for all endpoints together and, when
// there are several endpoints (at most TimelineEndpoints, or any number with Every), one per interval
// and endpoint. Its memory grows by about 100 bytes per point, not per request. The zero value is
// ready to use; not safe for concurrent use.
type Timeline struct {
	Points []Point `json:"points"`
	// Every keeps the points of every endpoint however many there are: for a timeline that is
	// written out and dropped interval by interval.
	Every bool           `json:"-"`
	total *result.Counts // reused by Add
}

// Add appends the points of iv; names label the endpoints (by index).
func (t *Timeline) Add(iv *result.Interval, names []string) {
	if iv.End <= iv.Start {
		return
	}
	if t.total == nil {
		t.total = result.NewCounts()
	}
	t.Points = append(t.Points, point(iv, iv.TotalInto(t.total), ""))
	if n := len(iv.Endpoints); n > 1 && (n <= TimelineEndpoints || t.Every) {
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
		Sent: c.Sent, OK: c.OK, Errors: c.Attempted() - min(c.OK, c.Attempted()),
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
	if c.Service.TotalCount() > 0 {
		p.SvcP50 = ms(c.Service.ValueAtQuantile(50))
		p.SvcP99 = ms(c.Service.ValueAtQuantile(99))
	}
	if name == "" && iv.SendLag != nil && iv.SendLag.TotalCount() > 0 {
		p.LagP99 = ms(iv.SendLag.ValueAtQuantile(99))
	}
	return p
}

// SetTimeline sets the run's timeline and, from it, SendingThroughput: the answers that came within
// the sending window over its length. An interval across the window's end counts pro rata.
func (s *Summary) SetTimeline(points []Point) {
	s.Timeline = points
	s.SendingThroughput = 0
	span := s.SendSpanS
	if span <= 0 {
		return
	}
	in := 0.0
	for _, p := range points {
		d := p.End - p.Start
		if p.Endpoint != "" || d <= 0 || p.Start >= span {
			continue
		}
		answers := math.Round(p.RPS * d)
		if p.End > span {
			answers *= (span - p.Start) / d
		}
		in += answers
	}
	s.SendingThroughput = in / span
}
