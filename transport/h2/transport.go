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

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/transport"
)

// Transport sends HTTP requests over HTTP/2 (h2 by ALPN, or h2c) and keeps a pool of connections
// per scheme and authority, each carrying up to Options.Streams requests at once. Make one with
// New; the zero value is not usable. It is safe for concurrent use by many goroutines.
//
// Unlike httpx, a request that fails is never sent again: on a connection that multiplexes, a
// reset stream or a GOAWAY is the server's answer to be counted.
type Transport struct {
	opts           Options
	base           *http.Transport
	timeout        time.Duration
	connectTimeout time.Duration
	maxBody        int64
	streams        int

	mu      sync.Mutex
	closed  bool
	pools   map[poolKey][]*pconn
	open    int           // connections open or being opened
	wake    chan struct{} // closed when a slot frees up, for the requests waiting for one
	waiting bool          // someone may wait on wake
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
		pools:          map[poolKey][]*pconn{},
		wake:           make(chan struct{}),
	}
	var cfg *tls.Config
	if opts.TLS != nil {
		cfg = opts.TLS.Clone()
	} else {
		cfg = &tls.Config{MinVersion: tls.VersionTLS12}
	}
	if opts.InsecureSkipVerify {
		cfg.InsecureSkipVerify = true
	}
	var protos http.Protocols
	if opts.Cleartext {
		protos.SetUnencryptedHTTP2(true)
	} else {
		protos.SetHTTP1(true)
		protos.SetHTTP2(true)
		cfg.NextProtos = []string{"h2", "http/1.1"}
	}
	t.base = &http.Transport{
		Protocols:          &protos,
		TLSClientConfig:    cfg,
		DisableCompression: true,
		DialContext:        (&net.Dialer{}).DialContext,
		HTTP2:              &http.HTTP2Config{},
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
// (Connection, Keep-Alive, Transfer-Encoding, Upgrade) and Content-Length are not sent.
//
// In out: Sent is when a connection was ready and the request about to go; FirstByte when the
// answer's headers arrived; BytesIn and BytesOut count the bodies and the header fields as
// HTTP/1.1 would write them ("Name: value" and a line break each), before HPACK compression and
// without HTTP/2's framing. When a connection was opened for the request, or failed to open,
// Opened is true and Conn holds the set-up times and the protocol spoken.
func (t *Transport) Do(ctx context.Context, r *transport.Request, out *transport.Outcome) {
	if err := ctx.Err(); err != nil {
		out.Class, out.Err = result.Canceled, err
		return
	}
	cctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	req, sent, err := t.request(cctx, r)
	if err != nil {
		out.Class, out.Err = result.Other, err
		return
	}
	pc, opened, err := t.acquire(cctx, poolKey{r.Scheme, r.Host})
	if err != nil {
		t.fail(ctx, out, err)
		return
	}
	defer t.release(pc)
	if opened {
		out.Conn, out.Opened = t.dial(cctx, pc), true
	} else {
		select {
		case <-pc.ready:
		case <-cctx.Done():
			t.fail(ctx, out, cctx.Err())
			return
		}
	}
	if pc.err != nil {
		t.fail(ctx, out, fmt.Errorf("h2: connecting to %s: %w", r.Host, pc.err))
		return
	}
	out.Sent = time.Now()
	resp, err := pc.cc.RoundTrip(req)
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

// request makes the http.Request of r under ctx, and counts the bytes it sends.
func (t *Transport) request(ctx context.Context, r *transport.Request) (*http.Request, int64, error) {
	method := r.Method
	if method == "" {
		method = http.MethodGet
	}
	switch want := t.scheme(); {
	case strings.EqualFold(r.Scheme, want):
	case t.opts.Cleartext:
		return nil, 0, fmt.Errorf("h2: scheme %q: h2c carries http:// URLs; use h2 for https://", r.Scheme)
	default:
		return nil, 0, fmt.Errorf("h2: scheme %q: h2 carries https:// URLs; use h2c for http://", r.Scheme)
	}
	path := string(r.Path)
	if path == "" {
		path = "/"
	}
	if !strings.HasPrefix(path, "/") || strings.HasPrefix(path, "//") || strings.ContainsAny(path, " \r\n") {
		return nil, 0, fmt.Errorf("h2: path %q: want one that starts with a single / and holds no space or line break", path)
	}
	req := &http.Request{
		Method: method,
		URL:    &url.URL{Scheme: r.Scheme, Host: r.Host, Opaque: path},
		Host:   r.Host,
		Header: make(http.Header, len(r.Header)+1),
	}
	n := int64(len(r.Body))
	for _, h := range r.Header {
		switch strings.ToLower(h.Name) {
		case "host":
			req.Host = h.Value
			continue
		case "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "content-length":
			continue
		}
		req.Header.Add(h.Name, h.Value)
		n += int64(len(h.Name) + len(h.Value) + 4)
	}
	if req.Header.Get("User-Agent") == "" {
		v := t.opts.UserAgent
		if v == "" {
			v = DefaultUserAgent
		}
		req.Header.Set("User-Agent", v)
		n += int64(len("User-Agent") + len(v) + 4)
	}
	if len(r.Body) > 0 {
		body := r.Body
		req.ContentLength = int64(len(body))
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	return req.WithContext(ctx), n, nil
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

// classify classes err as transport.Classify does, and net/http's HTTP/2 errors, which it keeps
// unexported, by their messages: a reset stream, a GOAWAY or a lost connection is class reset, a
// broken frame or a malformed answer class protocol.
func classify(err error) result.Class {
	if c := transport.Classify(err); c != result.Other {
		return c
	}
	msg := err.Error()
	for _, m := range []struct {
		s string
		c result.Class
	}{
		{"stream error", result.Reset},
		{"GOAWAY", result.Reset},
		{"connection lost", result.Reset},
		{"conn is closed", result.Reset},
		{"connection closed", result.Reset},
		{"connection broken", result.Reset},
		{"connection error", result.Protocol},
		{"malformed", result.Protocol},
		{"invalid", result.Protocol},
	} {
		if strings.Contains(msg, m.s) {
			return m.c
		}
	}
	return result.Other
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
	var ccs []*http.ClientConn
	for _, conns := range t.pools {
		for _, pc := range conns {
			select {
			case <-pc.ready:
				if pc.cc != nil {
					ccs = append(ccs, pc.cc)
				}
			default: // its opener closes it
			}
		}
	}
	t.pools = map[poolKey][]*pconn{}
	t.waiting = true
	t.broadcast()
	t.mu.Unlock()
	for _, cc := range ccs {
		_ = cc.Close()
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
