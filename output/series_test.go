package output_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/engine"
	"github.com/rpcbench/rpcbench/output"
	"github.com/rpcbench/rpcbench/result"
)

// tick returns a one-second interval of n endpoints, each with sent requests, ok answers of
// latency 1 ms to sent ms, and one timeout.
func tick(n int, sent uint64) *engine.Tick {
	iv := result.NewInterval(n)
	iv.Start, iv.End, iv.Intended = 0, time.Second, uint64(n)*(sent+1)
	for _, c := range iv.Endpoints {
		c.Sent, c.Completed, c.OK = sent+1, sent, sent
		c.Errors[result.Timeout] = 1
		for v := range sent {
			c.Latency.RecordValue(int64(v+1) * 1000) //nolint:errcheck // in range
			c.Service.RecordValue(int64(v+1) * 1000) //nolint:errcheck // in range
		}
	}
	return &engine.Tick{Interval: iv}
}

// The series of a run of a few endpoints are per endpoint; a run of more than MaxLiveEndpoints
// has those of all endpoints together only, so that the number of series does not grow with the
// endpoints; counters add up over the ticks.
func TestSeriesBounded(t *testing.T) {
	count := func(n int) (int, map[string]float64) {
		names := make([]string, n)
		for i := range names {
			names[i] = fmt.Sprintf("e%d", i)
		}
		s := output.NewSeries(output.Run{Endpoints: names, Labels: map[string]string{"run_id": "x"}})
		s.Tick(tick(n, 10))
		samples := s.Tick(tick(n, 10))
		sent := map[string]float64{}
		for _, sm := range samples {
			if sm.Name != "rpcbench_requests_sent_total" {
				continue
			}
			ep := ""
			for _, l := range sm.Labels {
				if l.Name == "endpoint" {
					ep = l.Value
				}
			}
			sent[ep] = sm.Value
		}
		return len(samples), sent
	}
	// per endpoint: sent, ok, failed{timeout}, rate, 4 latency and 2 service quantiles = 10;
	// the run: intended, intended rate, in flight = 3; all endpoints' percentiles = 6
	if n, sent := count(3); n != 3*10+3+6 || sent["e0"] != 22 || sent["e2"] != 22 {
		t.Errorf("3 endpoints: %d samples, sent %v; want %d, 22 each after two ticks", n, sent, 3*10+3+6)
	}
	big := output.MaxLiveEndpoints + 1
	// all endpoints together: 10, the run's 3, and the folded mark
	if n, sent := count(big); n != 10+3+1 || sent[""] != float64(2*11*big) || len(sent) != 1 {
		t.Errorf("%d endpoints: %d samples, sent %v; want 14 samples, one sent of %d", big, n, sent, 2*11*big)
	}
}

// A watched target's last sample goes out with the next tick, labelled with the target: its RSS
// from the first (baseline) sample on, its CPU once a sample covers an interval.
func TestSeriesResources(t *testing.T) {
	s := output.NewSeries(output.Run{Endpoints: []string{"a"}})
	find := func(samples []output.Sample, name string) (float64, bool) {
		for _, sm := range samples {
			if sm.Name == name && len(sm.Labels) == 2 && sm.Labels[1] == (output.Label{Name: "watched", Value: "pid 42"}) {
				return sm.Value, true
			}
		}
		return 0, false
	}
	s.Resource("pid 42", result.ResourceSample{RSS: 1 << 20})
	got := s.Tick(tick(1, 1))
	if _, ok := find(got, "rpcbench_target_cpu_percent"); ok {
		t.Error("a CPU figure from the baseline sample, which has none")
	}
	if v, ok := find(got, "rpcbench_target_rss_bytes"); !ok || v != 1<<20 {
		t.Errorf("rss %v, %v; want %d", v, ok, 1<<20)
	}
	s.Resource("pid 42", result.ResourceSample{Interval: time.Second, CPUPercent: 87.5, RSS: 3 << 20})
	got = s.Tick(tick(1, 1))
	if v, ok := find(got, "rpcbench_target_cpu_percent"); !ok || v != 87.5 {
		t.Errorf("cpu %v, %v; want 87.5", v, ok)
	}
	if v, ok := find(got, "rpcbench_target_rss_bytes"); !ok || v != 3<<20 {
		t.Errorf("rss %v, %v; want %d", v, ok, 3<<20)
	}
}
