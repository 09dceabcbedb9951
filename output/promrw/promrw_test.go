package promrw_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/klauspost/compress/snappy"
	"github.com/prometheus/prometheus/prompb"

	"github.com/rpcbench/rpcbench/engine"
	"github.com/rpcbench/rpcbench/output"
	"github.com/rpcbench/rpcbench/output/internal/outputtest"
	"github.com/rpcbench/rpcbench/output/promrw"
	"github.com/rpcbench/rpcbench/output/promrw/prometheustest"
	"github.com/rpcbench/rpcbench/summary"
)

// startPrometheus and query are prometheustest's, named as the tests of this file call them.
var (
	startPrometheus = prometheustest.Start
	query           = prometheustest.Query
)

// The series a real Prometheus stored from a run hold the counts of the run's JSON report.
func TestRemoteWriteToPrometheus(t *testing.T) {
	base := startPrometheus(t)
	var notes strings.Builder
	rw, err := promrw.New("prometheus-rw", base+"/api/v1/write", promrw.Options{PushOptions: output.PushOptions{Notes: &notes}})
	if err != nil {
		t.Fatal(err)
	}
	rep := outputtest.Run(t, output.Run{Labels: map[string]string{"run_id": "rw1", "scenario": "smoke"}}, output.Set{rw}, nil)
	if rw.Dropped() != 0 {
		t.Fatalf("samples dropped with the receiver up: %s", notes.String())
	}
	sel := `{run_id="rw1",scenario="smoke"}`
	sent := query(t, base, "rpcbench_requests_sent_total"+sel, "endpoint")
	ok := query(t, base, "rpcbench_requests_ok_total"+sel, "endpoint")
	for _, e := range rep.Endpoints {
		if got := sent[e.Name]; got != float64(e.Requests.Sent) {
			t.Errorf("endpoint %s: sent %v in Prometheus, %d in the report", e.Name, got, e.Requests.Sent)
		}
		if got := ok[e.Name]; got != float64(e.Requests.OK) {
			t.Errorf("endpoint %s: ok %v in Prometheus, %d in the report", e.Name, got, e.Requests.OK)
		}
		failed := query(t, base, `rpcbench_requests_failed_total{run_id="rw1",endpoint="`+e.Name+`"}`, "class")
		for class, n := range e.Errors {
			if got := failed[class]; got != float64(n) {
				t.Errorf("endpoint %s: failed{class=%s} %v in Prometheus, %d in the report", e.Name, class, got, n)
			}
		}
		if len(failed) != len(e.Errors) {
			t.Errorf("endpoint %s: failures by class %v in Prometheus, %v in the report", e.Name, failed, e.Errors)
		}
	}
	intended := query(t, base, "rpcbench_requests_intended_total"+sel, "run_id")
	if intended["rw1"] != float64(rep.Requests.Intended) {
		t.Errorf("intended %v in Prometheus, %d in the report", intended["rw1"], rep.Requests.Intended)
	}
	valid := query(t, base, "rpcbench_run_valid"+sel, "run_id")
	if want := map[bool]float64{true: 1, false: 0}[rep.Validity.Valid]; valid["rw1"] != want {
		t.Errorf("run_valid %v in Prometheus, report's valid %v", valid["rw1"], rep.Validity.Valid)
	}
	p99 := query(t, base, `rpcbench_latency_seconds{run_id="rw1",quantile="0.99"}`, "endpoint")
	for _, e := range []string{"a", "b", ""} { // "" is both endpoints together
		if v, found := p99[e]; !found || v <= 0 {
			t.Errorf("latency p99 of endpoint %q: %v, %v", e, v, found)
		}
	}
	if !strings.Contains(notes.String(), "prometheus-rw: ") || strings.Contains(notes.String(), "dropped") {
		t.Errorf("Stop's note: %q", notes.String())
	}
	dashboardQueries(t, base, "rw1")
}

// dashboardQueries runs every query of the Grafana dashboard in examples/ for run id against
// Prometheus: each must parse, and each must find series, but those of the watched targets (this
// run watched none).
func dashboardQueries(t *testing.T, base, id string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "examples", "grafana-dashboard.json"))
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range d.Panels {
		for _, tg := range p.Targets {
			n++
			q := strings.ReplaceAll(tg.Expr, "$run_id", id)
			got := query(t, base, q, "__name__")
			if len(got) == 0 && !strings.Contains(q, "rpcbench_target_") {
				t.Errorf("dashboard panel %q: %s finds nothing", p.Title, q)
			}
		}
	}
	if n < 10 {
		t.Errorf("the dashboard has %d queries; want its panels' (at least 10)", n)
	}
}

// With native histograms, Prometheus holds each endpoint's latencies of the whole run: one per
// request attempted (the failed ones end too: sent or failed before sending, as the report counts
// them), and a p99 within the 9 % of a bucket of the report's.
func TestRemoteWriteNativeHistograms(t *testing.T) {
	base := startPrometheus(t, "--enable-feature=native-histograms")
	rw, err := promrw.New("prometheus-rw", base+"/api/v1/write", promrw.Options{PushOptions: output.PushOptions{NativeHistograms: true}})
	if err != nil {
		t.Fatal(err)
	}
	rep := outputtest.Run(t, output.Run{Labels: map[string]string{"run_id": "nh1"}}, output.Set{rw}, nil)
	if rw.Dropped() != 0 {
		t.Fatalf("%s", rw.Report())
	}
	count := query(t, base, `histogram_count(rpcbench_latency_histogram_seconds{run_id="nh1"})`, "endpoint")
	p99 := query(t, base, `histogram_quantile(0.99, rpcbench_latency_histogram_seconds{run_id="nh1"})`, "endpoint")
	for _, e := range rep.Endpoints {
		if want := e.Requests.Sent + e.Requests.Unsent; count[e.Name] != float64(want) {
			t.Errorf("endpoint %s: %v latencies in Prometheus, %d requests attempted in the report", e.Name, count[e.Name], want)
		}
		if r := p99[e.Name] * 1000 / e.Latency.P99; r < 1/1.1 || r > 1.1 {
			t.Errorf("endpoint %s: p99 %.3f ms from Prometheus, %.3f ms in the report", e.Name, p99[e.Name]*1000, e.Latency.P99)
		}
	}
}

// A receiver that never answers slows no tick: the queue takes what it can hold, the rest is
// dropped and counted, and Stop gives up after its flush timeout.
func TestRemoteWriteReceiverStuck(t *testing.T) {
	got, addr := stuckReceiver(t)

	const queue = 4
	var notes strings.Builder
	rw, err := promrw.New("prometheus-rw", "http://"+addr+"/api/v1/write", promrw.Options{
		PushOptions: output.PushOptions{Queue: queue, FlushTimeout: 200 * time.Millisecond, Notes: &notes}, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if err := rw.Start(output.Run{Endpoints: []string{"a"}, Started: time.Now()}); err != nil {
		t.Fatal(err)
	}
	tick := &engine.Tick{Elapsed: time.Second} // no interval: the run-wide series only
	rw.Tick(tick)
	<-got            // the sender holds the first tick, waiting for the receiver
	per := uint64(2) // intended_total and in_flight
	per += 2         // sent_total and ok_total of endpoint a
	const more = 20
	ticked := make(chan struct{})
	go func() {
		defer close(ticked)
		for range more {
			rw.Tick(tick)
		}
	}()
	select {
	case <-ticked:
	case <-time.After(10 * time.Second):
		t.Fatalf("%d ticks were not done in 10s with the receiver stuck: Tick waits for the receiver", more)
	}
	if want := (more - queue) * per; rw.Dropped() != want {
		t.Errorf("dropped %d samples while the queue was full, want %d", rw.Dropped(), want)
	}
	if err := rw.Stop(nil, &summary.Summary{}); err != nil {
		t.Fatal(err)
	}
	// everything is dropped: the tick held by the sender, the queue, the validity sample
	if want := (1+more)*per + 1; rw.Dropped() != want || rw.Sent() != 0 {
		t.Errorf("after Stop: dropped %d, sent %d; want %d dropped, none sent", rw.Dropped(), rw.Sent(), want)
	}
	if !strings.Contains(notes.String(), fmt.Sprintf("%d dropped", (1+more)*per+1)) {
		t.Errorf("Stop's note does not count the drops: %q", notes.String())
	}
}

// A receiver that fails with a 5xx is tried again; one that refuses with a 4xx is not.
func TestRemoteWriteRetries(t *testing.T) {
	var mu sync.Mutex
	calls := 0
	status := http.StatusServiceUnavailable
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) //nolint:errcheck // a test receiver
		mu.Lock()
		calls++
		n := calls
		mu.Unlock()
		if n < 3 || status == http.StatusBadRequest {
			w.WriteHeader(status)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(l) //nolint:errcheck // closed below
	defer srv.Close()
	for _, c := range []struct {
		status       int
		calls        int
		sent, droppd bool
	}{{http.StatusServiceUnavailable, 3, true, false}, {http.StatusBadRequest, 1, false, true}} {
		mu.Lock()
		calls, status = 0, c.status
		mu.Unlock()
		rw, err := promrw.New("prometheus-rw", "http://"+l.Addr().String()+"/", promrw.Options{MinBackoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		if err := rw.Start(output.Run{Endpoints: []string{"a"}, Started: time.Now()}); err != nil {
			t.Fatal(err)
		}
		rw.Tick(&engine.Tick{})
		if err := rw.Stop(nil, nil); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		n := calls
		mu.Unlock()
		if n != c.calls || (rw.Sent() > 0) != c.sent || (rw.Dropped() > 0) != c.droppd {
			t.Errorf("receiver answering %d: %d requests, sent %d, dropped %d; want %d requests, sent %v, dropped %v",
				c.status, n, rw.Sent(), rw.Dropped(), c.calls, c.sent, c.droppd)
		}
	}
}

func TestNewRejectsBadURL(t *testing.T) {
	for _, u := range []string{"", "127.0.0.1:9090", "ftp://h/x", "http://"} {
		if _, err := promrw.New("prometheus-rw", u, promrw.Options{}); err == nil || !strings.Contains(err.Error(), "remote-write URL") {
			t.Errorf("New(%q): %v", u, err)
		}
	}
}

// Ticks in the same millisecond go out with timestamps one apart, else a receiver refuses the
// second value of a series as a duplicate; each request is a snappy-compressed WriteRequest whose
// series have their labels sorted, __name__ among them, and carry metadata of their type.
func TestRemoteWriteRequests(t *testing.T) {
	var mu sync.Mutex
	var reqs []prompb.WriteRequest
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		if err == nil && r.Header.Get("Content-Encoding") == "snappy" {
			b, err = snappy.Decode(nil, b)
		}
		var wr prompb.WriteRequest
		if err == nil {
			err = wr.Unmarshal(b)
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		reqs = append(reqs, wr)
		mu.Unlock()
	})}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(l) //nolint:errcheck // closed below
	defer srv.Close()
	rw, err := promrw.New("prometheus-rw", "http://"+l.Addr().String()+"/", promrw.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := rw.Start(output.Run{Endpoints: []string{"a"}, Started: time.Now(), Labels: map[string]string{"Zone": "z", "step": "2"}}); err != nil {
		t.Fatal(err)
	}
	const ticks = 5
	for range ticks {
		rw.Tick(&engine.Tick{})
	}
	if err := rw.Stop(nil, nil); err != nil {
		t.Fatal(err)
	}
	if rw.Dropped() != 0 || len(reqs) != ticks {
		t.Fatalf("%d requests, %d samples dropped; want %d, none", len(reqs), rw.Dropped(), ticks)
	}
	last := int64(0)
	for _, wr := range reqs {
		ts := wr.Timeseries[0].Samples[0].Timestamp
		if ts <= last {
			t.Errorf("timestamp %d after %d", ts, last)
		}
		last = ts
		for _, s := range wr.Timeseries {
			var names []string
			for _, l := range s.Labels {
				names = append(names, l.Name)
			}
			if !slices.IsSorted(names) || !slices.Contains(names, "__name__") || !slices.Contains(names, "Zone") {
				t.Errorf("labels %v: want sorted, with __name__ and the run's labels", names)
			}
		}
		types := map[string]prompb.MetricMetadata_MetricType{}
		for _, m := range wr.Metadata {
			types[m.MetricFamilyName] = m.Type
		}
		if types["rpcbench_requests_sent_total"] != prompb.MetricMetadata_COUNTER || types["rpcbench_in_flight"] != prompb.MetricMetadata_GAUGE {
			t.Errorf("metadata types %v", types)
		}
	}
}

// Stop twice: the second does nothing (it must not close the queue again).
func TestRemoteWriteStopTwice(t *testing.T) {
	rw, err := promrw.New("prometheus-rw", "http://127.0.0.1:1/", promrw.Options{Attempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := rw.Start(output.Run{Endpoints: []string{"a"}}); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := rw.Stop(nil, nil); err != nil {
			t.Fatal(err)
		}
	}
}

// A second Ctrl-C (PushOptions.Cut) ends Stop's wait for a receiver that never answers at once,
// instead of after the flush timeout; what was queued is counted as dropped.
func TestRemoteWriteStopCut(t *testing.T) {
	t.Parallel()
	got, addr := stuckReceiver(t)
	cut := make(chan struct{})
	var notes strings.Builder
	rw, err := promrw.New("prometheus-rw", "http://"+addr+"/api/v1/write", promrw.Options{
		PushOptions: output.PushOptions{FlushTimeout: time.Hour, Notes: &notes, Cut: cut}, Timeout: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if err := rw.Start(output.Run{Endpoints: []string{"a"}, Started: time.Now()}); err != nil {
		t.Fatal(err)
	}
	rw.Tick(&engine.Tick{Elapsed: time.Second})
	<-got // the sender holds the tick, waiting for the receiver
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		rw.Stop(nil, &summary.Summary{}) //nolint:errcheck // it reports drops in notes
	}()
	close(cut)
	select {
	case <-stopped:
	case <-time.After(30 * time.Second): // the flush timeout is an hour: only the cut ends it
		t.Fatal("Stop still waiting 30 s after the cut")
	}
	if rw.Dropped() == 0 || !strings.Contains(notes.String(), "dropped") {
		t.Errorf("dropped %d, notes %q; want the queued samples counted as dropped", rw.Dropped(), notes.String())
	}
}

// stuckReceiver starts a remote-write receiver on loopback that reads each request and never
// answers it until the test ends; got is told of the first request. It returns its address.
func stuckReceiver(t *testing.T) (got <-chan struct{}, addr string) {
	t.Helper()
	first := make(chan struct{}, 1)
	release := make(chan struct{})
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) //nolint:errcheck // a test receiver
		select {
		case first <- struct{}{}:
		default:
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(l) //nolint:errcheck // closed at the end of the test
	t.Cleanup(func() {
		close(release)
		srv.Close()
	})
	return first, l.Addr().String()
}
