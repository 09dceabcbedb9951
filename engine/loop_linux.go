package engine

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/transport"
	"github.com/rpcbench/rpcbench/transport/httpx"
)

// loopSender sends a run's requests from one goroutine on an httpx.Loop, which owns the run's
// connections, instead of from a goroutine per connection through a Transport: the same requests,
// numbered, paced and recorded as the senders do (worker.record), at a fraction of their CPU per
// request. It serves plans of HTTP/1.1 over plain TCP to one host, in the open model and in the
// closed model without stages (newLoopSender says which).
//
// With a send slack (the open model) answers are read at the next batch of arrivals and timed by
// the kernel's receive timestamp of their last packet, so that a batch costs one wake-up instead of
// one for it and one per answer; answers wake the Loop at once while every connection is busy and
// an arrival waits for one, once sending has stopped, and whenever httpx.Loop finds waiting unsafe
// (large answers). Without a slack, and in the closed model, each answer wakes the Loop.
type loopSender struct {
	r     *run
	lp    *httpx.Loop
	host  string
	w     *worker
	calls []*loopCall
	free  []*loopCall // calls not in flight (open model), or ready to start (closed model)
	// backing are the closed model's calls that wait out a back-off after a failed connection.
	backing []*loopCall
	aborted bool
	// starting is set while wakeClosed starts calls; again holds those that finished meanwhile.
	starting bool
	again    []*loopCall

	// open model
	open   bool
	i      uint64        // the next arrival
	due    time.Duration // its due time, when have
	have   bool
	slack  time.Duration
	end    time.Duration // the planned end, when hasEnd
	hasEnd bool
}

type loopCall struct {
	httpx.Call
	i         uint64
	intended  time.Time
	begin     time.Time
	scheduled bool
	// the closed model's back-off
	back      backoff
	backSince time.Time
	backUntil time.Time
	measured  bool // the back-off follows a measured request
}

// newLoopSender returns a loopSender for p, whose requests go to origins (plan.Prepared.Origins;
// nil when not known), or nil when p is not one the Loop serves: HTTP/1.1 over plain TCP,
// keep-alive on, every request to the same host, the open model or the closed model without
// stages, and not --sender goroutines.
func newLoopSender(p plan.Plan, origins []string, keepBody bool) sender {
	if p.HTTP.Sender == plan.SenderGoroutines || p.ProtocolOf() != transport.HTTP1 || p.HTTP.DisableKeepAlive {
		return nil
	}
	if p.Load.Model == plan.Closed && (len(p.Load.Stages) > 0 || p.Load.WarmupFrom != nil) {
		return nil
	}
	if len(origins) != 1 || !strings.HasPrefix(origins[0], "http://") {
		return nil
	}
	host := strings.TrimPrefix(origins[0], "http://")
	if host == "" {
		return nil
	}
	lp, err := httpx.NewLoop(httpx.Options{
		Timeout:        p.HTTP.Timeout,
		ConnectTimeout: p.HTTP.ConnectTimeout,
		KeepBody:       keepBody,
		MaxBody:        p.HTTP.MaxBody,
	}, "http", host, p.Load.Connections, p.Load.Model == plan.Closed)
	if err != nil {
		return nil
	}
	return &loopSender{lp: lp, host: host}
}

func (s *loopSender) close() { _ = s.lp.Close() }

// run sends r's requests until its load is done or it is stopped, and every answer is in.
func (s *loopSender) run(r *run) {
	s.r, s.open = r, r.p.Load.Model == plan.Open
	s.w = r.newWorker(0)
	defer s.w.close()
	n := r.p.Load.Connections
	s.calls = make([]*loopCall, n)
	for i := range s.calls {
		c := &loopCall{}
		c.ID = i
		s.calls[i] = c
	}
	for i := n - 1; i >= 0; i-- {
		s.free = append(s.free, s.calls[i])
	}
	if s.open {
		s.slack = r.p.Load.SendSlack
		s.end, s.hasEnd = r.plannedEnd()
		// With a slack, answers wait for the next batch of arrivals (within the slack and 2 ms).
		s.lp.LazyWithin(s.slack + 2*time.Millisecond)
	}
	// Stopping and a cut wake the Loop, wherever it waits.
	quit := make(chan struct{})
	defer close(quit)
	go func() {
		select {
		case <-r.stopping:
			s.lp.Wakeup()
		case <-quit:
		}
	}()
	unwatch := context.AfterFunc(r.reqCtx, s.lp.Wakeup)
	defer unwatch()
	if err := s.lp.Run(s); err != nil {
		s.lp.Abort(err)
		r.fail(fmt.Errorf("engine: %w", err), time.Now())
	}
}

// Wake implements httpx.Driver.
func (s *loopSender) Wake(now time.Time) (next time.Time, prompt, done bool) {
	r := s.r
	if !s.aborted && r.reqCtx.Err() != nil {
		s.aborted = true
		s.lp.Abort(r.reqCtx.Err()) // requests still in flight end as canceled
	}
	if s.open {
		return s.wakeOpen(now)
	}
	return s.wakeClosed(now)
}

// wakeOpen hands out the arrivals due by now, as pace and the open model's workers do.
func (s *loopSender) wakeOpen(now time.Time) (next time.Time, prompt, done bool) {
	r := s.r
	for {
		if stopped(r.stopping) {
			return time.Time{}, true, true
		}
		if !s.have {
			due, ok := r.sched.At(s.i)
			if !ok {
				r.exhausted.Store(true)
				r.stop()
				return time.Time{}, true, true
			}
			s.due, s.have = due, true
		}
		at := r.start.Add(s.due)
		if now.Before(at) {
			// With a slack, an arrival not yet due wakes the Loop slack late, and the arrivals due
			// by then go out in the same wake-up, after the answers that came meanwhile are read:
			// one wake-up for a batch. Without one, answers wake the Loop as they come.
			return at.Add(s.slack), s.slack == 0, false
		}
		if s.hasEnd && now.Sub(r.start) >= s.end+r.lateSends() {
			// Arrivals still waiting for a free connection this long after the planned end are
			// never sent: what was due up to the end was intended.
			r.stopAtOffset(s.end)
			r.stop()
			return time.Time{}, true, true
		}
		c := s.take()
		if c == nil {
			// Every connection is busy: an answer frees one.
			if s.hasEnd {
				next = r.start.Add(s.end + r.lateSends())
			}
			return next, true, false
		}
		if !s.start(c, r.part.Global(s.i), at, true) {
			return time.Time{}, true, true
		}
		r.lastSend.Store(int64(time.Since(r.start)))
		s.i++
		s.have = false
	}
}

// wakeClosed starts a request on every connection that is ready for one, as closedWorker does.
func (s *loopSender) wakeClosed(now time.Time) (next time.Time, prompt, done bool) {
	r := s.r
	if stopped(r.stopping) {
		s.endBackoffs(now)
		return time.Time{}, true, true
	}
	for j := 0; j < len(s.backing); {
		c := s.backing[j]
		if now.Before(c.backUntil) {
			if next.IsZero() || c.backUntil.Before(next) {
				next = c.backUntil
			}
			j++
			continue
		}
		s.backedOff(c, c.backUntil)
		s.backing = append(s.backing[:j], s.backing[j+1:]...)
		s.free = append(s.free, c)
	}
	// A call that fails before anything is sent (a request that cannot be made well-formed, say)
	// finishes within Start: it waits for the next wake-up (at once) rather than go round this
	// loop for ever, so that answers, the stop and the run's other goroutines get their turn.
	s.starting = true
	defer func() { s.starting = false }()
	for len(s.free) > 0 {
		c := s.take()
		t := time.Now()
		var i uint64
		if t.Sub(r.start) < r.warmup {
			i = r.part.Global(r.warmTickets.Add(1) - 1) // warm-up requests take the endpoints in turn too
		} else {
			i = r.started.Add(1) - 1
			if r.limit > 0 && i >= r.limit {
				s.free = append(s.free, c)
				r.stop()
				return time.Time{}, true, true
			}
			i = r.part.Global(i)
		}
		if !s.start(c, i, t, false) {
			return time.Time{}, true, true
		}
	}
	if len(s.again) > 0 {
		s.free = append(s.free, s.again...)
		s.again = s.again[:0]
		next = now // go round once more, after the answers and the stop are looked at
	}
	return next, true, false
}

// take returns a call not in flight, or nil.
func (s *loopSender) take() *loopCall {
	if len(s.free) == 0 {
		return nil
	}
	c := s.free[len(s.free)-1]
	s.free = s.free[:len(s.free)-1]
	return c
}

// start fills c as request i, due at intended, and starts it. It returns false when the run must
// stop: the source could not make the request.
func (s *loopSender) start(c *loopCall, i uint64, intended time.Time, scheduled bool) bool {
	r := s.r
	if err := r.o.src.Fill(i, &c.Req); err != nil {
		s.free = append(s.free, c)
		r.fail(err, intended)
		return false
	}
	c.Req.Protocol = r.p.Protocol
	c.Out.Reset()
	c.i, c.intended, c.begin, c.scheduled = i, intended, intended, scheduled
	if scheduled {
		c.begin = time.Now()
	}
	r.inFlight.Add(1)
	if c.Req.Scheme != "http" || c.Req.Host != s.host {
		// The source made a request for another host than the run's origins: the Loop holds
		// connections to one host only (newLoopSender should have left such a run to goroutines).
		c.Out.Class = result.Other
		c.Out.Err = fmt.Errorf("engine: request for %s://%s on a run whose connections go to http://%s; use --sender goroutines", c.Req.Scheme, c.Req.Host, s.host)
		c.Done = c.begin
		s.Finished(&c.Call)
		return true
	}
	if !s.lp.Start(&c.Call, c.begin) {
		// Not expected: there are as many calls as connections.
		r.inFlight.Add(-1)
		s.free = append(s.free, c)
		return true
	}
	return true
}

// Finished implements httpx.Driver: it records the call, as a sender does after Transport.Do.
func (s *loopSender) Finished(hc *httpx.Call) {
	r := s.r
	c := s.calls[hc.ID]
	done := c.Done
	if sent := c.Out.Sent; !sent.IsZero() && done.Before(sent) {
		done = sent // the kernel's clock and the runtime's disagree by a hair
	}
	if s.slack > 0 {
		// Read in batches, an answer's first byte is not known: the kernel merges the packets
		// that wait in a socket and keeps the last one's stamp. The report gives none.
		c.Out.FirstByte = time.Time{}
	}
	r.inFlight.Add(-1)
	connFailed := s.w.record(c.i, &c.Req, &c.Out, c.intended, c.begin, done, c.scheduled)
	if s.open {
		s.free = append(s.free, c)
		return
	}
	if !connFailed {
		c.back.reset()
		if s.starting {
			s.again = append(s.again, c)
		} else {
			s.free = append(s.free, c)
		}
		return
	}
	// No connection could be made: do not hammer (closedWorker's back-off).
	c.backSince = time.Now()
	c.backUntil = c.backSince.Add(c.back.delay())
	c.measured = c.backSince.Sub(r.start) >= r.warmup
	s.backing = append(s.backing, c)
}

// backedOff counts c's back-off, which ended at end.
func (s *loopSender) backedOff(c *loopCall, end time.Time) {
	if waited := end.Sub(c.backSince); waited > 0 && c.measured {
		s.r.backoffs.Add(1)
		s.r.backoffNs.Add(int64(waited))
	}
}

// endBackoffs counts the back-offs cut short by the stop.
func (s *loopSender) endBackoffs(now time.Time) {
	for _, c := range s.backing {
		s.backedOff(c, now)
		s.free = append(s.free, c)
	}
	s.backing = s.backing[:0]
}
