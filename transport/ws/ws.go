package ws

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/transport"
	"github.com/rpcbench/rpcbench/transport/rawconn"
)

// Defaults for zero Options fields.
const (
	DefaultTimeout        = 30 * time.Second
	DefaultConnectTimeout = 10 * time.Second
	DefaultReadLimit      = 64 << 20
	// DefaultSpread is a Spread that keeps a few connections busy rather than many idle: the
	// engine uses it in the open model, where --connections caps the calls in flight.
	DefaultSpread = 32
)

// StatusSwitched is the status of every answer: the 101 of the connection's upgrade. A message has
// no status of its own.
const StatusSwitched = http.StatusSwitchingProtocols

// Options configure a Transport. The zero value is ready: one connection, default time limits.
type Options struct {
	// Conns is the number of connections; calls are spread over them in turn. Default 1.
	Conns int `json:"conns"`
	// Spread, when above 0, makes Conns a cap: calls fill the open connections up to Spread calls
	// in flight each, and another connection opens only when every open one is that busy. 0 opens
	// all Conns connections, each on first use.
	Spread int `json:"spread"`
	// Timeout bounds one whole call: the wait for a connection, its set-up, the send and the
	// answer. 0 means DefaultTimeout.
	Timeout time.Duration `json:"timeout"`
	// ConnectTimeout bounds a connection's set-up: dial, TLS and the upgrade. 0 means
	// DefaultConnectTimeout. Outcomes report the set-up as DNS, TLS and Connect, where Connect
	// is the TCP connect together with the upgrade's round trip.
	ConnectTimeout time.Duration `json:"connect_timeout"`
	// InsecureSkipVerify skips the TLS certificate check of wss servers.
	InsecureSkipVerify bool `json:"insecure_skip_verify"`
	// TLS, when set, is the base of wss connections' TLS settings (roots, client certificate,
	// server name, lowest version); it is cloned, and InsecureSkipVerify applies either way.
	TLS *tls.Config `json:"-"`
	// KeepBody copies each answer into Outcome.Body.
	KeepBody bool `json:"keep_body"`
	// ReadLimit is the largest answer accepted, in bytes; a larger one closes the connection. 0
	// means DefaultReadLimit.
	ReadLimit int64 `json:"read_limit"`
}

// Transport sends calls over a pool of WebSocket connections. The zero value is not usable: make it
// with New. It is safe for concurrent use. Connections are opened on first use and opened again
// after they fail.
type Transport struct {
	opts   Options
	client *http.Client
	slots  []slot
	next   atomic.Uint64
	opened atomic.Int64   // slots in use so far, with Spread
	wg     sync.WaitGroup // readers
	closed atomic.Bool
	// orphans counts answers that no sender waited for (late after a timeout, or an id of null).
	orphans atomic.Uint64
	waiters sync.Pool
	bufs    sync.Pool
	rawMu   sync.Mutex
	raw     map[*rawConn]struct{} // TCP connections open, for Close
}

type slot struct {
	// lock guards c: holding it is having a value in the channel (of capacity 1). A caller waits
	// for it within its own time limit, so a call never outlasts its Timeout queued behind the
	// set-up of a call that began after it.
	lock chan struct{}
	c    *conn
	cur  atomic.Pointer[conn] // c, for reading without the lock
}

// acquire takes s's lock, or returns ctx's error when ctx ends first.
func (s *slot) acquire(ctx context.Context) error {
	select {
	case s.lock <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *slot) release() { <-s.lock }

// ErrClosed is the failure of a call made after Close.
var ErrClosed = errors.New("ws: transport closed")

// ErrNoID is the failure of a request whose body has no JSON-RPC id to match its answer by.
var ErrNoID = errors.New("ws: the request has no integer JSON-RPC id to match its answer by")

// New returns a Transport with opts.
func New(opts Options) *Transport {
	if opts.Conns <= 0 {
		opts.Conns = 1
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.ConnectTimeout <= 0 {
		opts.ConnectTimeout = DefaultConnectTimeout
	}
	if opts.ReadLimit <= 0 {
		opts.ReadLimit = DefaultReadLimit
	}
	t := &Transport{opts: opts, slots: make([]slot, opts.Conns)}
	for i := range t.slots {
		t.slots[i].lock = make(chan struct{}, 1)
	}
	d := &net.Dialer{Timeout: opts.ConnectTimeout}
	t.raw = map[*rawConn]struct{}{}
	tc := &tls.Config{} //nolint:gosec // the defaults, or the user's
	if opts.TLS != nil {
		tc = opts.TLS.Clone()
	}
	if opts.InsecureSkipVerify {
		tc.InsecureSkipVerify = true
	}
	t.client = &http.Client{Transport: &http.Transport{
		DialContext:       t.dialRaw(d),
		TLSClientConfig:   tc,
		ForceAttemptHTTP2: false,
		DisableKeepAlives: true,
	}}
	t.waiters.New = func() any { return &waiter{ch: make(chan answer, 1), timer: stoppedTimer()} }
	t.bufs.New = func() any { b := make([]byte, 0, 4096); return &b }
	return t
}

func stoppedTimer() *time.Timer {
	tm := time.NewTimer(time.Hour)
	tm.Stop()
	return tm
}

// Orphans returns the number of answers that arrived when no sender waited for them.
func (t *Transport) Orphans() uint64 { return t.orphans.Load() }

// Do sends r.Body as one text message and waits for the answer that carries its id.
func (t *Transport) Do(ctx context.Context, r *transport.Request, out *transport.Outcome) {
	if t.closed.Load() {
		out.Class, out.Err = result.Other, ErrClosed
		return
	}
	w := t.waiters.Get().(*waiter)
	defer t.putWaiter(w)
	if !w.setIDs(r.Body) {
		out.Class, out.Err = result.Other, ErrNoID
		return
	}
	w.timer.Reset(t.opts.Timeout)
	defer w.timer.Stop()
	// The whole call, set-up and write included, is bounded by Timeout: a server that stops
	// reading must not hold a sender until the run is cut.
	callCtx, cancel := context.WithTimeout(ctx, t.opts.Timeout)
	defer cancel()
	c, err := t.conn(callCtx, r, out)
	if err != nil {
		out.Class, out.Err = classify(callCtx, err), err
		return
	}
	defer c.inflight.Add(-1)
	if err := c.add(w); err != nil {
		out.Class, out.Err = transport.Classify(err), err
		return
	}
	out.Sent = time.Now()
	out.BytesOut = int64(len(r.Body) + frameHeader(len(r.Body), true))
	if err := c.ws.Write(callCtx, websocket.MessageText, r.Body); err != nil {
		if a, ok := c.cancel(w); ok && a.buf != nil { // answered or failed meanwhile: drop it
			t.bufs.Put(a.buf)
		}
		out.Class, out.Err = classify(callCtx, err), err
		return
	}
	select {
	case a := <-w.ch:
		t.finish(a, out)
	case <-ctx.Done():
		if a, ok := c.cancel(w); ok { // the answer won the race
			t.finish(a, out)
			return
		}
		out.Class, out.Err = transport.Classify(ctx.Err()), ctx.Err()
	case <-w.timer.C:
		if a, ok := c.cancel(w); ok {
			t.finish(a, out)
			return
		}
		out.Class, out.Err = result.Timeout, fmt.Errorf("ws: no answer within %v", t.opts.Timeout)
	}
}

func classify(ctx context.Context, err error) result.Class {
	if ctx.Err() != nil {
		return transport.Classify(ctx.Err())
	}
	var up *upgradeError
	switch {
	case errors.As(err, &up):
		return result.Status
	case strings.Contains(err.Error(), "malformed HTTP"): // net/http read no HTTP answer to the upgrade
		return result.Protocol
	case errors.Is(err, net.ErrClosed): // the connection died (its reader closed it) under the call
		return result.Reset
	}
	return transport.Classify(err)
}

// upgradeError is an upgrade answered with another status than 101: a failure of class Status.
type upgradeError struct {
	status int
	err    error
}

func (e *upgradeError) Error() string {
	return fmt.Sprintf("ws: upgrade refused with HTTP %d: %v", e.status, e.err)
}

func (e *upgradeError) Unwrap() error { return e.err }

// finish fills out from the answer a and recycles its buffer.
func (t *Transport) finish(a answer, out *transport.Outcome) {
	if a.err != nil {
		out.Class, out.Err = transport.Classify(a.err), a.err
		if out.Class == result.Canceled { // the transport closed, not the run
			out.Class = result.Reset
		}
		return
	}
	out.FirstByte = a.first
	out.Answered = true
	out.Status = StatusSwitched
	out.BytesIn = int64(len(*a.buf) + frameHeader(len(*a.buf), false))
	if t.opts.KeepBody {
		out.Body = append(out.Body[:0], *a.buf...)
	}
	*a.buf = (*a.buf)[:0]
	t.bufs.Put(a.buf)
}

func (t *Transport) putWaiter(w *waiter) {
	w.ids = w.ids[:0]
	w.next = nil
	select { // a late answer may sit in the channel after a cancel lost the race
	case a := <-w.ch:
		if a.buf != nil {
			t.bufs.Put(a.buf)
		}
	default:
	}
	t.waiters.Put(w)
}

// frameHeader returns the size of a WebSocket frame header for a payload of n bytes; client
// frames carry a 4-byte mask.
func frameHeader(n int, masked bool) int {
	h := 2
	switch {
	case n > 65535:
		h += 8
	case n > 125:
		h += 2
	}
	if masked {
		h += 4
	}
	return h
}

// conn picks a connection for a call and counts the call in its inflight: with Spread, the first
// open connection with room, else the next slot; without, the next slot in turn. A slot's
// connection opens when needed (recorded in out).
func (t *Transport) conn(ctx context.Context, r *transport.Request, out *transport.Outcome) (*conn, error) {
	spread := int64(t.opts.Spread)
	for attempt := 0; ; attempt++ {
		c, k, inTurn := t.pick(spread)
		if c != nil {
			return c, nil // counted by pick
		}
		c, err := t.slotConn(ctx, k, r, out)
		if err != nil {
			return nil, err
		}
		// another call may have filled the slot's connection while this one waited for it
		if c.inflight.Add(1) <= spread || spread == 0 || inTurn || attempt >= len(t.slots) {
			return c, nil
		}
		c.inflight.Add(-1)
	}
}

// pick returns an open connection with room for a call (already counted), or else the slot for
// it: one to open (again) or, inTurn, the next slot in turn.
func (t *Transport) pick(spread int64) (c *conn, k int, inTurn bool) {
	next := int(t.next.Add(1) % uint64(len(t.slots)))
	if spread == 0 {
		return nil, next, true
	}
	n := int(t.opened.Load())
	for i := range n {
		c := t.slots[i].cur.Load()
		if c == nil || c.dead() {
			return nil, i, false // open it again
		}
		if c.inflight.Add(1) <= spread {
			return c, i, false
		}
		c.inflight.Add(-1)
	}
	if n < len(t.slots) {
		return nil, n, false // every open one is busy: open the next
	}
	return nil, next, true // all open and busy: take them in turn
}

// slotConn returns the connection of slot k, opening it when needed (recorded in out).
func (t *Transport) slotConn(ctx context.Context, k int, r *transport.Request, out *transport.Outcome) (*conn, error) {
	s := &t.slots[k]
	if err := s.acquire(ctx); err != nil {
		// the call's time ran out while another caller was opening this slot
		return nil, fmt.Errorf("ws: waiting for a connection: %w", err)
	}
	defer s.release()
	if s.c != nil && !s.c.dead() {
		return s.c, nil
	}
	dctx, cancel := context.WithTimeout(ctx, t.opts.ConnectTimeout)
	defer cancel()
	st := &setupTimes{}
	start := time.Now()
	c, err := t.dial(httptrace.WithClientTrace(dctx, st.trace()), r)
	out.Opened = true
	total := time.Since(start)
	out.Conn.DNS, out.Conn.TLS = time.Duration(st.dns.Load()), time.Duration(st.tls.Load())
	out.Conn.Connect = max(total-out.Conn.DNS-out.Conn.TLS, 0)
	if err != nil {
		out.Conn.Failed = true
		if dctx.Err() == context.DeadlineExceeded && ctx.Err() == nil {
			err = fmt.Errorf("ws: connection set-up took longer than %v: %w", t.opts.ConnectTimeout, err)
		}
		return nil, err
	}
	s.c = c
	s.cur.Store(c)
	for n := t.opened.Load(); n <= int64(k) && !t.opened.CompareAndSwap(n, int64(k)+1); n = t.opened.Load() {
	}
	return c, nil
}

// setupTimes are the parts of a connection's set-up that happen apart from the TCP connect and
// the upgrade: name resolution and the TLS handshake. The dialer may still write them after a
// failed Dial returned, hence atomics.
type setupTimes struct {
	dns, tls           atomic.Int64
	dnsStart, tlsStart atomic.Int64 // UnixNano
}

func (st *setupTimes) trace() *httptrace.ClientTrace {
	since := func(t0 *atomic.Int64) int64 { return time.Now().UnixNano() - t0.Load() }
	return &httptrace.ClientTrace{
		DNSStart:          func(httptrace.DNSStartInfo) { st.dnsStart.Store(time.Now().UnixNano()) },
		DNSDone:           func(httptrace.DNSDoneInfo) { st.dns.Store(since(&st.dnsStart)) },
		TLSHandshakeStart: func() { st.tlsStart.Store(time.Now().UnixNano()) },
		TLSHandshakeDone:  func(tls.ConnectionState, error) { st.tls.Store(since(&st.tlsStart)) },
	}
}

func (t *Transport) dial(ctx context.Context, r *transport.Request) (*conn, error) {
	h := http.Header{}
	for _, x := range r.Header {
		if !strings.EqualFold(x.Name, "Content-Type") && !strings.EqualFold(x.Name, "Host") {
			h.Add(x.Name, x.Value)
		}
	}
	url := r.Scheme + "://" + r.Host + string(r.Path)
	wc, resp, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPClient: t.client, HTTPHeader: h})
	if err != nil {
		if resp != nil && resp.StatusCode != http.StatusSwitchingProtocols {
			return nil, &upgradeError{resp.StatusCode, err}
		}
		return nil, err
	}
	wc.SetReadLimit(t.opts.ReadLimit)
	c := &conn{t: t, ws: wc, pending: map[int64]*waiter{}, done: make(chan struct{})}
	t.wg.Add(1)
	go c.read()
	if t.closed.Load() { // Close ran while we dialled
		wc.CloseNow()
	}
	return c, nil
}

// rawConn is a TCP connection the Transport dialled, known to it until closed, so that Close can
// cut a closing handshake that the server does not answer.
type rawConn struct {
	net.Conn
	t *Transport
}

func (c *rawConn) Close() error {
	c.t.rawMu.Lock()
	delete(c.t.raw, c)
	c.t.rawMu.Unlock()
	return c.Conn.Close()
}

// dialRaw returns a DialContext that dials with d and tracks the connections.
func (t *Transport) dialRaw(d *net.Dialer) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		nc, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		c := &rawConn{Conn: rawconn.Wrap(nc), t: t}
		t.rawMu.Lock()
		t.raw[c] = struct{}{}
		t.rawMu.Unlock()
		return c, nil
	}
}

// closeWait bounds the closing handshake of Close.
const closeWait = time.Second

// Close closes every connection and waits for their readers. Calls in flight fail.
func (t *Transport) Close() error {
	if t.closed.Swap(true) {
		return nil
	}
	var closing sync.WaitGroup
	for i := range t.slots {
		s := &t.slots[i]
		_ = s.acquire(context.Background()) // cannot fail
		if c := s.c; c != nil && !c.dead() {
			closing.Go(func() { _ = c.ws.Close(websocket.StatusNormalClosure, "") })
		}
		s.release()
	}
	// A server that never answers the close frame would hold Close for the library's 5 s: give
	// the closing handshake at most closeWait (or Timeout, when shorter), then drop the connections.
	closed := make(chan struct{})
	go func() { closing.Wait(); close(closed) }()
	wait := time.NewTimer(min(closeWait, t.opts.Timeout))
	defer wait.Stop()
	select {
	case <-closed:
	case <-wait.C:
		// the handshake waits for a frame that does not come: end the reads and writes it waits on
		t.rawMu.Lock()
		for c := range t.raw {
			_ = c.SetDeadline(time.Unix(1, 0))
		}
		t.rawMu.Unlock()
		<-closed
	}
	t.wg.Wait()
	return nil
}
