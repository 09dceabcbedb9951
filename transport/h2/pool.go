package h2

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/http/httptrace"
	"sync"
	"time"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/transport/rawconn"
)

// poolKey names a pool as requests spell it: scheme and authority.
type poolKey struct{ scheme, host string }

// pconn is one connection of a pool: being opened until ready is closed, then cc or h1 (or err).
// Its inflight count and dead mark are guarded by the Transport's mutex.
type pconn struct {
	key      poolKey
	ready    chan struct{}
	cc       *clientConn      // HTTP/2, set before ready is closed
	h1       *http.ClientConn // HTTP/1.1 when ALPN chose it, set before ready is closed
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
		if c.h1 != nil {
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
		return c.open()
	default:
		return true
	}
}

// open reports whether c, ready, is open and takes requests.
func (c *pconn) open() bool {
	return c.cc != nil && c.cc.usable() || c.h1 != nil && c.h1.Err() == nil
}

// close closes c, ready.
func (c *pconn) close() {
	if c.cc != nil {
		_ = c.cc.Close()
	}
	if c.h1 != nil {
		_ = c.h1.Close()
	}
}

// acquire returns a connection for a request to key, taking one of its slots: the least busy open
// connection under its limit, else a new one when the cap allows (opened is true: the caller
// opens it with dial), else it waits for a slot, until ctx is done or st's timeout passes. When
// it waited, since is when it began to.
func (t *Transport) acquire(ctx context.Context, key poolKey, st *stream) (c *pconn, opened bool, since time.Time, err error) {
	for {
		t.mu.Lock()
		if t.closed {
			t.mu.Unlock()
			return nil, false, since, ErrClosed
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
			if len(kept) < len(conns) { // kept shares conns' array: only a shorter slice is news
				clear(conns[len(kept):])
				t.pools[key] = kept
			}
		}
		if best != nil {
			best.inflight++
			t.mu.Unlock()
			return best, false, since, nil
		}
		if t.opts.MaxConns == 0 || t.open < t.opts.MaxConns {
			pc := &pconn{key: key, ready: make(chan struct{}), inflight: 1, single: t.opts.DisableKeepAlive}
			t.open++
			t.pools[key] = append(t.pools[key], pc) // a single one too, so that Close closes it
			t.mu.Unlock()
			return pc, true, since, nil
		}
		wake := t.wake.channel()
		t.mu.Unlock()
		if since.IsZero() {
			since = time.Now()
		}
		if err := sleep(ctx, st, wake); err != nil {
			return nil, false, since, err
		}
	}
}

// drop forgets pc, which carries no request, and closes it. t.mu is held.
func (t *Transport) drop(pc *pconn) {
	t.open--
	t.wake.broadcast()
	select {
	case <-pc.ready:
		go pc.close() // not under the lock
	default: // its opener closes it when it learns it is dead
	}
}

// release gives back the slot a request took on pc.
func (t *Transport) release(pc *pconn) {
	t.mu.Lock()
	defer t.mu.Unlock()
	pc.inflight--
	if pc.single || pc.err != nil || !pc.open() {
		pc.dead = true
	}
	if pc.dead && pc.inflight == 0 {
		t.remove(pc)
		t.drop(pc)
		return
	}
	t.wake.broadcast()
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

// dial opens pc, bounded by ConnectTimeout, by deadline (the request's) and by ctx, and returns
// its set-up times and protocol.
func (t *Transport) dial(ctx context.Context, pc *pconn, deadline time.Time) result.ConnEvent {
	var ev connTrace
	if dl := time.Now().Add(t.connectTimeout); dl.Before(deadline) {
		deadline = dl
	}
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	cc, h1, err := t.connect(httptrace.WithClientTrace(ctx, ev.trace()), pc.key, &ev)
	e := ev.event()
	if err != nil {
		e.Failed, e.Proto = true, ""
	}
	t.mu.Lock()
	pc.cc, pc.h1, pc.err, pc.proto = cc, h1, err, e.Proto
	close(pc.ready)
	closeNow := err == nil && (t.closed || pc.dead && pc.inflight == 0)
	t.mu.Unlock()
	if closeNow {
		pc.close()
	}
	return e
}

// connect opens a connection to key: TCP, then for https a TLS handshake offering h2 and
// http/1.1 by ALPN, then HTTP/2's preface and settings (for h2 and h2c) or net/http's HTTP/1.1
// client connection (when the server chose http/1.1 or no protocol). ev gets the TLS handshake's
// time and the protocol; ctx's trace the rest.
func (t *Transport) connect(ctx context.Context, key poolKey, ev *connTrace) (*clientConn, *http.ClientConn, error) {
	scheme := t.scheme()
	addr, err := hostPort(key.host, scheme)
	if err != nil {
		return nil, nil, err
	}
	nc, err := t.dialer.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, nil, ctxErr(ctx, err)
	}
	nc = rawconn.Wrap(nc) // reads and writes the scheduler does not see as system calls
	if t.opts.Cleartext {
		ev.setProto("h2c")
		cc, err := newClientConn(ctx, nc, t.connConfig("http"))
		return cc, nil, err
	}
	cfg := t.tls.Clone()
	if cfg.ServerName == "" {
		cfg.ServerName, _, _ = net.SplitHostPort(addr)
	}
	tc := tls.Client(nc, cfg)
	start := time.Now()
	err = tc.HandshakeContext(ctx)
	ev.setTLS(max(time.Since(start), 1))
	if err != nil {
		_ = nc.Close()
		return nil, nil, ctxErr(ctx, fmt.Errorf("h2: TLS handshake with %s: %w", addr, err))
	}
	if tc.ConnectionState().NegotiatedProtocol == "h2" {
		ev.setProto("h2")
		cc, err := newClientConn(ctx, tc, t.connConfig("https"))
		return cc, nil, err
	}
	ev.setProto("http/1.1")
	h1, err := t.h1.NewClientConn(context.WithValue(ctx, dialedKey{}, net.Conn(tc)), "https", addr)
	if err != nil {
		_ = tc.Close()
	}
	return nil, h1, err
}

// dialedKey is the context key under which connect hands a TLS connection it made to net/http's
// Transport for HTTP/1.1 (see New).
type dialedKey struct{}

// connConfig is what a new connection takes from t.
func (t *Transport) connConfig(scheme string) connConfig {
	return connConfig{
		streamWindow: t.streamWindow,
		connWindow:   t.connWindow,
		ua:           t.ua,
		scheme:       scheme,
		maxBody:      t.maxBody,
		keepBody:     t.opts.KeepBody,
		tooLarge:     t.tooLarge,
		grpc:         t.opts.GRPC,
	}
}

// connTrace gathers a connection's set-up times: DNS and connect from the dialer's trace hooks,
// which may be called from its goroutines, and the TLS handshake's from connect.
type connTrace struct {
	mu                      sync.Mutex
	dnsStart, connStart     time.Time
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
	}
}

func (c *connTrace) setTLS(d time.Duration) { c.mu.Lock(); c.handshake = d; c.mu.Unlock() }
func (c *connTrace) setProto(p string)      { c.mu.Lock(); c.proto = p; c.mu.Unlock() }

// event returns the set-up times gathered and the protocol.
func (c *connTrace) event() result.ConnEvent {
	c.mu.Lock()
	defer c.mu.Unlock()
	return result.ConnEvent{DNS: c.dns, Connect: c.connect, TLS: c.handshake, Proto: c.proto}
}
