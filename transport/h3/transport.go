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
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
	"golang.org/x/net/http/httpguts"

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
	// c.err and c.qc are written by the dial, before ready is closed: a request that gave up
	// waiting for the dial reads neither (the dialer's own release judges the connection)
	dialed := false
	select {
	case <-c.ready:
		dialed = true
	default:
	}
	if c.single || dialed && (c.err != nil || c.qc != nil && c.qc.Context().Err() != nil) {
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
			err := ctx.Err()
			if errors.Is(err, context.DeadlineExceeded) {
				// its time ran out waiting for the connection's handshake: the handshake got no
				// answer within the request's limit, as its opener will report it
				err = &handshakeTimeout{addr: c.host, limit: min(t.opts.ConnectTimeout, t.opts.Timeout), err: err}
			}
			out.Class, out.Err = classify(err), err
			return
		}
		if c.err != nil {
			out.Class, out.Err = classify(c.err), c.err // its opener reported the connection
			return
		}
	}
	req, rc, err := t.request(ctx, r, out)
	if err != nil {
		out.Class, out.Err = result.Other, err
		return
	}
	defer putCall(rc)
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

// call is what a request over HTTP/3 needs of its own beside quic-go's: the net/http request's URL,
// headers and trace, from a pool, reused request after request. Of the request only the copy that
// carries its context (Request.WithContext) and its body's reader are made anew: quic-go may still
// read the body in a goroutine of its own after the answer came. A call goes back to the pool once
// RoundTrip has returned and the answer's body is closed, when quic-go has written the headers
// and the trace has fired.
type call struct {
	req    http.Request // the template of the request; URL and Header point into the call
	url    url.URL
	header http.Header
	trace  httptrace.ClientTrace // set once: its functions write to out
	out    *transport.Outcome
}

var calls = sync.Pool{New: func() any {
	c := &call{header: http.Header{}}
	c.trace = httptrace.ClientTrace{
		WroteHeaders:         func() { c.out.Sent = time.Now() },
		GotFirstResponseByte: func() { c.out.FirstByte = time.Now() },
	}
	return c
}}

// requestBody is a request's body for net/http: a bytes.Reader that closes (io.NopCloser of a
// bytes.Reader is two objects, this one).
type requestBody struct{ bytes.Reader }

func (*requestBody) Close() error { return nil }

// request makes the net/http request of r on a call from the pool (give it back with putCall),
// with a trace that notes in out when its headers were written and when the answer's first byte
// came.
func (t *Transport) request(ctx context.Context, r *transport.Request, out *transport.Outcome) (*http.Request, *call, error) {
	c := calls.Get().(*call)
	c.out = out
	target := string(r.Path)
	c.url = url.URL{Scheme: "https", Host: r.Host}
	if plainTarget(target) {
		// what url.ParseRequestURI and EscapedPath would give back unchanged, as it is
		c.url.Opaque, c.url.RawQuery, c.url.ForceQuery = target, "", false
		if i := strings.IndexByte(target, '?'); i >= 0 {
			c.url.Opaque, c.url.RawQuery, c.url.ForceQuery = target[:i], target[i+1:], i == len(target)-1
		}
	} else {
		u, err := url.ParseRequestURI(target)
		if err != nil {
			putCall(c)
			return nil, nil, fmt.Errorf("h3: request target %q: %w", r.Path, err)
		}
		c.url.Path, c.url.RawPath, c.url.RawQuery, c.url.ForceQuery = u.Path, u.RawPath, u.RawQuery, u.ForceQuery
	}
	method := r.Method
	if method == "" {
		method = http.MethodGet
	} else if !validMethod(method) {
		putCall(c)
		return nil, nil, fmt.Errorf("h3: net/http: invalid method %q", method)
	}
	for k, vs := range c.header {
		c.header[k] = vs[:0] // kept for the values of this request
	}
	c.req = http.Request{Method: method, URL: &c.url, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Header: c.header, Host: r.Host}
	for _, h := range r.Header {
		k := http.CanonicalHeaderKey(h.Name)
		if k == "Host" {
			c.req.Host = h.Value
			continue
		}
		c.header[k] = append(c.header[k], h.Value)
	}
	if vs := c.header["User-Agent"]; len(vs) == 0 || vs[0] == "" {
		c.header["User-Agent"] = append(vs[:0], t.opts.UserAgent)
	}
	for k, vs := range c.header {
		if len(vs) == 0 {
			delete(c.header, k) // a header of an earlier request only
		}
	}
	if len(r.Body) > 0 {
		b := &requestBody{}
		b.Reset(r.Body)
		c.req.Body, c.req.ContentLength = b, int64(len(r.Body))
	}
	if httptrace.ContextClientTrace(ctx) != nil {
		// WithClientTrace would chain the caller's trace into the pooled one: give it its own
		tr := c.trace
		ctx = httptrace.WithClientTrace(ctx, &tr)
	} else {
		ctx = httptrace.WithClientTrace(ctx, &c.trace)
	}
	return c.req.WithContext(ctx), c, nil
}

// putCall gives c back to the pool.
func putCall(c *call) {
	c.out = nil
	c.req = http.Request{}
	calls.Put(c)
}

// plainTarget reports whether a request target is one that url.ParseRequestURI takes and the URL's
// RequestURI gives back byte for byte: a path from "/" (not "//") of letters, digits and the
// characters a path may hold unescaped (no "%"), then maybe "?" and a query without control bytes.
func plainTarget(s string) bool {
	if len(s) == 0 || s[0] != '/' || strings.HasPrefix(s, "//") {
		return false
	}
	for i := 0; i < len(s); i++ {
		b := s[i]
		if b == '?' {
			for j := i + 1; j < len(s); j++ {
				if s[j] < ' ' || s[j] == 0x7f {
					return false
				}
			}
			return true
		}
		switch {
		case 'a' <= b && b <= 'z', 'A' <= b && b <= 'Z', '0' <= b && b <= '9':
		case strings.IndexByte("-._~!$&'()*+,;=:@/", b) >= 0:
		default:
			return false
		}
	}
	return true
}

// validMethod reports whether m is a method net/http takes: a token.
func validMethod(m string) bool {
	return len(m) > 0 && !strings.ContainsFunc(m, func(r rune) bool { return !httpguts.IsTokenRune(r) })
}

// readBody reads the answer's body to its end, into out.Body when asked to keep it (reusing its
// capacity), and returns how many bytes it read.
func (t *Transport) readBody(b io.Reader, out *transport.Outcome) (int64, error) {
	if !t.opts.KeepBody {
		return io.Copy(io.Discard, b)
	}
	buf, limit := out.Body[:0], t.maxBody+1
	var err error
	for int64(len(buf)) < limit && err == nil {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)] // grows as append does
		}
		room := buf[len(buf):min(int64(cap(buf)), limit)]
		var n int
		n, err = b.Read(room)
		buf = buf[:len(buf)+n]
	}
	if err == io.EOF {
		err = nil
	}
	out.Body = buf
	n := int64(len(buf))
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
