package output

import (
	"encoding/json"
	"io"
	"os"
	"time"

	"github.com/rpcbench/rpcbench/engine"
	"github.com/rpcbench/rpcbench/summary"
)

// LiveLines writes one JSON line per interval for dashboards and scripts: the time, the elapsed
// time, whether it is the warm-up or the last line, requests in flight, and for all endpoints
// together and each endpoint the interval's figures (summary.Point: sent, ok, errors, rps,
// p50/p90/p99/max), and the run's subscriptions so far when it has some.
type LiveLines struct {
	name, path string
	stdout     io.Writer
	w          io.Writer
	close      func() error
	names      []string
	subs       func() summary.SubscriptionCounts
	notified   uint64 // the notifications of the line before
	err        error
}

// liveLine is one line of LiveLines.
type liveLine struct {
	Time      time.Time       `json:"time"`
	ElapsedS  float64         `json:"elapsed_s"`
	Warmup    bool            `json:"warmup,omitempty"`
	Final     bool            `json:"final,omitempty"`
	InFlight  int64           `json:"in_flight"`
	Total     summary.Point   `json:"total"`
	Endpoints []summary.Point `json:"endpoints"`
	// Subscriptions are the run's JSON-RPC subscriptions so far, and the notifications received
	// since the line before; absent when the run has none.
	Subscriptions *liveSubscriptions `json:"subscriptions,omitempty"`
}

type liveSubscriptions struct {
	summary.SubscriptionCounts
	NewNotifications uint64 `json:"new_notifications"`
}

// NewLiveLines returns the output that writes the lines to the file at path, or to stdout when
// path is "-"; name is its name in messages (--live).
func NewLiveLines(name, path string, stdout io.Writer) *LiveLines {
	return &LiveLines{name: name, path: path, stdout: stdout}
}

// Name says which output it is.
func (l *LiveLines) Name() string { return l.name }

// Start opens the file.
func (l *LiveLines) Start(r Run) error {
	l.names, l.subs = r.Endpoints, r.Subscriptions
	l.w, l.close = l.stdout, func() error { return nil }
	if l.path != "-" {
		fh, err := os.Create(l.path)
		if err != nil {
			return err
		}
		l.w, l.close = fh, fh.Close
	}
	return nil
}

// Tick writes the line of t.
func (l *LiveLines) Tick(t *engine.Tick) {
	if l.err != nil || l.w == nil {
		return
	}
	tl := summary.Timeline{Every: true}
	iv := t.Interval
	line := liveLine{Time: time.Now().UTC(), ElapsedS: t.Elapsed.Seconds(), Warmup: t.Warmup, Final: t.Final, InFlight: t.InFlight}
	if iv.End > iv.Start {
		tl.Add(iv, l.names)
		line.Total = tl.Points[0]
		line.Endpoints = tl.Points[1:]
		if len(l.names) == 1 {
			line.Total.Endpoint = ""
			p := tl.Points[0]
			p.Endpoint = l.names[0]
			line.Endpoints = []summary.Point{p}
		}
	}
	if l.subs != nil {
		c := l.subs()
		line.Subscriptions = &liveSubscriptions{SubscriptionCounts: c, NewNotifications: c.Notifications - l.notified}
		l.notified = c.Notifications
	}
	if line.Endpoints == nil {
		line.Endpoints = []summary.Point{}
	}
	b, err := json.Marshal(line)
	if err == nil {
		_, err = l.w.Write(append(b, '\n'))
	}
	l.err = err
}

// Stop closes the file.
func (l *LiveLines) Stop(*engine.Result, *summary.Summary) error {
	if l.close == nil {
		return nil
	}
	if err := l.close(); l.err == nil {
		l.err = err
	}
	return l.err
}

var _ Output = (*LiveLines)(nil)
