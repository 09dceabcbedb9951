// Package promrw is the output that sends a run's live series (output.Series) to a Prometheus
// remote-write receiver as the run goes: Prometheus with --web.enable-remote-write-receiver, Mimir,
// Thanos Receive, VictoriaMetrics, Grafana Cloud. It speaks remote write 1.0 (a snappy-compressed
// protobuf WriteRequest), encoded with the Prometheus project's own prompb package.
//
// A receiver that is slow or down never slows the run (output.Pusher): each tick's samples go into
// a bounded queue that a goroutine of its own sends from, retrying failures that may pass (the
// network, 5xx, 429) with back-off; a tick that finds the queue full is dropped and counted, and
// Stop says how many samples were sent and how many dropped.
package promrw

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/klauspost/compress/snappy"
	"github.com/prometheus/prometheus/model/histogram"
	"github.com/prometheus/prometheus/prompb"

	"github.com/rpcbench/rpcbench/output"
	"github.com/rpcbench/rpcbench/plan"
)

// Options configure the output; the zero value of each field takes the default named.
type Options struct {
	output.PushOptions
	// Timeout bounds each request to the receiver; 5s.
	Timeout time.Duration
	// Attempts is how many times one tick's samples are sent before they are dropped; 5.
	Attempts int
	// MinBackoff and MaxBackoff bound the wait between attempts, doubled after each; 100ms, 5s.
	MinBackoff, MaxBackoff time.Duration
	// Client sends the requests; a client of its own when nil.
	Client *http.Client
	// UserAgent names the sender; "rpcbench".
	UserAgent string
}

// Output sends the series to one receiver. Build it with New.
type Output struct {
	*output.Pusher
	url string
	o   Options
	buf bytes.Buffer // the receiver's answers, read on the sender's goroutine
}

// New returns the output that writes to the receiver at rawURL (http or https, e.g.
// http://127.0.0.1:9090/api/v1/write); name is its name in messages (the --out value).
func New(name, rawURL string, o Options) (*Output, error) {
	u, err := output.PushURL(rawURL, "remote-write", "http://127.0.0.1:9090/api/v1/write")
	if err != nil {
		return nil, err
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
	if o.Client == nil {
		o.Client = &http.Client{}
	}
	if o.UserAgent == "" {
		o.UserAgent = "rpcbench"
	}
	p := &Output{url: u, o: o}
	p.Pusher = output.NewPusher(name, o.PushOptions, p.send)
	return p, nil
}

// send encodes b and posts it.
func (p *Output) send(ctx context.Context, b output.Batch) error {
	body, err := encode(b)
	if err != nil {
		return err
	}
	return p.post(ctx, body)
}

// post sends one request body, retrying failures that may pass (the network, 5xx, 429) with
// back-off.
func (p *Output) post(ctx context.Context, body []byte) error {
	wait := p.o.MinBackoff
	var err error
	for attempt := 0; attempt < p.o.Attempts; attempt++ {
		if attempt > 0 {
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return fmt.Errorf("%w (gave up when the run ended)", err)
			case <-t.C:
			}
			wait = min(2*wait, p.o.MaxBackoff)
		}
		var retry bool
		retry, err = p.attempt(ctx, body, attempt)
		if err == nil || !retry {
			return err
		}
	}
	return err
}

func (p *Output) attempt(ctx context.Context, body []byte, attempt int) (retry bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, p.o.Timeout)
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
		return true, output.RedactedErr(err, p.url)
	}
	defer resp.Body.Close()
	p.buf.Reset()
	io.Copy(&p.buf, io.LimitReader(resp.Body, 512)) //nolint:errcheck // only for the message
	io.Copy(io.Discard, resp.Body)                  //nolint:errcheck // so that the connection is reused
	if resp.StatusCode/100 == 2 {
		return false, nil
	}
	err = fmt.Errorf("%s answered %s: %s", plan.RedactURL(p.url), resp.Status, strings.TrimSpace(p.buf.String()))
	return resp.StatusCode/100 == 5 || resp.StatusCode == http.StatusTooManyRequests, err
}

// encode makes the request body of b: a WriteRequest with one series per sample and the metadata
// of each metric, snappy-compressed.
func encode(b output.Batch) ([]byte, error) {
	ts := b.At
	req := prompb.WriteRequest{Timeseries: make([]prompb.TimeSeries, 0, len(b.Samples))}
	seen := map[string]bool{}
	for _, s := range b.Samples {
		ls := make([]prompb.Label, 0, len(s.Labels)+1)
		ls = append(ls, prompb.Label{Name: "__name__", Value: s.Name})
		for _, l := range s.Labels {
			ls = append(ls, prompb.Label{Name: l.Name, Value: l.Value})
		}
		slices.SortFunc(ls, func(a, b prompb.Label) int { return strings.Compare(a.Name, b.Name) })
		series := prompb.TimeSeries{Labels: ls}
		if s.Kind == output.Histogram {
			series.Histograms = []prompb.Histogram{prompb.FromIntHistogram(ts, native(s.Native))}
		} else {
			series.Samples = []prompb.Sample{{Value: s.Value, Timestamp: ts}}
		}
		req.Timeseries = append(req.Timeseries, series)
		if !seen[s.Name] {
			seen[s.Name] = true
			typ := prompb.MetricMetadata_GAUGE
			switch s.Kind {
			case output.Counter:
				typ = prompb.MetricMetadata_COUNTER
			case output.Histogram:
				typ = prompb.MetricMetadata_HISTOGRAM
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

// native returns n as Prometheus's own histogram type: its buckets in spans of consecutive
// indexes, their counts delta-encoded.
func native(n *output.Native) *histogram.Histogram {
	h := &histogram.Histogram{Schema: n.Schema, Count: n.Count, ZeroCount: n.Zero, Sum: n.Sum}
	idx := slices.Sorted(maps.Keys(n.Buckets))
	prev, last := int64(0), int32(0)
	for i, x := range idx {
		switch {
		case i == 0:
			h.PositiveSpans = append(h.PositiveSpans, histogram.Span{Offset: x, Length: 1})
		case x == last+1:
			h.PositiveSpans[len(h.PositiveSpans)-1].Length++
		default:
			h.PositiveSpans = append(h.PositiveSpans, histogram.Span{Offset: x - last - 1, Length: 1})
		}
		c := int64(n.Buckets[x])
		h.PositiveBuckets = append(h.PositiveBuckets, c-prev)
		prev, last = c, x
	}
	return h
}

var _ output.ResourceObserver = (*Output)(nil)
