// Package promrw is the output that sends a run's live series (output.Series) to a Prometheus
// remote-write receiver as the run goes: Prometheus with --web.enable-remote-write-receiver, Mimir,
// Thanos Receive, VictoriaMetrics, Grafana Cloud. It speaks remote write 1.0 (a snappy-compressed
// protobuf WriteRequest), encoded with the Prometheus project's own prompb package.
//
// A receiver that is slow or down never slows the run: each tick's samples go into a bounded queue
// that a goroutine of its own sends from, with retries and back-off; a tick that finds the queue
// full is dropped and counted, and Stop says how many samples were sent and how many dropped.
package promrw

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/klauspost/compress/snappy"
	"github.com/prometheus/prometheus/prompb"

	"github.com/rpcbench/rpcbench/engine"
	"github.com/rpcbench/rpcbench/output"
	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/summary"
)

// Options configure the output; the zero value of each field takes the default named.
type Options struct {
	// Queue is the most ticks waiting to be sent; 64 (a minute of one-second intervals).
	Queue int
	// Timeout bounds each request to the receiver; 5s.
	Timeout time.Duration
	// Attempts is how many times one tick's samples are sent before they are dropped; 5.
	Attempts int
	// MinBackoff and MaxBackoff bound the wait between attempts, doubled after each; 100ms, 5s.
	MinBackoff, MaxBackoff time.Duration
	// FlushTimeout bounds how long Stop waits for the queue to empty; 10s.
	FlushTimeout time.Duration
	// Client sends the requests; a client of its own when nil.
	Client *http.Client
	// Notes receives the line Stop writes about what was sent and dropped; nil writes none.
	Notes io.Writer
	// UserAgent names the sender; "rpcbench".
	UserAgent string
}

// Output sends the series to one receiver. Build it with New.
type Output struct {
	name, url string
	o         Options

	series *output.Series
	queue  chan batch
	done   chan struct{}
	ctx    context.Context
	cancel context.CancelFunc

	lastMs        int64         // the timestamp of the last batch queued, ms
	sent, dropped atomic.Uint64 // samples
	requests      atomic.Uint64
	errMu         sync.Mutex
	lastErr       error
}

// batch is the samples of one tick, stamped with the tick's time (Unix ms).
type batch struct {
	at      int64
	samples []output.Sample
}

// New returns the output that writes to the receiver at rawURL (http or https, e.g.
// http://127.0.0.1:9090/api/v1/write); name is its name in messages (the --out value).
func New(name, rawURL string, o Options) (*Output, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%q is not a remote-write URL: expected http:// or https://host:port/path, e.g. http://127.0.0.1:9090/api/v1/write", rawURL)
	}
	if o.Queue <= 0 {
		o.Queue = 64
	}
	if o.Timeout <= 0 {
		o.Timeout = 5 * time.Second
	}
	if o.Attempts <= 0 {
		o.Attempts = 5
	}
	if o.MinBackoff <= 0 {
		o.MinBackoff = 100 * time.Millisecond
	}
	if o.MaxBackoff < o.MinBackoff {
		o.MaxBackoff = max(5*time.Second, o.MinBackoff)
	}
	if o.FlushTimeout <= 0 {
		o.FlushTimeout = 10 * time.Second
	}
	if o.Client == nil {
		o.Client = &http.Client{}
	}
	if o.UserAgent == "" {
		o.UserAgent = "rpcbench"
	}
	return &Output{name: name, url: u.String(), o: o}, nil
}

// Name says which output it is.
func (p *Output) Name() string { return p.name }

// Start starts the sender.
func (p *Output) Start(r output.Run) error {
	p.series = output.NewSeries(r)
	p.queue = make(chan batch, p.o.Queue)
	p.done = make(chan struct{})
	p.ctx, p.cancel = context.WithCancel(context.Background())
	go p.send()
	return nil
}

// Tick queues the samples of t without waiting: when the queue is full they are dropped.
func (p *Output) Tick(t *engine.Tick) {
	p.enqueue(p.series.Tick(t))
}

// Resource keeps the last sample of a watched target for the next tick.
func (p *Output) Resource(target string, s result.ResourceSample) {
	if p.series != nil {
		p.series.Resource(target, s)
	}
}

func (p *Output) enqueue(s []output.Sample) {
	if len(s) == 0 {
		return
	}
	// Two ticks within a millisecond (the last interval's and the final one) would carry two
	// values of a series at one timestamp, which receivers refuse as duplicates.
	at := max(time.Now().UnixMilli(), p.lastMs+1)
	p.lastMs = at
	select {
	case p.queue <- batch{at: at, samples: s}:
	default:
		p.dropped.Add(uint64(len(s)))
	}
}

// Stop queues the run's validity, waits up to FlushTimeout for the queue to be sent, and writes to
// Notes what was sent and dropped. A receiver that could not take the samples is not the run's
// failure: Stop returns no error for it.
func (p *Output) Stop(_ *engine.Result, sum *summary.Summary) error {
	if p.queue == nil {
		return nil
	}
	if sum != nil {
		p.enqueue(p.series.Final(sum))
	}
	close(p.queue)
	t := time.NewTimer(p.o.FlushTimeout)
	defer t.Stop()
	select {
	case <-p.done:
	case <-t.C:
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
func (p *Output) Report() string {
	s := fmt.Sprintf("%s: %d samples sent in %d requests", p.name, p.sent.Load(), p.requests.Load())
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

// Sent and Dropped count the samples the receiver took and those given up on.
func (p *Output) Sent() uint64    { return p.sent.Load() }
func (p *Output) Dropped() uint64 { return p.dropped.Load() }

// send sends the queued batches one after the other until the queue is closed and empty, or Stop
// gives up on it; whatever is left then counts as dropped.
func (p *Output) send() {
	defer close(p.done)
	var buf bytes.Buffer
	for b := range p.queue {
		if p.ctx.Err() != nil {
			p.dropped.Add(uint64(len(b.samples)))
			continue
		}
		body, err := encode(b)
		if err == nil {
			err = p.post(body, &buf)
		}
		if err != nil {
			p.dropped.Add(uint64(len(b.samples)))
			p.errMu.Lock()
			p.lastErr = err
			p.errMu.Unlock()
			continue
		}
		p.sent.Add(uint64(len(b.samples)))
	}
}

// post sends one request body, retrying failures that may pass (the network, 5xx, 429) with
// back-off.
func (p *Output) post(body []byte, buf *bytes.Buffer) error {
	wait := p.o.MinBackoff
	var err error
	for attempt := 0; attempt < p.o.Attempts; attempt++ {
		if attempt > 0 {
			t := time.NewTimer(wait)
			select {
			case <-p.ctx.Done():
				t.Stop()
				return fmt.Errorf("%w (gave up when the run ended)", err)
			case <-t.C:
			}
			wait = min(2*wait, p.o.MaxBackoff)
		}
		var retry bool
		retry, err = p.attempt(body, attempt, buf)
		if err == nil || !retry {
			return err
		}
	}
	return err
}

func (p *Output) attempt(body []byte, attempt int, buf *bytes.Buffer) (retry bool, err error) {
	p.requests.Add(1)
	ctx, cancel := context.WithTimeout(p.ctx, p.o.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.url, bytes.NewReader(body))
	if err != nil {
		return false, err
	}
	req.Header.Set("Content-Encoding", "snappy")
	req.Header.Set("Content-Type", "application/x-protobuf")
	req.Header.Set("X-Prometheus-Remote-Write-Version", "0.1.0")
	req.Header.Set("User-Agent", p.o.UserAgent)
	if attempt > 0 {
		req.Header.Set("Retry-Attempt", fmt.Sprint(attempt))
	}
	resp, err := p.o.Client.Do(req)
	if err != nil {
		return true, err
	}
	defer resp.Body.Close()
	buf.Reset()
	io.Copy(buf, io.LimitReader(resp.Body, 512)) //nolint:errcheck // only for the message
	io.Copy(io.Discard, resp.Body)               //nolint:errcheck // so that the connection is reused
	if resp.StatusCode/100 == 2 {
		return false, nil
	}
	err = fmt.Errorf("%s answered %s: %s", p.url, resp.Status, strings.TrimSpace(buf.String()))
	return resp.StatusCode/100 == 5 || resp.StatusCode == http.StatusTooManyRequests, err
}

// encode makes the request body of b: a WriteRequest with one series per sample and the metadata
// of each metric, snappy-compressed.
func encode(b batch) ([]byte, error) {
	ts := b.at
	req := prompb.WriteRequest{Timeseries: make([]prompb.TimeSeries, 0, len(b.samples))}
	seen := map[string]bool{}
	for _, s := range b.samples {
		ls := make([]prompb.Label, 0, len(s.Labels)+1)
		ls = append(ls, prompb.Label{Name: "__name__", Value: s.Name})
		for _, l := range s.Labels {
			ls = append(ls, prompb.Label{Name: l.Name, Value: l.Value})
		}
		slices.SortFunc(ls, func(a, b prompb.Label) int { return strings.Compare(a.Name, b.Name) })
		req.Timeseries = append(req.Timeseries, prompb.TimeSeries{Labels: ls, Samples: []prompb.Sample{{Value: s.Value, Timestamp: ts}}})
		if !seen[s.Name] {
			seen[s.Name] = true
			typ := prompb.MetricMetadata_GAUGE
			if s.Kind == output.Counter {
				typ = prompb.MetricMetadata_COUNTER
			}
			req.Metadata = append(req.Metadata, prompb.MetricMetadata{Type: typ, MetricFamilyName: s.Name, Help: output.SeriesHelp[s.Name]})
		}
	}
	raw, err := req.Marshal()
	if err != nil {
		return nil, errors.Join(errors.New("encoding the remote-write request"), err)
	}
	return snappy.Encode(nil, raw), nil
}

var _ output.ResourceObserver = (*Output)(nil)
