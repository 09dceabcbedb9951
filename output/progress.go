package output

import (
	"fmt"
	"io"
	"strings"

	"github.com/rpcbench/rpcbench/engine"
	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/summary"
)

// Progress draws one live line on a terminal: elapsed/planned, the rate and p99 of the last
// interval, errors so far, requests in flight, and the subscriptions so far when the run has some
// (only they for a run of subscriptions and no calls); the last tick clears it.
type Progress struct {
	w      io.Writer
	errors uint64
	sent   uint64
	total  *result.Counts // reused each tick
	subs   func() summary.SubscriptionCounts
	noCall bool
}

// NewProgress returns the progress line drawn on w (a terminal: it rewrites its line with \r).
func NewProgress(w io.Writer) *Progress { return &Progress{w: w} }

// Name says which output it is.
func (p *Progress) Name() string { return "progress" }

// Start notes whether the run has subscriptions and calls: the line is drawn at the first tick.
func (p *Progress) Start(r Run) error {
	p.subs, p.noCall = r.Subscriptions, r.Plan.SubscriptionsOnly()
	return nil
}

// Stop does nothing: the last tick cleared the line.
func (p *Progress) Stop(*engine.Result, *summary.Summary) error { return nil }

// Tick redraws the line.
func (p *Progress) Tick(t *engine.Tick) {
	if t.Final {
		fmt.Fprint(p.w, "\r\033[K")
		return
	}
	if p.total == nil {
		p.total = result.NewCounts()
	}
	total := t.Interval.TotalInto(p.total)
	p.errors += total.Failed()
	p.sent += total.Sent
	secs := (t.Interval.End - t.Interval.Start).Seconds()
	planned := "?"
	if t.Planned > 0 {
		planned = t.Planned.Round(1e9).String()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\r\033[K[%s/%s] ", t.Elapsed.Round(1e9), planned)
	switch {
	case p.noCall:
	case t.Warmup:
		fmt.Fprintf(&b, "warming up: %d sent", t.WarmupSent)
	default:
		rate := 0.0
		if secs > 0 {
			rate = float64(total.Sent) / secs
		}
		p99 := "-"
		if total.Latency.TotalCount() > 0 {
			p99 = summary.FormatMs(float64(total.Latency.ValueAtQuantile(99)) / 1000)
		}
		fmt.Fprintf(&b, "%.1f req/s  p99 %s  sent %d  errors %d  in flight %d", rate, p99, p.sent, p.errors, t.InFlight)
	}
	if p.subs != nil {
		c := p.subs()
		if !p.noCall {
			b.WriteString("  ")
		}
		fmt.Fprintf(&b, "subscriptions %d opened, %d failed, %d notifications, %d gaps", c.Opened, c.Failed, c.Notifications, c.Gaps)
	}
	fmt.Fprint(p.w, b.String())
}

var _ Output = (*Progress)(nil)
