package output

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rpcbench/rpcbench/engine"
	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/summary"
)

// Batch is the samples of one tick, stamped with the tick's time in Unix milliseconds: each batch
// at least a millisecond after the one before, so that two ticks within a millisecond (the last
// interval's and the final one) never give a series two values at one timestamp, which receivers
// refuse as duplicates.
type Batch struct {
	At      int64
	Samples []Sample
}

// PushOptions configure a Pusher; the zero value of each field takes the default named.
type PushOptions struct {
	// Queue is the most ticks waiting to be sent; 64 (a minute of one-second intervals).
	Queue int
	// FlushTimeout bounds how long Stop waits for the queue to empty; 10s.
	FlushTimeout time.Duration
	// Notes receives the line Stop writes about what was sent and dropped; nil writes none.
	Notes io.Writer
	// NativeHistograms adds each endpoint's latency as a native histogram (Series.Natives).
	NativeHistograms bool
	// Cut, when closed, ends Stop's wait at once (a second Ctrl-C): what is still queued is
	// counted as dropped.
	Cut <-chan struct{}
}

// Pusher is the Output part that the live outputs which push share (remote write, OTLP): it
// turns each tick into samples (Series) and sends them from a bounded queue on a goroutine of its
// own, so that a receiver that is slow or down never slows the run. A tick that finds the queue
// full is dropped and counted; Stop queues the run's validity, waits up to FlushTimeout for the
// queue, counts what is left as dropped, and writes what was sent and dropped to Notes.
type Pusher struct {
	name string
	o    PushOptions
	// send delivers one batch; it returns when ctx is done at the latest.
	send func(ctx context.Context, b Batch) error

	series *Series
	queue  chan Batch
	done   chan struct{}
	ctx    context.Context
	cancel context.CancelFunc
	lastMs int64

	sent, dropped atomic.Uint64 // samples
	errMu         sync.Mutex
	lastErr       error
}

// NewPusher returns the pusher named name (in messages) that delivers each batch with send, which
// retries as its protocol does and returns the failure it gave up on.
func NewPusher(name string, o PushOptions, send func(ctx context.Context, b Batch) error) *Pusher {
	if o.Queue <= 0 {
		o.Queue = 64
	}
	if o.FlushTimeout <= 0 {
		o.FlushTimeout = 10 * time.Second
	}
	return &Pusher{name: name, o: o, send: send}
}

// Name says which output it is.
func (p *Pusher) Name() string { return p.name }

// Start starts the sender.
func (p *Pusher) Start(r Run) error {
	p.series = NewSeries(r)
	p.series.Natives = p.o.NativeHistograms
	p.queue = make(chan Batch, p.o.Queue)
	p.done = make(chan struct{})
	p.ctx, p.cancel = context.WithCancel(context.Background())
	go p.loop(p.queue)
	return nil
}

// Tick queues the samples of t without waiting: when the queue is full they are dropped.
func (p *Pusher) Tick(t *engine.Tick) { p.enqueue(p.series.Tick(t)) }

// Resource keeps the last sample of a watched target for the next tick.
func (p *Pusher) Resource(target string, s result.ResourceSample) {
	if p.series != nil {
		p.series.Resource(target, s)
	}
}

func (p *Pusher) enqueue(s []Sample) {
	if len(s) == 0 {
		return
	}
	at := max(time.Now().UnixMilli(), p.lastMs+1)
	p.lastMs = at
	select {
	case p.queue <- Batch{At: at, Samples: s}:
	default:
		p.dropped.Add(uint64(len(s)))
	}
}

// Stop queues the run's validity, waits up to FlushTimeout for the queue to be sent, and writes to
// Notes what was sent and dropped. A receiver that could not take the samples is not the run's
// failure: Stop returns no error for it. A second Stop does nothing.
func (p *Pusher) Stop(_ *engine.Result, sum *summary.Summary) error {
	if p.queue == nil {
		return nil
	}
	p.enqueue(p.series.Final(sum))
	close(p.queue)
	p.queue = nil
	t := time.NewTimer(p.o.FlushTimeout)
	defer t.Stop()
	select {
	case <-p.done:
	case <-t.C:
		p.cancel()
		<-p.done
	case <-p.o.Cut:
		p.cancel()
		<-p.done
	}
	p.cancel()
	if p.o.Notes != nil && sum != nil {
		fmt.Fprintln(p.o.Notes, p.Report())
	}
	return nil
}

// Report says what was sent and dropped so far, and why the last failure failed.
func (p *Pusher) Report() string {
	s := fmt.Sprintf("%s: %d samples sent", p.name, p.sent.Load())
	if d := p.dropped.Load(); d > 0 {
		s += fmt.Sprintf(", %d dropped", d)
	}
	p.errMu.Lock()
	defer p.errMu.Unlock()
	if p.lastErr != nil {
		s += "; last failure: " + p.lastErr.Error()
	}
	return s
}

// Sent counts the samples the receiver took.
func (p *Pusher) Sent() uint64 { return p.sent.Load() }

// Dropped counts the samples given up on: the queue was full, the receiver failed them, or Stop
// could wait no longer.
func (p *Pusher) Dropped() uint64 { return p.dropped.Load() }

// loop sends the queued batches one after the other until the queue is closed and empty, or Stop
// gives up on it; whatever is left then counts as dropped.
func (p *Pusher) loop(queue <-chan Batch) {
	defer close(p.done)
	for b := range queue {
		if p.ctx.Err() != nil {
			p.dropped.Add(uint64(len(b.Samples)))
			continue
		}
		if err := p.send(p.ctx, b); err != nil {
			p.dropped.Add(uint64(len(b.Samples)))
			p.errMu.Lock()
			p.lastErr = err
			p.errMu.Unlock()
			continue
		}
		p.sent.Add(uint64(len(b.Samples)))
	}
}

var _ ResourceObserver = (*Pusher)(nil)

// RedactedErr is err, an HTTP client's failure to send to raw, with raw's secrets (a password, a
// key-like query value) redacted wherever it names it.
func RedactedErr(err error, raw string) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return fmt.Errorf("%s %s: %w", ue.Op, plan.RedactURL(raw), ue.Err)
	}
	msg := strings.ReplaceAll(err.Error(), raw, plan.RedactURL(raw))
	if u, perr := url.Parse(raw); perr == nil && u.String() != raw { // as a client writes it back
		msg = strings.ReplaceAll(msg, u.String(), plan.RedactURL(raw))
	}
	if u, perr := url.Parse(raw); perr == nil && u.Host != "" && u.RawQuery != "" { // the query alone
		msg = strings.ReplaceAll(msg, u.RawQuery, "REDACTED")
	}
	return errors.New(msg)
}

// PushURL checks the URL of a receiver an output pushes to: http or https with a host. what names
// the receiver in the error ("remote-write"), example is a URL that would do.
func PushURL(raw, what, example string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%q is not a%s %s URL: expected http:// or https://host:port/path, e.g. %s", plan.RedactURL(raw), an(what), what, example)
	}
	return u.String(), nil
}

// an is the "n" of "an" before a word that starts with a vowel sound.
func an(w string) string {
	if w != "" && strings.ContainsRune("AEIOUaeiou", rune(w[0])) {
		return "n"
	}
	return ""
}
