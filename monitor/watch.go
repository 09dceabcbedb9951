package monitor

import (
	"context"
	"sync"
	"time"
)

// Watch samples several targets, and optionally scrapes a target's metrics, every interval on
// goroutines of its own, away from the load's hot path: a benchmark starts it with the measured
// part and stops it when the load ends. Build one with StartWatch. Stop may be called from any
// goroutine, once; the rest of its methods are not for concurrent use.
type Watch struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
	start  time.Time

	end     chan struct{} // closed by End
	endOnce sync.Once
	ended   chan struct{} // closed when the samples are over

	samplers []*Sampler
	series   []Series
	errs     []error
	notify   func(i int, s Sample) // told of each sample of sampler i; nil: none

	scraper    *Scraper
	metrics    metricsKeep
	metricsErr error

	pauses      pauseReading // the runtime's GC pauses at the baseline
	pausesAtEnd pauseReading // and at End, when it was called: the load's end
	endRead     bool         // End was called: pausesAtEnd holds (set before end is closed)
}

// WatchResult is what a Watch saw of one target.
type WatchResult struct {
	Target  Target
	Summary Summary
	Samples []Sample // kept samples, oldest first (see Series)
	// Err is the reading failure that stopped this target's sampling early; the figures cover the
	// samples before it.
	Err error
}

// WatchResults is everything a Watch saw.
type WatchResults struct {
	// Start is when the first samples were taken (the baseline); zero when the watch was stopped
	// before its delay ran out.
	Start   time.Time
	Targets []WatchResult // in the order of the samplers given to StartWatch
	// Metrics holds the scrapes, oldest first, and MetricsErr the failure that stopped them.
	Metrics    []MetricsSample
	MetricsErr error
	// GCPauses are this process's own garbage-collection pauses from the baseline to End (to Stop
	// when End was not called): the watching process is the load generator.
	GCPauses Pauses
}

// StartWatch waits delay (a warm-up the figures leave out), then samples every sampler at once
// (each one's baseline) and every interval after, until Stop. scraper, if not nil, is scraped on
// its own goroutine on the same schedule, so a slow metrics endpoint never delays the samples; each
// scrape is bounded by the interval. A sampler whose reading fails stops; the others go on.
func StartWatch(interval, delay time.Duration, scraper *Scraper, samplers ...*Sampler) *Watch {
	return StartWatchNotify(interval, delay, scraper, nil, samplers...)
}

// StartWatchNotify is StartWatch that also tells notify of each sample as it is taken, with the
// index of its sampler, on the watch's goroutine (concurrently with the caller: keep it quick).
func StartWatchNotify(interval, delay time.Duration, scraper *Scraper, notify func(i int, s Sample), samplers ...*Sampler) *Watch {
	ctx, cancel := context.WithCancel(context.Background())
	w := &Watch{cancel: cancel, samplers: samplers, series: make([]Series, len(samplers)), notify: notify,
		errs: make([]error, len(samplers)), scraper: scraper, end: make(chan struct{}), ended: make(chan struct{})}
	started := make(chan time.Time, 1)
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		defer close(w.ended)
		if !sleep(ctx, w.end, delay) {
			close(started)
			return
		}
		now := time.Now()
		w.start = now
		w.pauses = readPauses()
		w.sampleAll(now) // the baselines, before the first scrape
		started <- now
		close(started)
		w.sampleLoop(ctx, interval, now)
	}()
	if scraper != nil {
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			if now, ok := <-started; ok {
				w.scrapeLoop(ctx, interval, now)
			}
		}()
	}
	return w
}

// sleep waits d unless ctx ends or end is closed first; it reports whether d ran out.
func sleep(ctx context.Context, end <-chan struct{}, d time.Duration) bool {
	if d <= 0 {
		select {
		case <-ctx.Done():
			return false
		case <-end:
			return false
		default:
			return true
		}
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-end:
		return false
	case <-t.C:
		return true
	}
}

// minLastInterval is the shortest last interval, as a share of the interval, that Stop samples:
// a sliver of a few milliseconds would make a CPU % of a handful of clock ticks.
const minLastInterval = 4 // 1/4 of an interval

func (w *Watch) sampleLoop(ctx context.Context, interval time.Duration, now time.Time) {
	t := time.NewTicker(interval)
	defer t.Stop()
	last := now
	final := func() {
		// the last stretch up to the end of the load counts too, unless it is too short to say
		// anything
		if now := time.Now(); now.Sub(last) >= interval/minLastInterval {
			w.sampleAll(now)
		}
	}
	for {
		select {
		case <-ctx.Done():
			final()
			return
		case <-w.end:
			final()
			return
		case last = <-t.C:
			w.sampleAll(last)
		}
	}
}

// End says the load has ended: the watch takes its last sample now, of the stretch since the
// previous one (when it is at least a quarter of an interval), and no more; it returns once that
// sample is taken. A load that ends this way is sampled before it lets go of its connections, so
// the last interval still sees the sockets that carried its bytes. The scrapes go on until Stop.
// It may be called from any goroutine, more than once, before or instead of Stop.
func (w *Watch) End() {
	w.endOnce.Do(func() {
		w.pausesAtEnd, w.endRead = readPauses(), true
		close(w.end)
	})
	<-w.ended
}

func (w *Watch) sampleAll(now time.Time) {
	for i, s := range w.samplers {
		if w.errs[i] != nil {
			continue
		}
		x, err := s.Sample(now)
		if err != nil {
			w.errs[i] = err
			continue
		}
		w.series[i].Add(x)
		if w.notify != nil {
			w.notify(i, x)
		}
	}
}

func (w *Watch) scrapeLoop(ctx context.Context, interval time.Duration, now time.Time) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		sctx, cancel := context.WithTimeout(ctx, interval)
		x, err := w.scraper.Scrape(sctx, now)
		cancel()
		if err != nil {
			if ctx.Err() == nil {
				w.metricsErr = err
			}
			return
		}
		w.metrics.add(x)
		select {
		case <-ctx.Done():
			return
		case now = <-t.C:
		}
	}
}

// Stop ends the sampling, takes a last sample of the stretch since the previous one (when it is at
// least a quarter of an interval) unless End took it, and returns what the watch saw.
func (w *Watch) Stop() WatchResults {
	w.cancel()
	w.wg.Wait()
	out := WatchResults{Start: w.start, Metrics: w.metrics.kept, MetricsErr: w.metricsErr}
	if !w.start.IsZero() {
		last := w.pausesAtEnd // pauses of the load only: not of the teardown and summing after End
		if !w.endRead {
			last = readPauses()
		}
		out.GCPauses = last.since(w.pauses)
	}
	for i, s := range w.samplers {
		out.Targets = append(out.Targets, WatchResult{Target: s.Target(), Summary: w.series[i].Summary(),
			Samples: w.series[i].Samples(), Err: w.errs[i]})
	}
	return out
}

// metricsKeep keeps at most DefaultMaxSamples scrapes spread over the whole run, as Series does.
type metricsKeep struct {
	n, stride int
	kept      []MetricsSample
}

func (k *metricsKeep) add(x MetricsSample) {
	if k.stride == 0 {
		k.stride = 1
	}
	i := k.n
	k.n++
	if i%k.stride != 0 {
		return
	}
	if len(k.kept) == DefaultMaxSamples {
		half := k.kept[:0]
		for j := 0; j < len(k.kept); j += 2 {
			half = append(half, k.kept[j])
		}
		clear(k.kept[len(half):])
		k.kept = half
		k.stride *= 2
		if i%k.stride != 0 {
			return
		}
	}
	k.kept = append(k.kept, x)
}
