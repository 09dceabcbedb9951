package h2

import (
	"context"
	"crypto/tls"
	"net/http"
	"net/http/httptrace"
	"sync"
	"time"

	"github.com/rpcbench/rpcbench/result"
)

// poolKey names a pool as requests spell it: scheme and authority.
type poolKey struct{ scheme, host string }

// pconn is one connection of a pool: being opened until ready is closed, then cc (or err). Its
// inflight count and dead mark are guarded by the Transport's mutex.
type pconn struct {
	key      poolKey
	ready    chan struct{}
	cc       *http.ClientConn // set before ready is closed; nil when err is set
	err      error
	proto    string // "h2", "h2c" or "http/1.1", set before ready is closed
	inflight int    // requests that hold this connection, the one opening it included
	single   bool   // DisableKeepAlive: carries one request, then closes
	dead     bool   // no longer taken by new requests
}

// limit is how many requests c takes at once: one over HTTP/1.1, else streams.
func (c *pconn) limit(streams int) int {
	select {
	case <-c.ready:
		if c.proto == "http/1.1" {
			return 1
		}
	default:
	}
	return streams
}

// usable reports whether a new request may go to c: it is not dead, and, once ready, it is open and
// not told to go away.
func (c *pconn) usable() bool {
	if c.dead || c.single {
		return false
	}
	select {
	case <-c.ready:
		return c.cc != nil && c.cc.Err() == nil
	default:
		return true
	}
}

// acquire returns a connection for a request to key, taking one of its slots: the least busy open
// connection under its limit, else a new one when the cap allows (opened is true: the caller
// opens it with dial), else it waits for a slot, until ctx is done.
func (t *Transport) acquire(ctx context.Context, key poolKey) (c *pconn, opened bool, err error) {
	for {
		t.mu.Lock()
		if t.closed {
			t.mu.Unlock()
			return nil, false, ErrClosed
		}
		var best *pconn
		if !t.opts.DisableKeepAlive {
			conns := t.pools[key]
			kept := conns[:0]
			for _, pc := range conns {
				if !pc.usable() {
					pc.dead = true
					if pc.inflight == 0 {
						t.drop(pc)
					}
					continue
				}
				kept = append(kept, pc)
				if pc.inflight < pc.limit(t.streams) && (best == nil || pc.inflight < best.inflight) {
					best = pc
				}
			}
			clear(conns[len(kept):])
			t.pools[key] = kept
		}
		if best != nil {
			best.inflight++
			t.mu.Unlock()
			return best, false, nil
		}
		if t.opts.MaxConns == 0 || t.open < t.opts.MaxConns {
			pc := &pconn{key: key, ready: make(chan struct{}), inflight: 1, single: t.opts.DisableKeepAlive}
			t.open++
			t.pools[key] = append(t.pools[key], pc) // a single one too, so that Close closes it
			t.mu.Unlock()
			return pc, true, nil
		}
		t.waiting = true
		wake := t.wake
		t.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return nil, false, ctx.Err()
		}
	}
}

// drop forgets pc, which carries no request, and closes it. t.mu is held.
func (t *Transport) drop(pc *pconn) {
	t.open--
	t.broadcast()
	select {
	case <-pc.ready:
		if pc.cc != nil {
			go pc.cc.Close() // not under the lock
		}
	default: // its opener closes it when it learns it is dead
	}
}

// release gives back the slot a request took on pc.
func (t *Transport) release(pc *pconn) {
	t.mu.Lock()
	defer t.mu.Unlock()
	pc.inflight--
	if pc.single || pc.err != nil || pc.cc != nil && pc.cc.Err() != nil {
		pc.dead = true
	}
	if pc.dead && pc.inflight == 0 {
		t.remove(pc)
		t.drop(pc)
		return
	}
	t.broadcast()
}

// remove takes pc out of its pool. t.mu is held.
func (t *Transport) remove(pc *pconn) {
	conns := t.pools[pc.key]
	for i, c := range conns {
		if c == pc {
			conns = append(conns[:i], conns[i+1:]...)
			conns = conns[:len(conns):len(conns)]
			t.pools[pc.key] = conns
			return
		}
	}
}

// broadcast wakes the requests waiting for a slot. t.mu is held.
func (t *Transport) broadcast() {
	if t.waiting {
		close(t.wake)
		t.wake = make(chan struct{})
		t.waiting = false
	}
}

// dial opens pc, bounded by ConnectTimeout and by ctx, and returns its set-up times.
func (t *Transport) dial(ctx context.Context, pc *pconn) result.ConnEvent {
	var ev connTrace
	ctx, cancel := context.WithTimeout(ctx, t.connectTimeout)
	defer cancel()
	ctx = httptrace.WithClientTrace(ctx, ev.trace())
	scheme := t.scheme()
	addr, err := hostPort(pc.key.host, scheme)
	var cc *http.ClientConn
	if err == nil {
		cc, err = t.base.NewClientConn(ctx, scheme, addr)
	}
	e := ev.event()
	if err != nil {
		e.Failed = true
	} else {
		e.Proto = ev.proto
		if t.opts.Cleartext {
			e.Proto = "h2c"
		}
	}
	t.mu.Lock()
	pc.cc, pc.err, pc.proto = cc, err, e.Proto
	close(pc.ready)
	closeNow := cc != nil && (t.closed || pc.dead && pc.inflight == 0)
	t.mu.Unlock()
	if closeNow {
		cc.Close()
	}
	return e
}

// connTrace gathers a connection's set-up times from net/http's trace hooks, which may be called
// from the dialer's goroutines.
type connTrace struct {
	mu                      sync.Mutex
	dnsStart, connStart     time.Time
	tlsStart                time.Time
	dns, connect, handshake time.Duration
	proto                   string
}

func (c *connTrace) trace() *httptrace.ClientTrace {
	lock := func(f func()) { c.mu.Lock(); f(); c.mu.Unlock() }
	return &httptrace.ClientTrace{
		DNSStart: func(httptrace.DNSStartInfo) { lock(func() { c.dnsStart = time.Now() }) },
		DNSDone: func(httptrace.DNSDoneInfo) {
			lock(func() { c.dns = max(time.Since(c.dnsStart), 1) })
		},
		ConnectStart: func(string, string) {
			lock(func() {
				if c.connStart.IsZero() {
					c.connStart = time.Now()
				}
			})
		},
		ConnectDone: func(string, string, error) {
			lock(func() { c.connect = max(time.Since(c.connStart), 1) })
		},
		TLSHandshakeStart: func() { lock(func() { c.tlsStart = time.Now() }) },
		TLSHandshakeDone: func(s tls.ConnectionState, _ error) {
			lock(func() {
				c.handshake = max(time.Since(c.tlsStart), 1)
				c.proto = s.NegotiatedProtocol
				if c.proto == "" {
					c.proto = "http/1.1"
				}
			})
		},
	}
}

// event returns the set-up times gathered.
func (c *connTrace) event() result.ConnEvent {
	c.mu.Lock()
	defer c.mu.Unlock()
	return result.ConnEvent{DNS: c.dns, Connect: c.connect, TLS: c.handshake}
}
