package h2

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/net/http/httpguts"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/transport"
)

// Transport sends HTTP requests over HTTP/2 (h2 by ALPN, or h2c) and keeps a pool of connections
// per scheme and authority, each carrying up to Options.Streams requests at once. Make one with
// New; the zero value is not usable. It is safe for concurrent use by many goroutines. Once a
// connection is open and its server's header fields are in its decoder's table, a request over
// HTTP/2 allocates nothing.
//
// Unlike httpx, a request that fails after the server may have processed it is never sent again:
// on a connection that multiplexes, a reset stream is the server's answer to be counted. A request that found its connection retired
// (told to go away, or broken) before any of it was written goes to another; so does one whose
// stream a GOAWAY left unprocessed (above the last stream the server takes), and that retry is
// counted (Outcome.RetriedGoAway). A stream the GOAWAY kept that fails later is not sent again:
// the server may have processed it.
type Transport struct {
	opts           Options
	timeout        time.Duration
	connectTimeout time.Duration
	maxBody        int64
	streams        int
	ua             string
	tooLarge       error // ErrBodyTooLarge with MaxBody
	streamWindow   int32 // receive windows of each connection
	connWindow     int32
	dialer         net.Dialer
	tls            *tls.Config     // the base of each TLS connection's
	h1             *http.Transport // HTTP/1.1 on the connections whose server chose it by ALPN
	streamPool     sync.Pool       // of *stream

	mu     sync.Mutex
	closed bool
	pools  map[poolKey][]*pconn
	open   int    // connections open or being opened
	wake   signal // for the requests waiting for a slot
}

var _ transport.Transport = (*Transport)(nil)

// New returns a Transport configured by opts (see Options for the defaults), or the problems of
// opts.
func New(opts Options) (*Transport, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	t := &Transport{
		opts:           opts,
		timeout:        cmp(opts.Timeout, DefaultTimeout),
		connectTimeout: cmp(opts.ConnectTimeout, DefaultConnectTimeout),
		maxBody:        cmp(opts.MaxBody, DefaultMaxBody),
		streams:        cmp(opts.Streams, DefaultStreams),
		ua:             opts.UserAgent,
		streamWindow:   defaultStreamWindow,
		connWindow:     defaultConnWindow,
		pools:          map[poolKey][]*pconn{},
	}
	if t.ua == "" {
		t.ua = DefaultUserAgent
	}
	t.tooLarge = fmt.Errorf("%w (%d bytes)", ErrBodyTooLarge, t.maxBody)
	t.streamPool.New = newStream
	if opts.TLS != nil {
		t.tls = opts.TLS.Clone()
	} else {
		t.tls = &tls.Config{MinVersion: tls.VersionTLS12}
	}
	if opts.InsecureSkipVerify {
		t.tls.InsecureSkipVerify = true
	}
	t.tls.NextProtos = []string{"h2", "http/1.1"}
	if !opts.Cleartext {
		var protos http.Protocols
		protos.SetHTTP1(true)
		t.h1 = &http.Transport{
			Protocols:          &protos,
			TLSClientConfig:    t.tls,
			DisableCompression: true,
			DialTLSContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
				if c, ok := ctx.Value(dialedKey{}).(net.Conn); ok {
					return c, nil
				}
				return nil, errors.New("h2: no connection to speak HTTP/1.1 on")
			},
		}
	}
	return t, nil
}

// cmp returns v, or def when v is 0.
func cmp[T int | int64 | time.Duration](v, def T) T {
	if v == 0 {
		return def
	}
	return v
}

// Do sends r and reads the answer, filling out (which the caller has reset). It returns when the
// answer was read in full, the request failed, or ctx is done (then with class Canceled). Any
// complete answer, whatever its status, leaves out.Class OK.
//
// The request's :path is r.Path ("" means "/"), its :authority r.Host unless r.Header has a Host;
// User-Agent comes from Options unless r.Header has one; the headers HTTP/2 forbids
// (Connection, Keep-Alive, Proxy-Connection, Transfer-Encoding, Upgrade) and Content-Length are
// not sent (content-length is computed from the body). A request whose method, path, host or
// headers are malformed fails with class Other before anything is sent.
//
// A request whose stream a GOAWAY left unprocessed is sent again on another connection, up to
// maxRetired times, each counted in RetriedGoAway; the rest of out describes the last attempt,
// but BytesOut counts them all.
//
// In out: Sent is when a connection was ready and the request about to go (zero again when the
// server said, by GOAWAY or REFUSED_STREAM, that it did not process it); FirstByte when the
// read that brought the answer's first headers returned (over HTTP/2); BytesIn and BytesOut
// count the bodies and the header fields as HTTP/1.1 would write them ("Name: value" and a line
// break each), before HPACK compression and without HTTP/2's framing. When a connection was opened for the request, or failed to open,
// Opened is true and Conn holds the set-up times and the protocol spoken.
func (t *Transport) Do(ctx context.Context, r *transport.Request, out *transport.Outcome) {
	t.do(ctx, r, out, nil)
}

// do is Do, and DoGRPC with a, the call's gRPC answer.
func (t *Transport) do(ctx context.Context, r *transport.Request, out *transport.Outcome, a *GRPCAnswer) {
	if err := ctx.Err(); err != nil {
		out.Class, out.Err = result.Canceled, err
		return
	}
	if err := t.check(r); err != nil {
		out.Class, out.Err = result.Other, err
		return
	}
	st := t.streamPool.Get().(*stream)
	st.begin(r.Method == http.MethodHead, out.Body, t.timeout)
	st.grpc = a
	defer t.putStream(st)
	key := poolKey{r.Scheme, r.Host}
	var start time.Time // when the request began to wait or to open a connection, when it did
	for retired := 0; ; {
		pc, opened, since, err := t.acquire(ctx, key, st)
		if start.IsZero() {
			start = since
		}
		if err != nil {
			t.fail(ctx, out, err)
			return
		}
		if opened {
			if start.IsZero() {
				start = time.Now()
			}
			out.Conn, out.Opened = t.dial(ctx, pc, start.Add(t.timeout)), true
		} else if err = waitReady(ctx, st, pc); err != nil {
			t.release(pc)
			t.fail(ctx, out, err)
			return
		}
		switch {
		case pc.err != nil:
			err = fmt.Errorf("h2: connecting to %s: %w", r.Host, pc.err)
		case pc.h1 != nil:
			if start.IsZero() {
				start = time.Now()
			}
			t.doHTTP1(ctx, pc.h1, r, start.Add(t.timeout), out)
		default:
			err = pc.cc.roundTrip(ctx, r, st, out)
		}
		t.release(pc)
		if err == errRetired && retired < maxRetired {
			retired++
			continue // nothing was sent: another connection takes it
		}
		if err == nil && pc.cc != nil && st.goneAway() && out.RetriedGoAway < maxRetired && ctx.Err() == nil && st.retry() {
			// the server did not process it: another connection takes it, counted; it is sent
			// again only once the retry is written
			out.RetriedGoAway++
			out.Sent = time.Time{}
			continue
		}
		if err != nil {
			t.fail(ctx, out, err)
		} else if pc.cc != nil {
			t.answer(ctx, st, out)
		}
		return
	}
}

// waitReady waits until pc is ready (opened, or failed to), ctx is done or st's timeout passes.
func waitReady(ctx context.Context, st *stream, pc *pconn) error {
	select {
	case <-pc.ready:
		return nil
	default:
		return sleep(ctx, st, pc.ready)
	}
}

// maxRetired bounds how many connections a request tries that retire before it is sent, and
// how many times it is sent again after a GOAWAY left it unprocessed.
const maxRetired = 3

// answer fills out from st, finished.
func (t *Transport) answer(ctx context.Context, st *stream, out *transport.Outcome) {
	out.FirstByte = st.firstByte
	out.BytesIn = st.headerIn + st.bodyLen
	if st.grpc != nil {
		st.grpc.BodyLen = st.bodyLen
	}
	if t.opts.KeepBody {
		out.Body = st.body
	}
	if st.err != nil {
		t.fail(ctx, out, st.err)
		if st.unsent {
			out.Sent = time.Time{}
		}
		return
	}
	out.Answered, out.Status = true, st.status
}

// putStream gives st back to the pool, its timer left set (see streamClock); a stream whose
// timer fired for its request is dropped instead, for its expire may still run.
func (t *Transport) putStream(st *stream) {
	if !st.end() {
		return
	}
	st.body, st.err, st.grpc = nil, nil, nil
	t.streamPool.Put(st)
}

// check returns an error when r cannot be sent by t: a scheme it does not carry, a malformed
// method, path, host or header.
func (t *Transport) check(r *transport.Request) error {
	switch want := t.scheme(); {
	case strings.EqualFold(r.Scheme, want):
	case t.opts.Cleartext:
		return fmt.Errorf("h2: scheme %q: h2c carries http:// URLs; use h2 for https://", r.Scheme)
	default:
		return fmt.Errorf("h2: scheme %q: h2 carries https:// URLs; use h2c for http://", r.Scheme)
	}
	if p := r.Path; len(p) > 0 && (p[0] != '/' || len(p) > 1 && p[1] == '/' || hasSpaceOrBreak(unsafe.String(&p[0], len(p)))) {
		return fmt.Errorf("h2: path %q: want one that starts with a single / and holds no space or line break", r.Path)
	}
	if r.Method != "" && !httpguts.ValidHeaderFieldName(r.Method) {
		return fmt.Errorf("h2: method %q is not a token; use e.g. GET or POST", r.Method)
	}
	if hasSpaceOrBreak(r.Host) {
		return fmt.Errorf("h2: host %q holds a space or a line break", r.Host)
	}
	for i := range r.Header {
		h := &r.Header[i]
		if !httpguts.ValidHeaderFieldName(h.Name) {
			return fmt.Errorf("h2: header name %q is not a token; want letters, digits and !#$%%&'*+-.^_`|~", h.Name)
		}
		if at := controlByte(h.Value); at >= 0 { // the value is not told: it may be a secret
			return fmt.Errorf("h2: header %q: its value holds a control byte or line break at byte %d; want a value without any", h.Name, at+1)
		}
	}
	return nil
}

// controlByte returns the index of the first byte of the header value v that HTTP/2 does not
// carry (a control byte other than tab: httpguts.ValidHeaderFieldValue), or -1.
func controlByte(v string) int {
	for i := range len(v) {
		if b := v[i]; b < ' ' && b != '\t' || b == 0x7f {
			return i
		}
	}
	return -1
}

// hasSpaceOrBreak reports whether s holds a space, CR, LF or NUL.
func hasSpaceOrBreak(s string) bool {
	for i := range len(s) {
		switch s[i] {
		case ' ', '\r', '\n', 0:
			return true
		}
	}
	return false
}

// doHTTP1 sends r on h1, a connection that speaks HTTP/1.1, and reads the answer into out.
func (t *Transport) doHTTP1(ctx context.Context, h1 *http.ClientConn, r *transport.Request, deadline time.Time, out *transport.Outcome) {
	cctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	req, sent := t.request(cctx, r)
	out.Sent = time.Now()
	resp, err := h1.RoundTrip(req)
	out.BytesOut = sent
	if err != nil {
		t.fail(ctx, out, err)
		return
	}
	out.FirstByte = time.Now()
	n, err := t.readBody(resp.Body, out)
	_ = resp.Body.Close()
	out.BytesIn = n + headerBytes(resp.Header) + headerBytes(resp.Trailer)
	if err != nil {
		t.fail(ctx, out, err)
		return
	}
	out.Answered, out.Status = true, resp.StatusCode
}

// request makes the http.Request of r (checked) under ctx, and counts the bytes it sends.
func (t *Transport) request(ctx context.Context, r *transport.Request) (*http.Request, int64) {
	method := r.Method
	if method == "" {
		method = http.MethodGet
	}
	path := string(r.Path)
	if path == "" {
		path = "/"
	}
	req := &http.Request{
		Method: method,
		URL:    &url.URL{Scheme: r.Scheme, Host: r.Host, Opaque: path},
		Host:   r.Host,
		Header: make(http.Header, len(r.Header)+1),
	}
	n := int64(len(r.Body))
	for _, h := range r.Header {
		if strings.EqualFold(h.Name, "host") {
			req.Host = h.Value
			continue
		}
		if skipHeader(h.Name) {
			continue
		}
		req.Header.Add(h.Name, h.Value)
		n += int64(len(h.Name) + len(h.Value) + 4)
	}
	if req.Header.Get("User-Agent") == "" {
		req.Header.Set("User-Agent", t.ua)
		n += int64(len("User-Agent") + len(t.ua) + 4)
	}
	if len(r.Body) > 0 {
		body := r.Body
		req.ContentLength = int64(len(body))
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	return req.WithContext(ctx), n
}

// readBody reads the answer's body, into out.Body when asked to keep it, and returns its length.
func (t *Transport) readBody(body io.Reader, out *transport.Outcome) (int64, error) {
	if !t.opts.KeepBody {
		return io.Copy(io.Discard, body)
	}
	buf := bytes.NewBuffer(out.Body[:0])
	n, err := buf.ReadFrom(io.LimitReader(body, t.maxBody+1))
	out.Body = buf.Bytes()
	if err == nil && n > t.maxBody {
		out.Body = out.Body[:t.maxBody]
		return n, fmt.Errorf("%w (%d bytes)", ErrBodyTooLarge, t.maxBody)
	}
	return n, err
}

// headerBytes counts h as HTTP/1.1 would write it.
func headerBytes(h http.Header) int64 {
	var n int64
	for k, vs := range h {
		for _, v := range vs {
			n += int64(len(k) + len(v) + 4)
		}
	}
	return n
}

// fail records err in out with its class.
func (t *Transport) fail(ctx context.Context, out *transport.Outcome, err error) {
	out.Err = err
	switch {
	case ctx.Err() != nil:
		out.Class, out.Err = result.Canceled, ctx.Err()
	case errors.Is(err, ErrClosed) || t.isClosed():
		out.Class, out.Err = result.Canceled, ErrClosed
	case errors.Is(err, ErrBodyTooLarge):
		out.Class = result.TooLarge
	default:
		out.Class = classify(err)
	}
}

func (t *Transport) isClosed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.closed
}

// Close closes every connection: requests in flight end with class Canceled and ErrClosed, as do
// later requests. It returns nil.
func (t *Transport) Close() error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil
	}
	t.closed = true
	var ready []*pconn
	for _, conns := range t.pools {
		for _, pc := range conns {
			select {
			case <-pc.ready:
				ready = append(ready, pc)
			default: // its opener closes it
			}
		}
	}
	t.pools = map[poolKey][]*pconn{}
	t.wake.broadcast()
	t.mu.Unlock()
	for _, pc := range ready {
		pc.close()
	}
	return nil
}

// scheme is the URL scheme t carries.
func (t *Transport) scheme() string {
	if t.opts.Cleartext {
		return "http"
	}
	return "https"
}

// hostPort returns host with the scheme's default port when it has none.
func hostPort(host, scheme string) (string, error) {
	if host == "" {
		return "", errors.New("h2: request has no host")
	}
	if _, _, err := net.SplitHostPort(host); err == nil {
		return host, nil
	}
	h := strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if scheme == "http" {
		return net.JoinHostPort(h, "80"), nil
	}
	return net.JoinHostPort(h, "443"), nil
}
