package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/rpcbench/rpcbench/engine"
	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/summary"
	"golang.org/x/term"
)

// progress draws one live line on a terminal: elapsed/planned, the rate and p99 of the last
// interval, errors so far, requests in flight.
type progress struct {
	w      io.Writer
	errors uint64
	sent   uint64
	total  *result.Counts // reused each tick
}

func newProgress(w io.Writer) *progress { return &progress{w: w} }

func (p *progress) observe(t *engine.Tick) {
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
	if t.Warmup {
		fmt.Fprintf(&b, "warming up: %d sent", t.WarmupSent)
	} else {
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
	fmt.Fprint(p.w, b.String())
}

func isTerminalFd(fd uintptr) bool { return term.IsTerminal(int(fd)) }
