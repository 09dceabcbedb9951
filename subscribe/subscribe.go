// Package subscribe measures JSON-RPC subscriptions over WebSocket, message by message: N
// subscriptions (eth_subscribe or any NAMESPACE_subscribe) opened on a schedule, each on its own
// connection, held for the run and then unsubscribed. Per subscription it times the subscribe
// call's answer (the subscription id) and the first notification, counts notifications and the
// ones missing (gaps), and whether the unsubscribe was answered; per notification, the delivery
// latency where the server stamps its events, and per event the fan-out spread: the time between
// the first and the last subscriber receiving it, which needs no server clock.
//
// Gaps are read from the notification's rpcbenchSeq member when the server sends one (rpcbench
// serve jsonrpc does: 1, 2, … per subscription), else from the block number of newHeads results
// (a head whose number is more than one past the one before counts the numbers skipped). Delivery
// latency needs rpcbenchStampNs, the Unix time in nanoseconds at which the server published the
// event, on the same clock as the generator's (the same machine, or synchronised clocks).
//
// Memory is bounded by the subscriptions and the events of the last spread window, not by the
// messages: figures go into HDR histograms as they arrive.
package subscribe

import (
	"cmp"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/summary"
)

// Defaults of zero Config fields.
const (
	DefaultAnswerTimeout = 10 * time.Second
	DefaultSpreadWindow  = 5 * time.Second
	// maxErrors bounds the distinct failure messages kept.
	maxErrors = 10
)

// Config says what to subscribe to and how many times.
type Config struct {
	// URL is the ws:// or wss:// endpoint.
	URL string
	// Method is the subscribe method (eth_subscribe); its unsubscribe is the same name with
	// _unsubscribe for _subscribe.
	Method string
	// Params are the subscribe call's params, a JSON array: ["newHeads"].
	Params json.RawMessage
	// Count is the number of subscriptions.
	Count int
	// Rate, when above 0, opens the subscriptions at Rate per second until Count are open (open
	// model); 0 opens all Count at once (closed model: N held).
	Rate float64
	// Hold is the length of the run: from the start until every subscription is unsubscribed.
	Hold time.Duration
	// AnswerTimeout bounds the wait for the connection, the subscribe answer and the unsubscribe
	// answer. 0: DefaultAnswerTimeout.
	AnswerTimeout time.Duration
	// SpreadWindow is how long after its first receipt an event waits for more subscribers
	// before its spread is taken. 0: DefaultSpreadWindow.
	SpreadWindow time.Duration
	// Header is sent with each connection's upgrade.
	Header http.Header
	// TLS configures wss connections; nil: the defaults.
	TLS *tls.Config
	// Marks split the run into parts at these offsets from its start, in increasing order: the
	// notifications and delivery latencies of each part are kept apart too (Result.Parts), e.g.
	// for the stages of a call load beside the subscriptions.
	Marks []time.Duration
	// Reference, when set, is a ws:// or wss:// URL on which one more connection subscribes to
	// newHeads (with Method), not counted among the subscriptions: each head the subscriptions
	// receive is timed behind the reference's receipt of it (Result's reference lag). The
	// subscriptions must be of newHeads too.
	Reference string
	// Live, if set, counts the subscriptions as they go, for outputs that show them during the
	// run.
	Live *Live
	// Cut, when closed, ends the wait for the unsubscribe answers at once (a second interrupt):
	// the subscriptions still open are counted as unsubscribed without an answer.
	Cut <-chan struct{}
}

// Live is a run's subscriptions counted as they go; safe for concurrent use. The zero value
// counts from nothing.
type Live struct {
	opened, failed atomic.Int64
	messages, gaps atomic.Uint64
}

// Counts returns the counts so far; nil-safe (a nil Live has counted nothing).
func (l *Live) Counts() summary.SubscriptionCounts {
	if l == nil {
		return summary.SubscriptionCounts{}
	}
	return summary.SubscriptionCounts{Opened: l.opened.Load(), Failed: l.failed.Load(), Notifications: l.messages.Load(), Gaps: l.gaps.Load()}
}

func (c *Config) check() error {
	var errs []error
	if !strings.HasPrefix(c.URL, "ws://") && !strings.HasPrefix(c.URL, "wss://") {
		errs = append(errs, fmt.Errorf("subscriptions need a WebSocket URL (ws:// or wss://); got %q", c.URL))
	}
	if _, _, err := plan.ParseSubscribe(c.Method + " " + string(c.Params)); err != nil {
		errs = append(errs, err)
	}
	if c.Reference != "" {
		if err := plan.CheckReference(c.Reference, c.Params); err != nil {
			errs = append(errs, err)
		}
	}
	if c.Count < 1 {
		errs = append(errs, fmt.Errorf("%d subscriptions; want 1 or more", c.Count))
	}
	if c.Rate < 0 {
		errs = append(errs, fmt.Errorf("a rate of %v subscriptions per second; want 0 (all at once) or more", c.Rate))
	}
	if c.Hold <= 0 {
		errs = append(errs, fmt.Errorf("a run of %v; want a length above 0", c.Hold))
	}
	if c.AnswerTimeout == 0 {
		c.AnswerTimeout = DefaultAnswerTimeout
	}
	if c.SpreadWindow == 0 {
		c.SpreadWindow = DefaultSpreadWindow
	}
	for i, m := range c.Marks {
		if m <= 0 || i > 0 && m <= c.Marks[i-1] {
			errs = append(errs, fmt.Errorf("marks %v: want increasing offsets above 0", c.Marks))
			break
		}
	}
	return errors.Join(errs...)
}

// Result holds what a run of subscriptions measured. Durations in the histograms are in
// microseconds (result's unit).
type Result struct {
	Request string // method and params, as asked
	Asked   int    // subscriptions the schedule opened
	Opened  int    // those answered with a subscription id
	Failed  int    // those that failed: no connection, an error answer, no answer in time
	// Errors are the distinct failure messages with their counts (at most 10; the rest under
	// "other").
	Errors map[string]int
	// TimeToID runs from the subscribe call's send to its answer; TimeToFirst from the send to
	// the first notification.
	TimeToID, TimeToFirst *result.Histogram
	// Delivery is each notification's latency from its rpcbenchStampNs; Spread is each event's
	// time from its first to its last receipt, for events that reached two subscribers or more.
	Delivery, Spread *result.Histogram
	Messages         uint64 // notifications received
	Stamped          uint64 // of which carried rpcbenchStampNs
	Gaps             uint64 // notifications missing
	GappedSubs       int    // opened subscriptions that missed one or more
	// GapsBy names what the gaps were read from: "sequence" (rpcbenchSeq), "block number", or ""
	// when no notification told.
	GapsBy string
	// MinPerSub and MaxPerSub are the fewest and most notifications of one opened subscription.
	MinPerSub, MaxPerSub uint64
	UnsubscribeSent      int // unsubscribe calls sent (one per opened subscription still open)
	Unsubscribed         int // of which answered true
	// Interrupted is set when the run ended (its ctx) before Config.Hold had passed.
	Interrupted bool
	// Parts are the run cut at Config.Marks (none without marks): the notifications received in
	// each and their delivery latencies.
	Parts []Part

	ref    *reference // with Config.Reference: the heads timed against it
	refURL string
}

// newParts are the empty parts of a run cut at marks; none without marks. The last one's To is
// set at the run's end.
func newParts(marks []time.Duration) []Part {
	if len(marks) == 0 {
		return nil
	}
	var parts []Part
	from := time.Duration(0)
	for _, m := range append(marks[:len(marks):len(marks)], -1) {
		parts = append(parts, Part{From: from, To: m, Delivery: result.NewHistogram()})
		from = m
	}
	return parts
}

// Part is a stretch of the run, by the time notifications were received: their count, the gaps
// they revealed (the notifications missing before them) and their delivery latencies.
type Part struct {
	From, To time.Duration // from the run's start; the last part's To is where the run ended
	Messages uint64
	Gaps     uint64
	Delivery *result.Histogram
}

// Run opens the subscriptions on cfg's schedule, holds them until cfg.Hold has passed since the
// start (or ctx ends), unsubscribes them and returns the figures. Its error is about cfg only:
// failures of the server are counted in the Result.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	r := &runner{cfg: cfg, res: &Result{
		Request: cfg.Method + " " + string(cfg.Params), Errors: map[string]int{},
		TimeToID: result.NewHistogram(), TimeToFirst: result.NewHistogram(),
		Delivery: result.NewHistogram(), Spread: result.NewHistogram(),
	}, events: map[uint64]*event{}}
	r.client = &http.Client{Transport: &http.Transport{TLSClientConfig: cfg.TLS, ForceAttemptHTTP2: false}}
	defer r.client.CloseIdleConnections()
	r.unsub = strings.TrimSuffix(cfg.Method, "subscribe") + "unsubscribe"
	start := time.Now()
	r.start = start
	var stopCut context.CancelFunc
	r.cut, stopCut = context.WithCancel(context.Background())
	defer stopCut()
	if cfg.Cut != nil {
		go func() {
			select {
			case <-cfg.Cut:
				stopCut()
			case <-r.cut.Done():
			}
		}()
	}
	r.res.Parts = newParts(cfg.Marks)
	ctx, cancel := context.WithDeadlineCause(ctx, start.Add(cfg.Hold), errHeld)
	defer cancel()

	sweepDone := make(chan struct{})
	go func() { defer close(sweepDone); r.sweep(ctx) }()
	var wg sync.WaitGroup
	if cfg.Reference != "" {
		r.res.ref = &reference{heads: map[string]time.Time{}, pending: map[string]pendingHead{}, lag: result.NewHistogram()}
		r.res.refURL = plan.RedactURL(cfg.Reference)
		wg.Go(func() { r.runReference(ctx) })
	}
	for i := range cfg.Count {
		if cfg.Rate > 0 {
			at := start.Add(time.Duration(float64(i) / cfg.Rate * float64(time.Second)))
			if !sleepUntil(ctx, at) {
				break
			}
		}
		r.mu.Lock()
		r.res.Asked++
		r.mu.Unlock()
		wg.Go(func() { r.subscription(ctx) })
	}
	wg.Wait()
	r.res.Interrupted = ctx.Err() != nil && context.Cause(ctx) != errHeld
	<-sweepDone
	r.settle(time.Time{})
	if n := len(r.res.Parts); n > 0 {
		r.res.Parts[n-1].To = time.Since(start)
	}
	return r.res, nil
}

// errHeld ends a run that held its subscriptions for the whole Config.Hold.
var errHeld = errors.New("held for the run's length")

func sleepUntil(ctx context.Context, at time.Time) bool {
	t := time.NewTimer(time.Until(at))
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

type runner struct {
	cfg    Config
	client *http.Client
	unsub  string

	start time.Time
	// cut ends when Config.Cut closes (or Run returns): the unsubscribe answers are no longer
	// waited for.
	cut    context.Context
	mu     sync.Mutex
	res    *Result
	minSet bool              // res.MinPerSub holds a subscription's count
	events map[uint64]*event // by a hash of the notification's result
}

// event is one event's receipts so far.
type event struct {
	first, last time.Time
	n           int
}

// sweep takes the spread of the events whose window has passed, until ctx ends.
func (r *runner) sweep(ctx context.Context) {
	t := time.NewTicker(r.cfg.SpreadWindow / 4)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			r.settle(now.Add(-r.cfg.SpreadWindow))
		}
	}
}

// settle records the spread of the events first received before cut (all of them for a zero cut).
func (r *runner) settle(cut time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k, ev := range r.events {
		if cut.IsZero() || ev.first.Before(cut) {
			if ev.n >= 2 {
				result.RecordDuration(r.res.Spread, ev.last.Sub(ev.first))
			}
			delete(r.events, k)
		}
	}
}

func (r *runner) fail(msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.res.Failed++
	if l := r.cfg.Live; l != nil {
		l.failed.Add(1)
	}
	if _, ok := r.res.Errors[msg]; !ok && len(r.res.Errors) >= maxErrors {
		msg = "other"
	}
	r.res.Errors[msg]++
}

// notification is an eth_subscription message as read.
type notification struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	Method string `json:"method"`
	Params struct {
		Subscription string          `json:"subscription"`
		Result       json.RawMessage `json:"result"`
		Seq          *uint64         `json:"rpcbenchSeq"`
		Stamp        *int64          `json:"rpcbenchStampNs"`
	} `json:"params"`
}

// received is a message and the time it was read.
type received struct {
	b  []byte
	at time.Time
}

// sub is one subscription's own state, touched only by its goroutine.
type sub struct {
	id       string
	sent     time.Time
	messages uint64
	last     uint64 // the last sequence or block number seen
	seen     bool
	by       string
	gaps     uint64
	// the lag of its heads behind the reference: their sum, number and largest
	lagSum, lagMax time.Duration
	lagN           uint64
}

// subscription runs one subscription: connect, subscribe, read until ctx ends, unsubscribe.
func (r *runner) subscription(ctx context.Context) {
	cctx, cancel := context.WithTimeout(ctx, r.cfg.AnswerTimeout)
	c, _, err := websocket.Dial(cctx, r.cfg.URL, &websocket.DialOptions{HTTPClient: r.client, HTTPHeader: r.cfg.Header})
	cancel()
	if err != nil {
		if ctx.Err() == nil {
			r.fail("connect: " + plan.RedactURL(err.Error())) // the dial error quotes the URL: its secrets stay out
		}
		return
	}
	defer c.CloseNow() //nolint:errcheck // closing after the close handshake, or cutting
	c.SetReadLimit(64 << 20)
	var s sub
	s.sent = time.Now()
	call := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":1,"method":%q,"params":%s}`, r.cfg.Method, r.cfg.Params)
	if err := c.Write(ctx, websocket.MessageText, call); err != nil {
		r.fail("subscribe: " + err.Error())
		return
	}
	// Messages are read by one goroutine and handed over, so that the wait for the answers has
	// its own time limit while notifications go on arriving.
	msgs := make(chan received, 256)
	readErr := make(chan error, 1)
	go func() {
		defer close(msgs)
		for {
			_, m, err := c.Read(context.Background())
			if err != nil {
				readErr <- err
				return
			}
			msgs <- received{m, time.Now()}
		}
	}()
	defer func() {
		c.CloseNow() //nolint:errcheck // ends the reader
		for range msgs {
		}
	}()
	answered := false
	timeout := time.NewTimer(r.cfg.AnswerTimeout)
	defer timeout.Stop()
	for !answered {
		select {
		case m, ok := <-msgs:
			if !ok {
				r.fail("subscribe: the connection ended before the answer: " + (<-readErr).Error())
				return
			}
			var n notification
			if err := json.Unmarshal(m.b, &n); err != nil {
				r.fail("subscribe: an answer that is not JSON-RPC: " + err.Error())
				return
			}
			if string(n.ID) != "1" {
				continue // a notification before the answer: geth never sends one, and it has no id yet
			}
			if n.Error != nil {
				r.fail(fmt.Sprintf("subscribe: error %d %s", n.Error.Code, n.Error.Message))
				return
			}
			if err := json.Unmarshal(n.Result, &s.id); err != nil || s.id == "" {
				r.fail("subscribe: the answer's result is not a subscription id: " + string(n.Result))
				return
			}
			answered = true
			r.mu.Lock()
			r.res.Opened++
			if l := r.cfg.Live; l != nil {
				l.opened.Add(1)
			}
			result.RecordDuration(r.res.TimeToID, m.at.Sub(s.sent))
			r.mu.Unlock()
		case <-timeout.C:
			r.fail(fmt.Sprintf("subscribe: no answer within %v", r.cfg.AnswerTimeout))
			return
		case <-ctx.Done():
			r.fail("subscribe: the run ended before the answer")
			return
		}
	}
	for {
		select {
		case m, ok := <-msgs:
			if !ok {
				r.finish(&s, false, false)
				return
			}
			var n notification
			if json.Unmarshal(m.b, &n) == nil {
				r.message(&s, &n, m.at)
			}
		case <-ctx.Done():
			r.finish(&s, true, r.unsubscribe(c, msgs, &s))
			return
		}
	}
}

// unsubscribe sends the unsubscribe call and waits (AnswerTimeout at most, until the cut) for
// its answer, counting the notifications that arrive meanwhile; true when the answer is true.
func (r *runner) unsubscribe(c *websocket.Conn, msgs <-chan received, s *sub) bool {
	ctx, cancel := context.WithTimeout(r.cut, r.cfg.AnswerTimeout)
	defer cancel()
	call := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":2,"method":%q,"params":[%q]}`, r.unsub, s.id)
	if c.Write(ctx, websocket.MessageText, call) != nil {
		return false
	}
	for {
		select {
		case m, ok := <-msgs:
			if !ok {
				return false
			}
			var n notification
			if json.Unmarshal(m.b, &n) != nil {
				continue
			}
			if string(n.ID) == "2" {
				return string(n.Result) == "true"
			}
			r.message(s, &n, m.at)
		case <-ctx.Done():
			return false
		}
	}
}

// finish adds a subscription's counts to the result.
func (r *runner) finish(s *sub, sent, answered bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if sent {
		r.res.UnsubscribeSent++
	}
	if answered {
		r.res.Unsubscribed++
	}
	r.res.Gaps += s.gaps
	if s.gaps > 0 {
		r.res.GappedSubs++
	}
	if s.by != "" && r.res.GapsBy == "" {
		r.res.GapsBy = s.by
	}
	if !r.minSet || s.messages < r.res.MinPerSub {
		r.res.MinPerSub, r.minSet = s.messages, true
	}
	r.res.MaxPerSub = max(r.res.MaxPerSub, s.messages)
	if ref := r.res.ref; ref != nil && s.lagN > 0 {
		if w := &ref.slowest; w.n == 0 || s.lagSum/time.Duration(s.lagN) > w.sum/time.Duration(w.n) {
			w.sum, w.max, w.n = s.lagSum, s.lagMax, s.lagN
		}
	}
}

// message takes one message of an open subscription.
func (r *runner) message(s *sub, n *notification, now time.Time) {
	if n.Params.Subscription != s.id || len(n.Params.Result) == 0 {
		return // not a notification of this subscription
	}
	s.messages++
	gaps := s.gaps
	switch {
	case n.Params.Seq != nil:
		s.by = "sequence"
		s.step(*n.Params.Seq)
	case s.by != "sequence":
		var h struct {
			Number string `json:"number"`
		}
		if json.Unmarshal(n.Params.Result, &h) == nil && strings.HasPrefix(h.Number, "0x") {
			if v, err := strconv.ParseUint(h.Number[2:], 16, 64); err == nil {
				s.by = "block number"
				s.step(v)
			}
		}
	}
	f := fnv.New64a()
	f.Write(n.Params.Result) //nolint:errcheck // a hash.Hash never fails
	key := f.Sum64()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.res.Messages++
	if r.res.ref != nil {
		if lag, ok := r.behind(n.Params.Result, now); ok {
			s.lagSum, s.lagMax, s.lagN = s.lagSum+lag, max(s.lagMax, lag), s.lagN+1
		}
	}
	if l := r.cfg.Live; l != nil {
		l.messages.Add(1)
		l.gaps.Add(s.gaps - gaps)
	}
	if s.messages == 1 {
		result.RecordDuration(r.res.TimeToFirst, now.Sub(s.sent))
	}
	var part *Part
	if len(r.res.Parts) > 0 {
		at := now.Sub(r.start)
		i := sort.Search(len(r.cfg.Marks), func(i int) bool { return r.cfg.Marks[i] > at })
		part = &r.res.Parts[i]
		part.Messages++
		part.Gaps += s.gaps - gaps
	}
	if n.Params.Stamp != nil {
		r.res.Stamped++
		d := now.Sub(time.Unix(0, *n.Params.Stamp))
		result.RecordDuration(r.res.Delivery, d)
		if part != nil {
			result.RecordDuration(part.Delivery, d)
		}
	}
	// Receipts are stamped by their readers and may take the lock out of order.
	ev := r.events[key]
	if ev == nil {
		ev = &event{first: now, last: now}
		r.events[key] = ev
	}
	if now.Before(ev.first) {
		ev.first = now
	}
	if now.After(ev.last) {
		ev.last = now
	}
	ev.n++
}

// step takes the next sequence or block number v: numbers skipped since the last are gaps.
func (s *sub) step(v uint64) {
	if s.seen && v > s.last+1 {
		s.gaps += v - s.last - 1
	}
	if !s.seen || v > s.last {
		s.last, s.seen = v, true
	}
}

// Summary is r's figures for a report.
func (r *Result) Summary() *summary.Subscriptions {
	out := &summary.Subscriptions{
		Request: r.Request, Asked: r.Asked, Opened: r.Opened, Failed: r.Failed,
		TimeToID: summary.PercentilesOf(r.TimeToID), TimeToFirst: summary.PercentilesOf(r.TimeToFirst),
		Messages: r.Messages, MinPerSubscription: r.MinPerSub, MaxPerSubscription: r.MaxPerSub,
		Gaps: r.Gaps, GappedSubscriptions: r.GappedSubs, GapsBy: r.GapsBy, Stamped: r.Stamped,
		Delivery: summary.PercentilesOf(r.Delivery), Spread: summary.PercentilesOf(r.Spread),
		SpreadEvents:    uint64(r.Spread.TotalCount()),
		UnsubscribeSent: r.UnsubscribeSent, Unsubscribed: r.Unsubscribed,
		Reference: r.lagOf(),
	}
	if r.Opened > 0 {
		out.MeanPerSubscription = float64(r.Messages) / float64(r.Opened)
	}
	for _, p := range r.Parts {
		out.Parts = append(out.Parts, summary.SubscriptionPart{
			FromS: p.From.Seconds(), ToS: p.To.Seconds(), Messages: p.Messages, Gaps: &p.Gaps, Delivery: summary.PercentilesOf(p.Delivery),
		})
	}
	for msg, n := range r.Errors {
		out.Errors = append(out.Errors, summary.SubscriptionError{Message: msg, Count: n})
	}
	slices.SortFunc(out.Errors, func(a, b summary.SubscriptionError) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Message, b.Message))
	})
	return out
}
