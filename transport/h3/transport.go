package h3

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/transport"
)

// Transport sends requests over HTTP/3; see the package doc. Safe for concurrent use.
type Transport struct {
	opts    Options
	streams int
	maxBody int64
	tls     *tls.Config
	quic    *quic.Config
	h3      *http3.Transport // makes client connections on the QUIC connections dialed here
	udp     *net.UDPConn
	qt      *quic.Transport

	mu     sync.Mutex
	pools  map[string][]*pconn
	open   int
	closed bool
}

// pconn is one QUIC connection of a pool: being opened until ready is closed, then cc (or err).
// inflight and dead are guarded by the Transport's mutex.
type pconn struct {
	host     string
	ready    chan struct{}
	qc       *quic.Conn
	cc       *http3.ClientConn
	err      error
	inflight int
	single   bool
	dead     bool
	// handshake is the time from the dial to the handshake's completion, in ns; hsDone is closed
	// once it is known, or the connection ended first.
	handshake atomic.Int64
	hsDone    chan struct{}

	statsMu sync.Mutex
	last    quic.ConnectionStats // what the last answer reported
}

// New returns a Transport for o, with its UDP socket bound to a free port of every address.
func New(o Options) (*Transport, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	t := &Transport{opts: o, streams: o.Streams, maxBody: o.MaxBody, pools: map[string][]*pconn{}}
	if t.streams == 0 {
		t.streams = DefaultStreams
	}
	if t.maxBody == 0 {
		t.maxBody = DefaultMaxBody
	}
	if t.opts.Timeout == 0 {
		t.opts.Timeout = DefaultTimeout
	}
	if t.opts.ConnectTimeout == 0 {
		t.opts.ConnectTimeout = DefaultConnectTimeout
	}
	if t.opts.UserAgent == "" {
		t.opts.UserAgent = DefaultUserAgent
	}
	if o.TLS != nil {
		t.tls = o.TLS.Clone()
	} else {
		t.tls = &tls.Config{MinVersion: tls.VersionTLS13}
	}
	t.tls.InsecureSkipVerify = t.tls.InsecureSkipVerify || o.InsecureSkipVerify //nolint:gosec // the user asked
	t.tls.NextProtos = []string{http3.NextProtoH3}
	if t.tls.ClientSessionCache == nil {
		// a new connection to a server seen before resumes its session
		t.tls.ClientSessionCache = tls.NewLRUClientSessionCache(64)
	}
	t.quic = &quic.Config{HandshakeIdleTimeout: t.opts.ConnectTimeout, MaxIdleTimeout: max(30*time.Second, t.opts.Timeout)}
	udp, err := net.ListenUDP("udp", nil)
	if err != nil {
		return nil, fmt.Errorf("h3: opening a UDP socket: %w", err)
	}
	t.udp = udp
	t.qt = &quic.Transport{Conn: udp}
	t.h3 = &http3.Transport{TLSClientConfig: t.tls, QUICConfig: t.quic}
	return t, nil
}

// Close closes every connection and the UDP socket. Requests in flight fail.
func (t *Transport) Close() error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil
	}
	t.closed = true
	var all []*pconn
	for _, conns := range t.pools {
		all = append(all, conns...)
	}
	t.pools = nil
	t.mu.Unlock()
	for _, pc := range all {
		<-pc.ready
		if pc.qc != nil {
			_ = pc.qc.CloseWithError(0, "")
		}
	}
	err := t.qt.Close()
	_ = t.udp.Close()
	return err
}

// usable reports whether a new request may go to c: not dead, and, once ready, its connection is
// still open.
func (c *pconn) usable() bool {
	if c.dead || c.single {
		return false
	}
	select {
	case <-c.ready:
		return c.err == nil && c.qc.Context().Err() == nil
	default:
		return true
	}
}

// acquire returns a connection for a request to host, taking one of its slots: the least busy
// usable one under Streams, else a new one when the cap allows (opened is true: the caller dials
// it), else the least busy usable one.
func (t *Transport) acquire(host string) (c *pconn, opened bool, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return nil, false, ErrClosed
	}
	var best, least *pconn
	if !t.opts.DisableKeepAlive {
		conns := t.pools[host]
		kept := conns[:0]
		for _, pc := range conns {
			if !pc.usable() {
				pc.dead = true
				if pc.inflight == 0 {
					t.open--
				} else {
					kept = append(kept, pc) // dropped when its last request ends
				}
				continue
			}
			kept = append(kept, pc)
			if least == nil || pc.inflight < least.inflight {
				least = pc
			}
			if pc.inflight < t.streams && (best == nil || pc.inflight < best.inflight) {
				best = pc
			}
		}
		clear(conns[len(kept):])
		t.pools[host] = kept
	}
	if best == nil && (t.opts.MaxConns == 0 || t.open < t.opts.MaxConns || least == nil) {
		pc := &pconn{host: host, ready: make(chan struct{}), hsDone: make(chan struct{}), single: t.opts.DisableKeepAlive, inflight: 1}
		t.open++
		t.pools[host] = append(t.pools[host], pc)
		return pc, true, nil
	}
	if best == nil {
		best = least
	}
	best.inflight++
	return best, false, nil
}

// release gives back c's slot; a connection dead or single is closed with its last request.
func (t *Transport) release(c *pconn) {
	t.mu.Lock()
	c.inflight--
	if c.single || c.err != nil || c.qc != nil && c.qc.Context().Err() != nil {
		c.dead = true
	}
	drop := c.dead && c.inflight == 0
	if drop && t.pools != nil {
		conns := t.pools[c.host]
		for i, pc := range conns {
			if pc == c {
				t.pools[c.host] = append(conns[:i], conns[i+1:]...)
				t.open--
				break
			}
		}
	}
	t.mu.Unlock()
	if drop && c.qc != nil {
		_ = c.qc.CloseWithError(0, "")
	}
}

// dial opens c to its host: DNS when the host is a name, then the QUIC handshake (resuming the
// TLS session of an earlier connection where it has a ticket), bounded by the connect timeout. It fills ev with the
// set-up's figures, and c.err with its failure before c is ready.
func (t *Transport) dial(ctx context.Context, c *pconn, ev *result.ConnEvent) (err error) {
	defer func() { c.err = err; close(c.ready) }()
	ctx, cancel := context.WithTimeout(ctx, t.opts.ConnectTimeout)
	defer cancel()
	host, port, err := net.SplitHostPort(c.host)
	if err != nil {
		host, port = c.host, "443"
	}
	ip := net.ParseIP(host)
	if ip == nil {
		start := time.Now()
		ips, err := net.DefaultResolver.LookupIP(ctx, "ip", host)
		ev.DNS = time.Since(start)
		if err != nil {
			return err
		}
		ip = ips[0]
	}
	p, err := net.LookupPort("udp", port)
	if err != nil {
		return err
	}
	tc := t.tls
	if tc.ServerName == "" {
		tc = tc.Clone()
		tc.ServerName = host
	}
	start := time.Now()
	// Dial, not DialEarly: 0-RTT is not attempted, since quic-go races when a client opens
	// streams before the handshake completes (quic-go issue 4303, open in v0.65); a new
	// connection still resumes its TLS session from a ticket of an earlier one.
	qc, err := t.qt.Dial(ctx, &net.UDPAddr{IP: ip, Port: p}, tc, t.quic)
	if err != nil {
		var (
			hte  *quic.HandshakeTimeoutError
			idle *quic.IdleTimeoutError
		)
		if errors.As(err, &hte) || errors.As(err, &idle) || errors.Is(err, context.DeadlineExceeded) {
			return &handshakeTimeout{addr: net.JoinHostPort(ip.String(), port), limit: min(t.opts.ConnectTimeout, t.opts.Timeout), err: err}
		}
		return err
	}
	c.qc = qc
	c.cc = t.h3.NewClientConn(qc)
	go func() {
		defer close(c.hsDone)
		select {
		case <-qc.HandshakeComplete():
			c.handshake.Store(int64(time.Since(start)))
		case <-qc.Context().Done():
		}
	}()
	return nil
}

// handshakeTimeout is a QUIC handshake that got no answer within limit, the connect timeout (or
// the request's, when shorter). Its message does not say which of quic-go's timers or the
// context's deadline ended it first, so that a report counts these failures as one.
type handshakeTimeout struct {
	addr  string
	limit time.Duration
	err   error
}

func (e *handshakeTimeout) Error() string {
	return fmt.Sprintf("QUIC handshake with %s got no answer within %v (a server that drops UDP, or no QUIC server on that UDP port)", e.addr, e.limit)
}

func (e *handshakeTimeout) Unwrap() error { return e.err }

// connFacts fills ev with what c was once its handshake completed (Dial returned after it),
// waiting at most until ctx is done.
func connFacts(ctx context.Context, c *pconn, ev *result.ConnEvent) {
	select {
	case <-c.hsDone:
	case <-ctx.Done():
		return
	}
	hs := time.Duration(c.handshake.Load())
	if hs == 0 {
		return // the connection ended before its handshake completed
	}
	st := c.qc.ConnectionState()
	ev.TLS = hs
	ev.QUIC = &result.QUICConn{Version: st.Version.String(), Used0RTT: st.Used0RTT, Resumed: st.TLS.DidResume, GSO: st.GSO}
}

// packets returns what c's connection sent, received and lost since the last call.
func (c *pconn) packets() result.QUICPackets {
	s := c.qc.ConnectionStats()
	c.statsMu.Lock()
	defer c.statsMu.Unlock()
	p := result.QUICPackets{
		Sent: s.PacketsSent - c.last.PacketsSent, Received: s.PacketsReceived - c.last.PacketsReceived,
		Lost: s.PacketsLost - c.last.PacketsLost, BytesLost: s.BytesLost - c.last.BytesLost,
	}
	c.last = s
	return p
}

// Do sends r and reads its answer; see transport.Transport.
func (t *Transport) Do(ctx context.Context, r *transport.Request, out *transport.Outcome) {
	ctx, cancel := context.WithTimeout(ctx, t.opts.Timeout)
	defer cancel()
	c, opened, err := t.acquire(r.Host)
	if err != nil {
		out.Class, out.Err = result.Canceled, err
		return
	}
	defer t.release(c)
	if opened {
		out.Opened, out.Conn.Proto = true, "h3"
		if err := t.dial(ctx, c, &out.Conn); err != nil {
			out.Conn.Failed = true
			out.Class, out.Err = classify(err), err
			return
		}
		defer connFacts(ctx, c, &out.Conn)
	} else {
		select {
		case <-c.ready:
		case <-ctx.Done():
			out.Class, out.Err = classify(ctx.Err()), ctx.Err()
			return
		}
		if c.err != nil {
			out.Class, out.Err = classify(c.err), c.err // its opener reported the connection
			return
		}
	}
	req, err := t.request(ctx, r, out)
	if err != nil {
		out.Class, out.Err = result.Other, err
		return
	}
	resp, err := c.cc.RoundTrip(req)
	if err != nil {
		out.Class, out.Err = classify(err), err
		out.Packets = c.packets()
		return
	}
	if out.Sent.IsZero() {
		out.Sent = time.Now()
	}
	if out.FirstByte.IsZero() {
		out.FirstByte = time.Now()
	}
	out.BytesOut = int64(len(r.Body))
	out.Status = resp.StatusCode
	n, err := t.readBody(resp.Body, out)
	_ = resp.Body.Close()
	out.BytesIn = n
	out.Packets = c.packets()
	if err != nil {
		if errors.Is(err, ErrBodyTooLarge) {
			out.Answered, out.Class, out.Err = true, result.TooLarge, err
			return
		}
		out.Class, out.Err = classify(err), err
		return
	}
	out.Answered = true
}

// request makes the net/http request of r, with a trace that notes in out when its headers were
// written and when the answer's first byte came.
func (t *Transport) request(ctx context.Context, r *transport.Request, out *transport.Outcome) (*http.Request, error) {
	u, err := url.ParseRequestURI(string(r.Path))
	if err != nil {
		return nil, fmt.Errorf("h3: request target %q: %w", r.Path, err)
	}
	u.Scheme, u.Host = "https", r.Host
	trace := &httptrace.ClientTrace{
		WroteHeaders:         func() { out.Sent = time.Now() },
		GotFirstResponseByte: func() { out.FirstByte = time.Now() },
	}
	method := r.Method
	if method == "" {
		method = http.MethodGet
	}
	var body io.Reader
	if len(r.Body) > 0 {
		body = bytes.NewReader(r.Body)
	}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, trace), method, u.String(), body)
	if err != nil {
		return nil, fmt.Errorf("h3: %w", err)
	}
	for _, h := range r.Header {
		if http.CanonicalHeaderKey(h.Name) == "Host" {
			req.Host = h.Value
			continue
		}
		req.Header.Add(h.Name, h.Value)
	}
	if req.Header.Get("User-Agent") == "" {
		req.Header.Set("User-Agent", t.opts.UserAgent)
	}
	return req, nil
}

// readBody reads the answer's body to its end, into out.Body when asked to keep it, and returns
// how many bytes it read.
func (t *Transport) readBody(b io.Reader, out *transport.Outcome) (int64, error) {
	if !t.opts.KeepBody {
		return io.Copy(io.Discard, b)
	}
	buf := bytes.NewBuffer(out.Body[:0])
	n, err := buf.ReadFrom(io.LimitReader(b, t.maxBody+1))
	out.Body = buf.Bytes()
	if err == nil && n > t.maxBody {
		out.Body = out.Body[:t.maxBody]
		m, err := io.Copy(io.Discard, b)
		if err == nil {
			err = fmt.Errorf("%w (%d bytes): an answer of %d bytes", ErrBodyTooLarge, t.maxBody, n+m)
		}
		return n + m, err
	}
	return n, err
}

// classify returns the class of a failure of HTTP/3 or QUIC: quic-handshake for a handshake that
// got no answer; tls for a TLS alert or a certificate refused; timeout for a connection idle too
// long or a request over its time; reset for a connection or stream the server closed or
// reset; else as transport.Classify says.
func classify(err error) result.Class {
	var (
		hs    *handshakeTimeout
		te    *quic.TransportError
		idle  *quic.IdleTimeoutError
		app   *quic.ApplicationError
		reset *quic.StatelessResetError
		strm  *quic.StreamError
		h3e   *http3.Error
	)
	switch {
	case errors.As(err, &hs):
		return result.QUICHandshake
	case errors.As(err, &te) && te.ErrorCode.IsCryptoError():
		return result.TLS
	case errors.As(err, &idle):
		return result.Timeout
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return transport.Classify(err)
	case errors.As(err, &app), errors.As(err, &reset), errors.As(err, &strm), errors.As(err, &h3e):
		return result.Reset
	case errors.As(err, &te):
		return result.Protocol
	}
	return transport.Classify(err)
}
