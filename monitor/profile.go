package monitor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/pprof/profile"
)

// ProfileURL checks the base URL of a Go program's net/http/pprof handlers and returns it without
// a trailing slash: "http://127.0.0.1:6060/debug/pprof". A URL with no path gets /debug/pprof.
func ProfileURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("want the http:// or https:// URL of a Go program's /debug/pprof, e.g. http://127.0.0.1:6060/debug/pprof, got %q", raw)
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/debug/pprof"
	}
	u.Path = strings.TrimRight(u.Path, "/")
	return u.String(), nil
}

// Profiles captures a Go program's CPU profile and its allocations over a window, through its
// net/http/pprof handlers: the CPU profile in consecutive requests of /profile?seconds=N (pprof
// takes whole seconds) merged into one, so that a stop before the planned end keeps every
// chunk that finished; the allocations as the difference of two /allocs profiles, one at the start
// and one at the stop. The first CPU chunk and the first allocs profile are asked for together, so
// that a target slow to answer the one does not push the other past the window. Build one with
// StartProfiles; Stop may be called from any goroutine, once.
type Profiles struct {
	base       string
	client     *http.Client
	cancel     context.CancelFunc // cuts the CPU chunk in flight
	done       chan struct{}      // closed when the CPU loop has ended (see Done)
	allocsDone chan struct{}      // closed when the allocs profile at the start is in (or failed)
	stop       chan struct{}      // closed by Stop: no new chunk
	start      time.Time
	chunks     chunking

	mu        sync.Mutex
	cpu       *profile.Profile
	cpuSpan   time.Duration
	chunkEnd  time.Time // when the chunk in flight is due to end; zero: none
	allocs0   *profile.Profile
	errs      []error
	started   bool
	chunkLost time.Duration
	// lag is the longest a profile's answer has taken beyond the time it asked for: how slow the
	// target is to write a profile now. Stop gives a chunk's answer that much more (twice over).
	lag time.Duration
}

// ProfileResult is what Profiles captured.
type ProfileResult struct {
	// Start is when the window began (after the delay); zero when Stop came first.
	Start time.Time
	// CPU is the merged CPU profile of the chunks that finished; nil when none did.
	CPU *profile.Profile
	// CPUSpan is the length the CPU chunks cover; CPULost the length of a chunk cut by Stop.
	CPUSpan, CPULost time.Duration
	// Allocs is what was allocated in the window (the allocs profile at Stop less the one at the
	// start; its inuse values are the change of the live heap), without the profiler's own
	// allocations (see WithoutProfiler); nil when either could not be read.
	Allocs *profile.Profile
	// ProfilerBytes is the part of the window's allocated bytes that the profiler's own stacks made
	// and Allocs leaves out; AllocBytes the bytes allocated in the window, those included.
	ProfilerBytes, AllocBytes int64
	// Err joins every problem met: a handler that answered an error, a profile that did not parse.
	Err error
}

// chunking is how Profiles cuts the window into CPU chunks: max is the longest chunk; unknown the
// chunk when the window's length is unknown (a run until N requests), so that a stop loses at
// most that; wait is how long Stop waits for a chunk in flight to finish rather than cut it; grace
// the least time Stop gives a finished chunk's answer to arrive, to which it adds twice the
// target's lag (Profiles.lag).
type chunking struct{ max, unknown, wait, grace time.Duration }

var defaultChunking = chunking{max: 2 * time.Second, unknown: time.Second, wait: 1500 * time.Millisecond, grace: 2 * time.Second}

// allocsTimeout bounds the wait for an allocs profile.
const allocsTimeout = 30 * time.Second

// StartProfiles waits delay (a warm-up the profiles leave out), then reads the allocs profile and
// profiles the CPU of the program at base (see ProfileURL) until Stop, in chunks of at most 2 s
// that end together with window, the planned length (0 when it is not known). client nil uses
// http.DefaultClient's transport without a time limit.
func StartProfiles(base string, delay, window time.Duration, client *http.Client) *Profiles {
	return startProfiles(base, delay, window, client, defaultChunking)
}

func startProfiles(base string, delay, window time.Duration, client *http.Client, chunks chunking) *Profiles {
	if client == nil {
		client = &http.Client{}
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := &Profiles{base: base, client: client, cancel: cancel, done: make(chan struct{}), allocsDone: make(chan struct{}), stop: make(chan struct{}), chunks: chunks}
	go func() {
		defer close(p.done)
		select {
		case <-time.After(delay):
		case <-p.stop:
			close(p.allocsDone)
			return
		}
		now := time.Now()
		p.mu.Lock()
		p.start, p.started = now, true
		p.mu.Unlock()
		go func() {
			defer close(p.allocsDone)
			actx, cancel := context.WithTimeout(context.Background(), allocsTimeout)
			defer cancel()
			a0, err := p.fetch(actx, "allocs", 0)
			p.mu.Lock()
			p.allocs0 = a0
			if err != nil { // first among the errors, whenever it came
				p.errs = append([]error{fmt.Errorf("allocs at the start: %w", err)}, p.errs...)
			}
			p.lag = max(p.lag, time.Since(now))
			p.mu.Unlock()
		}()
		p.cpuLoop(ctx, now, window)
	}()
	return p
}

func (p *Profiles) addErr(what string, err error) {
	if err != nil {
		p.errs = append(p.errs, fmt.Errorf("%s: %w", what, err))
	}
}

// cpuLoop asks for CPU chunks one after the other until Stop (or the window is over).
func (p *Profiles) cpuLoop(ctx context.Context, start time.Time, window time.Duration) {
	for {
		chunk := p.chunks.unknown
		if window > 0 {
			left := window - time.Since(start)
			if left <= 0 {
				return
			}
			chunk = min(p.chunks.max, time.Duration(math.Ceil(left.Seconds()))*time.Second)
		}
		select {
		case <-p.stop:
			return
		default:
		}
		t0 := time.Now()
		p.mu.Lock()
		p.chunkEnd = t0.Add(chunk)
		p.mu.Unlock()
		prof, err := p.fetch(ctx, "profile", int(chunk/time.Second))
		took := time.Since(t0)
		p.mu.Lock()
		p.chunkEnd = time.Time{}
		switch {
		case ctx.Err() != nil:
			p.chunkLost = took
		case err != nil:
			p.addErr("CPU profile", err)
		default:
			p.lag = max(p.lag, took-chunk)
			p.cpuSpan += time.Duration(prof.DurationNanos)
			if p.cpu == nil {
				p.cpu = prof
			} else if m, err := profile.Merge([]*profile.Profile{p.cpu, prof}); err != nil {
				p.addErr("merging CPU profiles", err)
			} else {
				p.cpu = m
			}
		}
		failed := err != nil || ctx.Err() != nil
		p.mu.Unlock()
		if failed {
			return
		}
	}
}

// fetch reads the profile name ("allocs", "profile") of the program, for seconds when not 0.
func (p *Profiles) fetch(ctx context.Context, name string, seconds int) (*profile.Profile, error) {
	pu, err := url.Parse(p.base)
	if err != nil {
		return nil, err
	}
	path := name
	q := pu.Query() // the base's own query (a key, say) stays the query
	switch {
	case seconds > 0:
		q.Set("seconds", strconv.Itoa(seconds))
	case name == "allocs":
		// The Go runtime publishes its allocation profile at each garbage collection: without one
		// at each end of the window, the window's allocations would be those up to the last
		// collection before it ended (none, in a target that ran no collection meanwhile).
		// net/http/pprof runs one first (gc=1) for /heap only, which holds the same samples:
		// allocations and live memory.
		path = "heap"
		q.Set("gc", "1")
	}
	pu.Path += "/" + path
	pu.RawQuery = q.Encode()
	u := pu.String()
	shown := redactURL(u) // what messages quote
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := p.client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			return nil, fmt.Errorf("%s %s: %w", ue.Op, shown, ue.Err)
		}
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s: %s", shown, resp.Status, strings.TrimSpace(string(body[:min(len(body), 200)])))
	}
	prof, err := profile.ParseData(body)
	if err != nil {
		return nil, fmt.Errorf("GET %s: not a profile: %w", shown, err)
	}
	if name == "allocs" {
		prof.DefaultSampleType = "alloc_space" // what /allocs gives: go tool pprof shows the allocations
	}
	return prof, nil
}

// Done is closed when the CPU profiling has ended on its own: the planned window is over, or a
// request failed. Stop need not wait for it.
func (p *Profiles) Done() <-chan struct{} { return p.done }

// Stop ends the window: a CPU chunk due to end within 1.5 s (or past due) is let finish, with at
// least 2 s more for its answer (more for a target that has been slow to answer: twice its lag),
// a longer one is cut (its part is lost, CPULost says how long; with no chunk finished, Err says
// that there is no CPU profile and why); the allocs profile at the start is waited for (at most
// 30 s), the allocs profile is read once more and the difference taken.
func (p *Profiles) Stop() ProfileResult {
	close(p.stop)
	p.mu.Lock()
	end := p.chunkEnd
	p.mu.Unlock()
	// a chunk due within the wait (or past due, its answer on the way) is let finish, with time
	// for its answer to come and be read: the grace, and twice the longest the target has taken
	// beyond what it was asked (the allocs profile at the start is in first, or has failed, so
	// that its time counts)
	letFinish := !end.IsZero() && time.Until(end) <= p.chunks.wait
	<-p.allocsDone
	var grace time.Duration
	if letFinish {
		p.mu.Lock()
		grace = p.chunks.grace + 2*p.lag
		p.mu.Unlock()
		select {
		case <-p.done:
		case <-time.After(time.Until(end.Add(grace))):
		}
	}
	p.cancel()
	<-p.done
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.started && p.cpu == nil && p.chunkLost > 0 {
		why := "the stop came more than " + p.chunks.wait.String() + " before it was due"
		if letFinish {
			why = "its answer had not come " + grace.Round(100*time.Millisecond).String() + " after it was due"
		}
		p.addErr("CPU profile", fmt.Errorf("none: its first chunk was cut after %s: %s", p.chunkLost.Round(100*time.Millisecond), why))
	}
	r := ProfileResult{Start: p.start, CPU: p.cpu, CPUSpan: p.cpuSpan, CPULost: p.chunkLost}
	if p.started && p.allocs0 != nil {
		ctx, cancel := context.WithTimeout(context.Background(), allocsTimeout)
		a1, err := p.fetch(ctx, "allocs", 0)
		cancel()
		p.addErr("allocs at the end", err)
		if a1 != nil {
			d, err := AllocsDelta(p.allocs0, a1)
			p.addErr("allocs", err)
			if d != nil {
				r.Allocs, r.ProfilerBytes, r.AllocBytes = WithoutProfiler(d)
			}
		}
	}
	r.Err = errors.Join(p.errs...)
	return r
}

// profilerPackages are the packages whose frames mark an allocation as the profiler's own: the
// handlers that serve the profiles and the runtime's profile writer.
var profilerPackages = []string{"net/http/pprof.", "runtime/pprof."}

// WithoutProfiler returns allocs profile p without the samples whose stack passes through a
// function of net/http/pprof or runtime/pprof — what the profiling itself allocated in the target —
// with the bytes so left out and the bytes of p (its alloc_space values; 0 and 0 when p has none).
func WithoutProfiler(p *profile.Profile) (out *profile.Profile, profilerBytes, allBytes int64) {
	idx := -1
	for i, st := range p.SampleType {
		if st.Type == "alloc_space" {
			idx = i
		}
	}
	out = p.Copy()
	kept := out.Sample[:0]
	for _, s := range out.Sample {
		var bytes int64
		if idx >= 0 && idx < len(s.Value) {
			bytes = s.Value[idx]
		}
		allBytes += bytes
		if profilerStack(s) {
			profilerBytes += bytes
			continue
		}
		kept = append(kept, s)
	}
	out.Sample = kept
	return out.Compact(), profilerBytes, allBytes
}

// profilerStack reports whether sample s was allocated under a function of profilerPackages.
func profilerStack(s *profile.Sample) bool {
	for _, loc := range s.Location {
		for _, l := range loc.Line {
			if l.Function == nil {
				continue
			}
			for _, pkg := range profilerPackages {
				if strings.HasPrefix(l.Function.Name, pkg) {
					return true
				}
			}
		}
	}
	return false
}

// AllocsDelta returns what was allocated between two allocs (or heap) profiles of one program:
// after less before, sample by sample, without the stacks that did not change.
func AllocsDelta(before, after *profile.Profile) (*profile.Profile, error) {
	b := before.Copy()
	b.Scale(-1)
	d, err := profile.Merge([]*profile.Profile{b, after})
	if err != nil {
		return nil, err
	}
	kept := d.Sample[:0]
	for _, s := range d.Sample {
		for _, v := range s.Value {
			if v != 0 {
				kept = append(kept, s)
				break
			}
		}
	}
	d.Sample = kept
	d = d.Compact()
	d.TimeNanos = before.TimeNanos
	if after.TimeNanos > before.TimeNanos {
		d.DurationNanos = after.TimeNanos - before.TimeNanos
	}
	return d, d.CheckValid()
}

// redactURL is u as messages quote it: its user-info and every query value but seconds replaced by
// REDACTED (a pprof URL's query holds what lets one in, if anything).
func redactURL(u string) string {
	pu, err := url.Parse(u)
	if err != nil {
		return "(a URL that does not parse)"
	}
	if pu.User != nil {
		pu.User = url.User("REDACTED")
	}
	q := pu.Query()
	for k := range q {
		if k != "seconds" {
			q.Set(k, "REDACTED")
		}
	}
	pu.RawQuery = q.Encode()
	return pu.String()
}
