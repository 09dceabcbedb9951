package runner

import (
	"context"
	"time"

	"github.com/rpcbench/rpcbench/engine"
	"github.com/rpcbench/rpcbench/monitor"
	"github.com/rpcbench/rpcbench/output"
	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/summary"
)

// SelfLabel names the load generator among a run's watched targets.
const SelfLabel = "rpcbench (self)"

// Watching is what a run watches besides its load: processes, cgroups and the generator itself
// (monitor.Sampler), a target's Prometheus metrics (monitor.Scraper), sampled every interval of the
// measured part. Build it with Add, AddSelf and Scrape before the run; Run starts and stops it. A
// Watching serves one run at a time (the steps of a capacity search in turn). The zero value
// watches nothing.
type Watching struct {
	labels   []string
	samplers []*monitor.Sampler
	self     int // index of the generator's sampler, plus one; 0 when it is not watched
	scraper  *monitor.Scraper
	url, raw string
	series   []string
	notes    []string // what could not be watched, and why
	lag      []float64
	watch    *monitor.Watch
}

// Add watches s under label.
func (w *Watching) Add(label string, s *monitor.Sampler) {
	w.labels, w.samplers = append(w.labels, label), append(w.samplers, s)
}

// AddSelf watches the generator itself, labelled SelfLabel, with its send lag per interval; an
// error says it cannot be watched here (no /proc).
func (w *Watching) AddSelf() error {
	s, err := monitor.NewSampler(monitor.Self())
	if err != nil {
		return err
	}
	w.Add(SelfLabel, s)
	w.self = len(w.samplers)
	return nil
}

// Scrape follows series of a target's metrics through sc; shown is its URL as the reports show it
// (redacted), raw the URL it reads.
func (w *Watching) Scrape(sc *monitor.Scraper, shown, raw string, series []string) {
	w.scraper, w.url, w.raw, w.series = sc, shown, raw, series
}

// Note adds what could not be watched, and why, to the notes of the run's summary.
func (w *Watching) Note(s string) { w.notes = append(w.notes, s) }

// Empty says nothing is watched.
func (w *Watching) Empty() bool { return w == nil || len(w.samplers) == 0 && w.scraper == nil }

// options returns the observer that keeps the generator's send lag p99 per measured interval, and
// the one that takes the last samples at the run's last tick, while the load's connections are
// still open (their sockets are what the network figures read).
func (w *Watching) options() []engine.Option {
	if w.Empty() {
		return nil
	}
	end := engine.WithObserver(w.end)
	if w.self == 0 {
		return []engine.Option{end}
	}
	return []engine.Option{engine.WithSendLagP99(&w.lag), end}
}

// end takes the last samples at a run's last tick; nil-safe.
func (w *Watching) end(t *engine.Tick) {
	if t.Final && w != nil && w.watch != nil {
		w.watch.End()
	}
}

// start begins sampling after the plan's warm-up, every interval of the plan; each sample goes to
// the observers too, as it is taken, on the timeline of the first sample.
func (w *Watching) start(np plan.Plan, observers []output.ResourceObserver) {
	if w.Empty() {
		return
	}
	w.lag = w.lag[:0]
	var notify func(int, monitor.Sample)
	if len(observers) > 0 {
		var first time.Time // written and read on the watch's goroutine only
		notify = func(i int, x monitor.Sample) {
			if first.IsZero() {
				first = x.Time
			}
			rs := summary.ResourceSampleOf(x, x.Time.Sub(first))
			for _, o := range observers {
				o.Resource(w.labels[i], rs)
			}
		}
	}
	w.watch = monitor.StartWatchNotify(np.Load.Interval, np.Load.Warmup, w.scraper, notify, w.samplers...)
}

// stop ends the sampling and adds what it saw to s, on the timeline of the measured start, with
// the notes; with s nil (the run did not happen) it only stops.
func (w *Watching) stop(s *summary.Summary, measuredStart time.Time) {
	if w == nil {
		return
	}
	if w.watch == nil {
		if s != nil {
			s.Notes = append(s.Notes, w.notes...)
		}
		return
	}
	res := w.watch.Stop()
	w.watch = nil
	if s == nil {
		return
	}
	// the baselines are taken a moment before the engine's measured start: a few ms below 0
	at := func(t time.Time) time.Duration { return t.Sub(measuredStart) }
	var rs []result.Resources
	for i, tr := range res.Targets {
		r := summary.ResourcesOf(tr, w.labels[i], at)
		if i+1 == w.self {
			summary.MarkSelf(&r, res, w.lag)
		}
		rs = append(rs, r)
	}
	summary.MarkListeners(context.Background(), rs, res.Targets, s.Config)
	var mt *result.Metrics
	if w.scraper != nil {
		mt = summary.MetricsOf(w.url, w.raw, w.series, res, at)
	}
	s.SetResources(rs, mt)
	s.Notes = append(s.Notes, w.notes...)
}
