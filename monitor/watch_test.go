//go:build linux

package monitor

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// A Watch samples its targets and scrapes the metrics on its own goroutines; Stop gives back the
// baseline and the samples since. The test waits for the metrics server to be asked a fourth time
// (the scraper keeps a scrape before it waits for the next), scrapes made one interval apart after
// the baselines: by then at least three intervals have passed, so either a tick or Stop's last sample (of at least a quarter interval)
// follows the baseline.
func TestWatch(t *testing.T) {
	t.Parallel()
	var n atomic.Int64
	third := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := n.Add(1)
		fmt.Fprintf(w, "# TYPE jobs_total counter\njobs_total %d\n# TYPE queue gauge\nqueue 7\n", 10*i)
		if i == 4 { // the third scrape was kept before the fourth was asked
			close(third)
		}
	}))
	defer srv.Close()
	self, err := NewSampler(Self())
	if err != nil {
		t.Fatal(err)
	}
	sc, err := NewScraper(srv.URL, srv.Client(), mustSelectors(t, "jobs_total", "queue")...)
	if err != nil {
		t.Fatal(err)
	}
	w := StartWatch(50*time.Millisecond, 0, sc, self)
	select {
	case <-third:
	case <-time.After(30 * time.Second):
		t.Fatal("no fourth scrape in 30 s")
	}
	res := w.Stop()
	if res.Start.IsZero() || len(res.Targets) != 1 {
		t.Fatalf("got start %v and %d targets; want a start and 1", res.Start, len(res.Targets))
	}
	tr := res.Targets[0]
	if tr.Err != nil || tr.Target.Kind != KindSelf {
		t.Fatalf("got %v, %v; want self without error", tr.Target, tr.Err)
	}
	if tr.Summary.Samples < 2 || tr.Samples[0].Interval != 0 || tr.Samples[1].Interval <= 0 {
		t.Errorf("got %d samples, intervals %v; want a baseline and at least one interval", tr.Summary.Samples, tr.Samples)
	}
	if tr.Summary.RSS.Peak < 1<<20 || tr.Summary.Threads.Peak < 1 {
		t.Errorf("got rss peak %v, threads %v; want at least 1 MiB and a thread: a Go test binary", tr.Summary.RSS.Peak, tr.Summary.Threads.Peak)
	}
	if len(res.Metrics) < 3 || res.MetricsErr != nil {
		t.Fatalf("got %d scrapes, error %v; want at least 3", len(res.Metrics), res.MetricsErr)
	}
	first, second := res.Metrics[0], res.Metrics[1]
	if first.Values[0].Known || !first.Values[1].Known || first.Values[1].Value != 7 {
		t.Errorf("first scrape: got %+v; want no counter rate yet and queue 7", first.Values)
	}
	dt := second.Time.Sub(first.Time).Seconds()
	if v := second.Values[0]; !v.Known || v.Value < 10/dt*0.999 || v.Value > 10/dt*1.001 {
		t.Errorf("second scrape: got jobs_total %+v; want 10 per %.3f s = %.1f/s", v, dt, 10/dt)
	}
}

// Stopped before its delay ran out, a Watch has taken no sample and scraped nothing.
func TestWatchStoppedInDelay(t *testing.T) {
	t.Parallel()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	self, err := NewSampler(Self())
	if err != nil {
		t.Fatal(err)
	}
	sc, err := NewScraper(srv.URL, nil, mustSelectors(t, "up")...)
	if err != nil {
		t.Fatal(err)
	}
	res := StartWatch(time.Second, time.Hour, sc, self).Stop()
	if !res.Start.IsZero() || res.Targets[0].Summary.Samples != 0 || len(res.Metrics) != 0 || hits.Load() != 0 {
		t.Errorf("got start %v, %d samples, %d scrapes, %d requests; want none of them", res.Start,
			res.Targets[0].Summary.Samples, len(res.Metrics), hits.Load())
	}
}

// End takes the last samples at once and returns when they are taken; Stop after it samples no
// more. Called during the delay, it returns with no samples taken.
func TestWatchEnd(t *testing.T) {
	t.Parallel()
	var reads atomic.Int64
	first := make(chan struct{})
	s := &Sampler{target: Self(), read: func() (Snapshot, error) {
		if reads.Add(1) == 1 {
			close(first)
		}
		return Snapshot{Procs: []ProcReading{{PID: 1}}}, nil
	}}
	w := StartWatch(time.Second, 0, nil, s)
	select {
	case <-first: // the baseline
	case <-time.After(30 * time.Second):
		t.Fatal("no baseline in 30 s")
	}
	// a stretch past a quarter of the interval, so that the last one is sampled; not a synchronisation
	<-time.After(300 * time.Millisecond)
	ended := time.Now()
	w.End()
	n := reads.Load()
	w.End() // again: returns at once
	res := w.Stop()
	tr := res.Targets[0]
	last := tr.Samples[len(tr.Samples)-1]
	if got := reads.Load(); n < 2 || got != n || int64(tr.Summary.Samples) != n || last.Time.Before(ended) {
		t.Errorf("got %d reads at End, %d after Stop, %d samples, the last at %v (End at %v); want the baseline and a last one taken by End, none after",
			n, got, tr.Summary.Samples, last.Time, ended)
	}

	idle := &Sampler{target: Self(), read: func() (Snapshot, error) { t.Error("read during the delay"); return Snapshot{}, nil }}
	w = StartWatch(time.Second, time.Hour, nil, idle)
	w.End()
	if res := w.Stop(); !res.Start.IsZero() || res.Targets[0].Summary.Samples != 0 {
		t.Errorf("ended in the delay: got start %v, %d samples; want none", res.Start, res.Targets[0].Summary.Samples)
	}
}

// The generator's GC pauses are those of the load, up to End: collections after it (the
// teardown, the summing of the results) are not counted.
func TestWatchPausesEndAtEnd(t *testing.T) {
	first := make(chan struct{})
	var once sync.Once
	s := &Sampler{target: Self(), read: func() (Snapshot, error) {
		once.Do(func() { close(first) })
		return Snapshot{Procs: []ProcReading{{PID: 1}}}, nil
	}}
	w := StartWatch(time.Second, 0, nil, s)
	select {
	case <-first: // the baseline, with the pauses until then
	case <-time.After(30 * time.Second):
		t.Fatal("no baseline in 30 s")
	}
	w.End()
	atEnd := readPauses().since(w.pauses) // at or after End's own reading
	for range 3 {
		runtime.GC() // two stop-the-world pauses each, after End
	}
	if got := w.Stop().GCPauses; got.Count > atEnd.Count {
		t.Errorf("GC pauses counted: %d; want at most the %d there were at End", got.Count, atEnd.Count)
	}
}
