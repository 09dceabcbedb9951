// Package outputtest runs a short real load through outputs for their tests, and reads the run's
// JSON report back: the figures an output's own route must agree with.
package outputtest

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/engine"
	"github.com/rpcbench/rpcbench/output"
	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/runner"
	"github.com/rpcbench/rpcbench/serve/lab"
	"github.com/rpcbench/rpcbench/summary"
)

// Report is the part of the JSON report the outputs' tests compare with.
type Report struct {
	Validity  struct{ Valid bool }
	Requests  struct{ Intended, Sent, Completed, OK uint64 }
	Endpoints []struct {
		Name     string
		Requests struct {
			Sent, Completed, OK uint64
			Unsent              uint64 `json:"failed_before_sending"`
		}
		Errors  map[string]uint64
		Latency struct{ P99 float64 } `json:"latency_ms"`
	}
}

// Run runs a short open-model load (400/s for 1.5 s, 250 ms intervals) on two endpoints, "a" and
// "b", of a lab server on loopback — one in ten answers a 500, one in five connections reset
// instead of answering — through outs, calls beforeStop (if not nil) after the last tick and
// before the outputs stop, and returns the JSON report of the run.
func Run(t *testing.T, run output.Run, outs output.Set, beforeStop func()) Report {
	t.Helper()
	srv, err := lab.New(lab.Config{ErrorRate: 0.1, ResetRate: 0.2, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	p := plan.Plan{
		Endpoints: []plan.Endpoint{{Name: "a", URL: srv.URL() + "/a"}, {Name: "b", URL: srv.URL() + "/b"}},
		Load:      plan.Load{Model: plan.Open, Rate: 400, Duration: 1500 * time.Millisecond, Interval: 250 * time.Millisecond, Connections: 8},
	}
	prep, err := plan.Prepare(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// the outputs as the runner feeds them, behind a probe that runs beforeStop once every tick is
	// in: the outputs stop in order, so the probe's Stop comes before theirs
	outs = append(output.Set{&beforeStopProbe{f: beforeStop}}, outs...)
	ro, err := runner.Run(ctx, prep, runner.Options{Outputs: outs, Version: "test", Labels: run.Labels, Command: run.Command})
	if err != nil {
		t.Fatal(err)
	}
	if ro.OutputErr != nil {
		t.Fatal(ro.OutputErr)
	}
	sum := ro.Summary
	b, err := json.Marshal(sum)
	if err != nil {
		t.Fatal(err)
	}
	var r Report
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if r.Requests.Sent == 0 || len(r.Endpoints) != 2 {
		t.Fatalf("the run sent nothing: %+v", r)
	}
	for _, e := range r.Endpoints {
		if e.Errors["status"] == 0 {
			t.Fatalf("endpoint %s: the lab's 500s did not show (%v): the failure series are not exercised", e.Name, e.Errors)
		}
	}
	if r.Requests.Sent == r.Requests.Completed {
		t.Fatalf("every request sent was answered (%d): the lab's resets did not show, and sent is not told from answered", r.Requests.Sent)
	}
	return r
}

// Second is a tick of one endpoint holding a second at 20,000/s: 20,000 latencies, service times
// and send lags, ten timeouts; for the outputs' benchmarks.
func Second() *engine.Tick {
	iv := result.NewInterval(1)
	iv.Start, iv.End, iv.Intended = 0, time.Second, 20000
	c := iv.Endpoints[0]
	c.Sent, c.Completed, c.OK = 20000, 20000, 19990
	c.Errors[result.Timeout] = 10
	for i := range int64(20000) {
		c.Latency.RecordValue(200 + i%5000) //nolint:errcheck // in range
		c.Service.RecordValue(150 + i%4000) //nolint:errcheck // in range
		iv.SendLag.RecordValue(10 + i%100)  //nolint:errcheck // in range
	}
	return &engine.Tick{Interval: iv, Elapsed: time.Second}
}

// Sink is a loopback HTTP server that reads and discards every request: a receiver whose own cost
// is small. It is closed when the test ends.
func Sink(tb testing.TB) string {
	tb.Helper()
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) //nolint:errcheck // a sink
	})}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	go srv.Serve(l) //nolint:errcheck // closed at cleanup
	tb.Cleanup(func() { srv.Close() })
	return "http://" + l.Addr().String()
}

// Bench ticks o with Second b.N times, then stops it, which waits for what it queued: the time
// per op is an interval's cost, sends included.
func Bench(b *testing.B, o interface {
	output.Output
	Dropped() uint64
}) {
	if err := o.Start(output.Run{Endpoints: []string{"GET /"}, Started: time.Now()}); err != nil {
		b.Fatal(err)
	}
	tick := Second()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		o.Tick(tick)
	}
	if err := o.Stop(nil, nil); err != nil {
		b.Fatal(err)
	}
	if o.Dropped() != 0 {
		b.Fatalf("%d samples dropped", o.Dropped())
	}
}

// beforeStopProbe is the first output of Run: its Stop calls f, before the others stop.
type beforeStopProbe struct{ f func() }

func (b *beforeStopProbe) Name() string           { return "probe" }
func (b *beforeStopProbe) Start(output.Run) error { return nil }
func (b *beforeStopProbe) Tick(*engine.Tick)      {}
func (b *beforeStopProbe) Stop(*engine.Result, *summary.Summary) error {
	if b.f != nil {
		b.f()
	}
	return nil
}
