package httpx

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/rpcbench/rpcbench/result"
)

// waiter is a request waiting for a connection while MaxConns are open. Waiters are recycled.
type waiter struct {
	pool  *hostPool
	ch    chan grant // receives exactly one grant once queued
	timer *time.Timer
}

// grant is what a waiter receives: an idle connection to its pool, or (c nil, err nil) the right to
// open one, or err when the Transport was closed.
type grant struct {
	c   *conn
	err error
}

// getConn returns a connection for a request to the pool of key: an idle one, a new one, or one
// handed over when MaxConns are open. When a connection was opened (or failed to open), ev describes
// it and opened is true. An idle connection is looked at first (see Transport.checkIdleAfter).
//
// An idle connection taken at once comes without reading the clock, and deadline is zero: the
// request's timeout counts from when it is sent. Otherwise deadline is the end of the request,
// its timeout counted from the call, which waiting and opening count against.
func (t *Transport) getConn(ctx context.Context, key poolKey) (c *conn, ev result.ConnEvent, opened bool, deadline time.Time, err error) {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil, ev, false, deadline, ErrClosed
	}
	p := t.pools[key]
	if p == nil {
		if p, err = t.addPoolLocked(key); err != nil {
			t.mu.Unlock()
			return nil, ev, false, deadline, err
		}
	}
	for n := len(p.idle); n > 0; n = len(p.idle) {
		c = p.idle[n-1]
		p.idle[n-1] = nil
		p.idle = p.idle[:n-1]
		t.idle--
		if c.br.Buffered() == 0 && (t.checkIdleAfter > 0 && time.Since(c.answered) < t.checkIdleAfter || !c.stale()) {
			t.mu.Unlock()
			return c, ev, false, deadline, nil
		}
		// The server sent something while the connection was idle (a 408 before closing it at its
		// idle timeout, or garbage) or closed it: either way the connection is unusable, and an
		// answer read from it would belong to no request of ours.
		t.dropLocked(c)
		defer c.close()
	}
	deadline = time.Now().Add(t.timeout)
	if t.opts.MaxConns == 0 || t.open < t.opts.MaxConns {
		t.open++
		t.mu.Unlock()
		c, ev, opened, err = t.open1(ctx, p, deadline)
		return c, ev, opened, deadline, err
	}
	if victim := t.evictLocked(); victim != nil {
		// The cap is reached but another host has an idle connection: close it, take its slot.
		t.mu.Unlock()
		victim.close()
		c, ev, opened, err = t.open1(ctx, p, deadline)
		return c, ev, opened, deadline, err
	}
	w := t.waiterPool.Get().(*waiter)
	w.pool = p
	t.waiters = append(t.waiters, w)
	t.mu.Unlock()
	if t.waitHook != nil {
		t.waitHook()
	}
	g, err := t.wait(ctx, w, deadline)
	w.pool = nil
	t.waiterPool.Put(w)
	if err != nil {
		return nil, ev, false, deadline, err
	}
	if g.c != nil {
		if g.c.br.Buffered() == 0 && !g.c.stale() {
			return g.c, ev, false, deadline, nil
		}
		// handed over, but closed or holding bytes nobody asked for: a new one in its slot
		err := t.takeSlot(g.c)
		g.c.close()
		if err != nil {
			return nil, ev, false, deadline, err
		}
	}
	c, ev, opened, err = t.open1(ctx, p, deadline)
	return c, ev, opened, deadline, err
}

// addPoolLocked makes the pool of key, or finds the pool of the same scheme, host and port under
// another spelling.
func (t *Transport) addPoolLocked(key poolKey) (*hostPool, error) {
	p, err := t.newPool(key.scheme, key.host)
	if err != nil {
		return nil, err
	}
	for _, q := range t.pools {
		if q.id == p.id {
			p = q
			break
		}
	}
	t.pools[key] = p
	return p, nil
}

// open1 opens a connection to p with a slot already counted in t.open; the slot is given back when
// opening fails.
func (t *Transport) open1(ctx context.Context, p *hostPool, deadline time.Time) (*conn, result.ConnEvent, bool, error) {
	c, ev, err := t.dial(ctx, p, deadline)
	t.mu.Lock()
	if err == nil && t.closed {
		err = ErrClosed
		defer c.close()
	}
	if err != nil {
		t.freeSlotLocked()
		t.mu.Unlock()
		return nil, ev, true, err
	}
	t.conns[c] = struct{}{}
	t.mu.Unlock()
	return c, ev, true, nil
}

// wait waits for a grant, ctx, or the deadline. When it gives up it returns what it was granted
// meanwhile, so that nothing leaks.
func (t *Transport) wait(ctx context.Context, w *waiter, deadline time.Time) (grant, error) {
	w.timer.Reset(time.Until(deadline))
	var err error
	select {
	case g := <-w.ch:
		w.timer.Stop()
		return g, g.err
	case <-ctx.Done():
		err = ctx.Err()
	case <-w.timer.C:
		err = fmt.Errorf("httpx: no connection free within the timeout (MaxConns %d): %w", t.opts.MaxConns, os.ErrDeadlineExceeded)
	}
	w.timer.Stop()
	t.mu.Lock()
	for i, x := range t.waiters {
		if x == w {
			t.waiters = append(t.waiters[:i], t.waiters[i+1:]...)
			t.mu.Unlock()
			return grant{}, err
		}
	}
	t.mu.Unlock()
	// Dequeued, so a grant was sent: give it back.
	switch g := <-w.ch; {
	case g.c != nil:
		t.release(g.c, true)
	case g.err == nil:
		t.mu.Lock()
		t.freeSlotLocked()
		t.mu.Unlock()
	}
	return grant{}, err
}

// release takes c back after a request: idle for the next request when reuse is true, closed
// otherwise.
func (t *Transport) release(c *conn, reuse bool) {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		c.close()
		return
	}
	if reuse {
		for i, w := range t.waiters {
			if w.pool == c.pool {
				t.waiters = append(t.waiters[:i], t.waiters[i+1:]...)
				w.ch <- grant{c: c}
				t.mu.Unlock()
				return
			}
		}
		if len(t.waiters) == 0 {
			c.pool.idle = append(c.pool.idle, c)
			t.idle++
			t.mu.Unlock()
			return
		}
		// Only requests to other hosts wait: this connection's slot serves them better.
	}
	t.dropLocked(c)
	t.mu.Unlock()
	c.close()
}

// takeSlot removes c from the Transport's connections but keeps its slot, for a retry that opens a
// new connection in its place. The caller closes c.
func (t *Transport) takeSlot(c *conn) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return ErrClosed
	}
	delete(t.conns, c)
	return nil
}

// dropLocked forgets c, which is not idle, and frees its slot. The caller closes c.
func (t *Transport) dropLocked(c *conn) {
	if _, ok := t.conns[c]; ok {
		delete(t.conns, c)
		t.freeSlotLocked()
	}
}

// freeSlotLocked gives up one open connection's slot: to the first waiter, if any.
func (t *Transport) freeSlotLocked() {
	if len(t.waiters) == 0 {
		t.open--
		return
	}
	w := t.waiters[0]
	t.waiters = append(t.waiters[:0], t.waiters[1:]...)
	w.ch <- grant{} // the slot moves to w: t.open is unchanged
}

// evictLocked takes an idle connection of any pool out of the Transport, keeping its slot for the
// caller, or returns nil when there is none. The caller closes it.
func (t *Transport) evictLocked() *conn {
	if t.idle == 0 {
		return nil
	}
	for _, p := range t.pools {
		if n := len(p.idle); n > 0 {
			c := p.idle[0] // the least recently used
			copy(p.idle, p.idle[1:])
			p.idle[n-1] = nil
			p.idle = p.idle[:n-1]
			t.idle--
			delete(t.conns, c)
			return c
		}
	}
	return nil
}

func newWaiter() any {
	w := &waiter{ch: make(chan grant, 1), timer: time.NewTimer(time.Hour)}
	w.timer.Stop()
	return w
}
