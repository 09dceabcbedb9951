package output

import (
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rpcbench/rpcbench/engine"
	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/summary"
)

// ResourceObserver is an Output that also takes the watched targets' CPU and memory as they are
// sampled (the watch's samples: result.ResourceSample). The runner calls Resource from the
// watch's goroutine, concurrently with Tick: an implementation guards what the two share.
type ResourceObserver interface {
	Output
	Resource(target string, s result.ResourceSample)
}

// SeriesKind says how a series' values add up: a counter only grows over the run, a gauge is the
// figure of its moment (the last interval's).
type SeriesKind uint8

// The kinds of series.
const (
	Gauge SeriesKind = iota
	Counter
	// Histogram is a native (exponential) histogram that only grows over the run: Sample.Native.
	Histogram
)

// NativeSchema is the resolution of the native histograms: each power of two is cut into 2^3
// buckets, each 9 % wider than the one before, so that a quantile read from one is within 9 % of
// the latency it estimates.
const NativeSchema = 3

// Native is a native histogram of latencies in seconds, as Prometheus and OpenTelemetry
// (exponential histograms, scale = schema) define them: bucket i holds the values in
// (2^((i-1)/2^Schema), 2^(i/2^Schema)]. Sum is the latencies' sum as the HDR histograms they come
// from give it (each value rounded to 3 significant digits).
type Native struct {
	Schema int32
	Count  uint64
	Zero   uint64 // values of 0

	Sum     float64
	Buckets map[int32]uint64
}

// Label is one label of a series.
type Label struct{ Name, Value string }

// Sample is one value of one series: the metric's name, its kind, its labels sorted by name (the
// run's labels among them) and the value, in base units (seconds, bytes).
type Sample struct {
	Name   string
	Kind   SeriesKind
	Labels []Label
	Value  float64
	// Native is the histogram of a sample of Kind Histogram: a copy, the sample's own.
	Native *Native
}

// The names of the live series and what each means: the help text of a scrape endpoint and of
// remote write's metadata.
var SeriesHelp = map[string]string{
	"rpcbench_requests_intended_total":    "Requests that fell due (open model) or were started (closed model), all endpoints together.",
	"rpcbench_requests_sent_total":        "Requests written to the wire.",
	"rpcbench_requests_ok_total":          "Answers that counted as a success.",
	"rpcbench_requests_failed_total":      "Failed requests, by class of failure.",
	"rpcbench_rate_intended_per_second":   "Requests intended per second in the last interval.",
	"rpcbench_rate_achieved_per_second":   "Answers per second in the last interval.",
	"rpcbench_latency_seconds":            "Latency (from the intended send to the answer, or to the failure) of the last interval, by quantile; quantile 1 is the maximum.",
	"rpcbench_service_time_seconds":       "Service time (from the actual send to the answer) of the last interval, by quantile.",
	"rpcbench_send_lag_seconds":           "How late after their intended times the last interval's requests went out, by quantile.",
	"rpcbench_in_flight":                  "Requests being sent or awaited.",
	"rpcbench_run_valid":                  "The run's validity verdict, known when it ends: 1 valid, 0 not (see the report's reasons).",
	"rpcbench_target_cpu_percent":         "CPU of a watched target in its last sample, percent of one core.",
	"rpcbench_target_rss_bytes":           "Resident memory of a watched target in its last sample.",
	"rpcbench_latency_histogram_seconds":  "Latency (from the intended send to the answer, or to the failure) of every request so far, as a native histogram.",
	"rpcbench_live_endpoints_folded_info": "1 when the run had more endpoints than the live series keep one by one: its figures are for all endpoints together.",
}

// MaxLiveEndpoints is the most endpoints whose own series the live outputs keep; a run of more
// sends the figures of all endpoints together only, so that the number of series stays bounded
// (about 25 per endpoint).
const MaxLiveEndpoints = summary.TimelineEndpoints

// Series turns a run's ticks into the samples of the live metric outputs (remote write, OTLP, a
// scrape endpoint), so that all of them send the same series: per endpoint, the counts so far
// (intended, sent, ok, failed by class) as counters, and the last interval's achieved rate,
// latency and service-time percentiles as gauges; for the run, the intended rate, send lag, requests
// in flight, the watched targets' CPU and RSS, and at the end the validity verdict. Every series
// carries the run's labels (run_id, and scenario, target, step for a plan file's run).
//
// Tick and Final are not for concurrent use; Resource may be called beside them.
type Series struct {
	base    []Label
	names   []string // endpoint names; one "" entry when the endpoints are folded together
	folded  bool
	aggr    bool // several endpoints kept one by one: percentiles of all together too
	counts  []*result.Counts
	total   *result.Counts
	all     *result.Counts // reused by Tick
	intend  uint64
	lastLag float64

	// Natives, when set before the first Tick, adds a native histogram of each endpoint's latency
	// (rpcbench_latency_histogram_seconds), for receivers that take them.
	Natives bool
	natives []Native

	mu  sync.Mutex
	res map[string]result.ResourceSample
}

var labelName = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)

// RunID is the run_id label of a run started at t: the time in UTC, to the second. The runs of one
// plan file (package bench) share the one of its start.
func RunID(t time.Time) string { return t.UTC().Format("20060102T150405Z") }

// NewSeries returns the series of run r. The run's labels whose names are not valid label names
// are left out; run_id is r.Labels["run_id"], else the run's start time (UTC, to the second).
func NewSeries(r Run) *Series {
	s := &Series{res: map[string]result.ResourceSample{}}
	id := RunID(r.Started)
	for k, v := range r.Labels {
		switch {
		case k == "run_id":
			id = v
		case labelName.MatchString(k) && !strings.HasPrefix(k, "__") && k != "endpoint" && k != "class" && k != "quantile" && k != "watched":
			s.base = append(s.base, Label{k, v})
		}
	}
	s.base = append(s.base, Label{"run_id", id})
	slices.SortFunc(s.base, func(a, b Label) int { return strings.Compare(a.Name, b.Name) })
	s.names = r.Endpoints
	if len(s.names) > MaxLiveEndpoints || len(s.names) == 0 {
		s.names, s.folded = []string{""}, len(r.Endpoints) > 0
	}
	s.aggr = len(s.names) > 1
	s.counts = make([]*result.Counts, len(s.names))
	for i := range s.counts {
		s.counts[i] = result.NewCounts()
	}
	s.total, s.all = result.NewCounts(), result.NewCounts()
	return s
}

// Folded says whether the run had more endpoints than MaxLiveEndpoints, so that its series are of
// all endpoints together.
func (s *Series) Folded() bool { return s.folded }

// Resource keeps the last sample of a watched target, sent with the next tick's samples.
func (s *Series) Resource(target string, rs result.ResourceSample) {
	s.mu.Lock()
	s.res[target] = rs
	s.mu.Unlock()
}

// Tick adds t's interval to the counts and returns the samples of the moment: nil during the
// warm-up, whose requests the figures leave out.
func (s *Series) Tick(t *engine.Tick) []Sample {
	if t.Warmup {
		return nil
	}
	iv := t.Interval
	var out []Sample
	add := func(name string, kind SeriesKind, v float64, labels ...Label) {
		ls := make([]Label, 0, len(s.base)+len(labels))
		ls = append(append(ls, s.base...), labels...)
		slices.SortFunc(ls, func(a, b Label) int { return strings.Compare(a.Name, b.Name) })
		out = append(out, Sample{Name: name, Kind: kind, Labels: ls, Value: v})
	}
	dur := 0.0
	if iv != nil && iv.End > iv.Start {
		dur = (iv.End - iv.Start).Seconds()
	}
	if iv != nil {
		s.intend += iv.Intended
		if s.Natives && s.natives == nil {
			s.natives = make([]Native, len(s.names))
		}
		if s.folded || len(iv.Endpoints) != len(s.names) {
			all := iv.TotalInto(s.all)
			s.counts[0].Merge(all)
			s.addNative(0, all.Latency)
		} else {
			for i, c := range iv.Endpoints {
				s.counts[i].Merge(c)
				s.addNative(i, c.Latency)
			}
		}
	}
	add("rpcbench_requests_intended_total", Counter, float64(s.intend))
	if dur > 0 {
		add("rpcbench_rate_intended_per_second", Gauge, float64(iv.Intended)/dur)
		if iv.SendLag != nil && iv.SendLag.TotalCount() > 0 {
			s.lastLag = seconds(iv.SendLag.ValueAtQuantile(99))
			add("rpcbench_send_lag_seconds", Gauge, seconds(iv.SendLag.ValueAtQuantile(50)), Label{"quantile", "0.5"})
			add("rpcbench_send_lag_seconds", Gauge, s.lastLag, Label{"quantile", "0.99"})
		}
	}
	add("rpcbench_in_flight", Gauge, float64(t.InFlight))
	if s.folded {
		add("rpcbench_live_endpoints_folded_info", Gauge, 1)
	}
	for i, name := range s.names {
		var ep []Label
		if name != "" {
			ep = []Label{{"endpoint", name}}
		}
		c := s.counts[i]
		add("rpcbench_requests_sent_total", Counter, float64(c.Sent), ep...)
		if s.natives != nil && s.natives[i].Count > 0 {
			add("rpcbench_latency_histogram_seconds", Histogram, 0, ep...)
			out[len(out)-1].Native = s.natives[i].clone()
		}
		add("rpcbench_requests_ok_total", Counter, float64(c.OK), ep...)
		for cl := result.Class(1); cl < result.NumClasses; cl++ {
			if n := c.Errors[cl]; n > 0 {
				add("rpcbench_requests_failed_total", Counter, float64(n), append(ep, Label{"class", cl.String()})...)
			}
		}
		if dur == 0 {
			continue
		}
		cur := s.all
		if !s.folded && len(iv.Endpoints) == len(s.names) {
			cur = iv.Endpoints[i]
		}
		add("rpcbench_rate_achieved_per_second", Gauge, float64(cur.Completed)/dur, ep...)
		s.percentiles(add, cur, ep)
	}
	if s.aggr && dur > 0 {
		s.percentiles(add, iv.TotalInto(s.all), nil)
	}
	s.mu.Lock()
	for name, rs := range s.res {
		if rs.Interval > 0 { // the baseline has no rates
			add("rpcbench_target_cpu_percent", Gauge, rs.CPUPercent, Label{"watched", name})
		}
		add("rpcbench_target_rss_bytes", Gauge, float64(rs.RSS), Label{"watched", name})
	}
	s.mu.Unlock()
	return out
}

// addNative adds the latencies of h (µs) to the native histogram of endpoint i.
func (s *Series) addNative(i int, h *result.Histogram) {
	if s.natives == nil || h.TotalCount() == 0 {
		return
	}
	n := &s.natives[i]
	if n.Buckets == nil {
		n.Schema, n.Buckets = NativeSchema, map[int32]uint64{}
	}
	for _, b := range h.Distribution() {
		n.Count += uint64(b.Count)
		if b.To <= 0 {
			n.Zero += uint64(b.Count)
			continue
		}
		v := seconds(b.To)
		idx := int32(math.Ceil(math.Log2(v) * (1 << NativeSchema)))
		n.Buckets[idx] += uint64(b.Count)
	}
	n.Sum += h.Mean() * float64(h.TotalCount()) / float64(time.Second/time.Microsecond)
}

func (n *Native) clone() *Native {
	c := *n
	c.Buckets = maps.Clone(n.Buckets)
	return &c
}

// percentiles adds the latency and service-time percentiles of c, as the timeline of the JSON
// report computes them (summary.Point).
func (s *Series) percentiles(add func(string, SeriesKind, float64, ...Label), c *result.Counts, ep []Label) {
	if c.Latency.TotalCount() > 0 {
		for _, q := range []struct {
			q float64
			l string
		}{{50, "0.5"}, {90, "0.9"}, {99, "0.99"}} {
			add("rpcbench_latency_seconds", Gauge, seconds(c.Latency.ValueAtQuantile(q.q)), append(ep, Label{"quantile", q.l})...)
		}
		add("rpcbench_latency_seconds", Gauge, seconds(c.Latency.Max()), append(ep, Label{"quantile", "1"})...)
	}
	if c.Service.TotalCount() > 0 {
		add("rpcbench_service_time_seconds", Gauge, seconds(c.Service.ValueAtQuantile(50)), append(ep, Label{"quantile", "0.5"})...)
		add("rpcbench_service_time_seconds", Gauge, seconds(c.Service.ValueAtQuantile(99)), append(ep, Label{"quantile", "0.99"})...)
	}
}

// Final returns the samples known only when the run has ended: its validity verdict. nil without a
// summary (the run did not happen).
func (s *Series) Final(sum *summary.Summary) []Sample {
	if sum == nil {
		return nil
	}
	v := 0.0
	if sum.Validity.Valid {
		v = 1
	}
	return []Sample{{Name: "rpcbench_run_valid", Kind: Gauge, Labels: slices.Clone(s.base), Value: v}}
}

// seconds converts the histograms' microseconds to seconds.
func seconds(us int64) float64 { return float64(us) / float64(time.Second/time.Microsecond) }
