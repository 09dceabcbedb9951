package httpx

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"syscall"
	"time"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/transport"
)

// Transport sends HTTP/1.1 requests over plain TCP or TLS and keeps a pool of connections per scheme,
// host and port (idle connections are reused, most recent first). Make one with New; the zero value
// is not usable. It is safe for concurrent use by many goroutines. Once a connection is open and the
// context is the one its previous request had, a request allocates nothing (over TLS, crypto/tls
// itself allocates 24 bytes per record it reads).
//
// A request that fails on a reused connection which the server had closed while it was idle
// (the connection ends, or is reset, before any byte of the answer) is sent once more on a new
// connection when its method is idempotent (GET, HEAD, OPTIONS, TRACE, PUT, DELETE), as net/http
// does; the Outcome then describes the second attempt, BytesOut counts both, and Retried is 1, so
// that a server resetting requests is seen even when the retries succeed. POST and PATCH are
// not sent twice: they fail with class Reset.
//
// Before an idle connection is reused, its socket is looked at (one system call), however recently
// it answered: a connection that the server closed, or on which it sent something unasked (a 408 at
// its idle timeout, bytes beyond an answer's length, a second answer), is closed and another one
// used, so that no request takes bytes it did not ask for as its answer. A close that comes after
// the look is met by the request: a GET is retried as above, a POST fails with class Reset.
type Transport struct {
	opts           Options
	timeout        time.Duration
	connectTimeout time.Duration
	maxBody        int64
	uaLine         string // "User-Agent: …\r\n"
	resolver       *net.Resolver
	waiterPool     sync.Pool
	waitHook       func() // tests: called when a request starts waiting for a connection
	// checkIdleAfter, above 0 in tests only, reuses a connection answered less than that ago
	// without the look, to reach deterministically what a close racing the look does.
	checkIdleAfter time.Duration

	mu      sync.Mutex
	closed  bool
	pools   map[poolKey]*hostPool
	conns   map[*conn]struct{} // open connections, idle or busy (not those being opened)
	open    int                // connections open or being opened
	idle    int                // idle connections over all pools
	waiters []*waiter          // requests waiting for a connection, first come first served
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
		timeout:        opts.Timeout,
		connectTimeout: opts.ConnectTimeout,
		pools:          map[poolKey]*hostPool{},
		conns:          map[*conn]struct{}{},
	}
	if t.timeout == 0 {
		t.timeout = DefaultTimeout
	}
	if t.connectTimeout == 0 {
		t.connectTimeout = DefaultConnectTimeout
	}
	t.maxBody = opts.MaxBody
	if t.maxBody == 0 {
		t.maxBody = DefaultMaxBody
	}
	ua := opts.UserAgent
	if ua == "" {
		ua = DefaultUserAgent
	}
	t.uaLine = "User-Agent: " + ua + "\r\n"
	t.resolver = opts.Resolver
	if t.resolver == nil {
		t.resolver = net.DefaultResolver
	}
	t.waiterPool.New = newWaiter
	return t, nil
}

// Do sends r and reads the answer, filling out (which the caller has reset). It returns when the
// answer was read in full, the request failed, or ctx is done (then promptly, with class Canceled).
// Any complete answer, whatever its status, leaves out.Class OK; a broken one has class Protocol.
//
// The request line is r.Method ("" means GET) and r.Path ("" means "/"); Host comes from r.Host and
// User-Agent from Options unless r.Header has them; Content-Length is computed from r.Body (and sent
// as 0 for POST, PUT and PATCH without a body), so Content-Length and Transfer-Encoding lines of
// r.Header are not sent. A request whose method, path, host or headers would break the request's
// framing (a line break, a space in the path) fails with class Other before anything is sent.
//
// In out: Sent is when the connection was ready and the request about to be written; FirstByte when
// the first byte of the answer (of an interim 1xx answer, if any) arrived; BytesIn and BytesOut count
// HTTP bytes, headers included (after TLS decryption). When a connection was opened for the request,
// or failed to open, Opened is true and Conn holds the set-up times (DNS only when a name was
// resolved) and Failed.
func (t *Transport) Do(ctx context.Context, r *transport.Request, out *transport.Outcome) {
	if err := ctx.Err(); err != nil {
		out.Class, out.Err = result.Canceled, err
		return
	}
	if err := checkRequest(r); err != nil {
		out.Class, out.Err = result.Other, err
		return
	}
	key := poolKey{r.Scheme, r.Host}
	// deadline stays zero when an idle connection was taken at once: roundTrip sets it from the clock
	// read that dates the send, one clock read a request fewer.
	c, ev, opened, deadline, err := t.getConn(ctx, key)
	if opened {
		out.Conn, out.Opened = ev, true
	}
	for retried := false; ; retried = true {
		if err != nil {
			t.fail(ctx, out, err)
			return
		}
		if !t.roundTrip(ctx, c, r, &deadline, out, !retried) {
			return
		}
		// Retry on a new connection, in the failed connection's slot; the retry is counted, so that
		// the reset it hides still shows in the report.
		out.Retried++
		err = t.takeSlot(c)
		c.close()
		if err == nil {
			c, ev, _, err = t.open1(ctx, c.pool, deadline)
			out.Conn, out.Opened = ev, true
		}
	}
}

// roundTrip sends r on c and reads the answer into out, then gives c back (or closes it). It returns
// true, keeping c for the caller to close, when the request failed in a way that a retry on a new
// connection may fix and mayRetry allows one. A zero *deadline is set to the timeout from the send,
// for the retry to keep.
func (t *Transport) roundTrip(ctx context.Context, c *conn, r *transport.Request, deadline *time.Time, out *transport.Outcome, mayRetry bool) (retry bool) {
	out.Sent = time.Now()
	if deadline.IsZero() {
		*deadline = out.Sent.Add(t.timeout)
	}
	if !c.begin(ctx, out.Sent, *deadline) {
		t.release(c, true)
		out.Sent = time.Time{}
		out.Class, out.Err = result.Canceled, ctx.Err()
		return false
	}
	written := c.cw.n
	werr := c.writeRequest(r, t.uaLine, t.opts.DisableKeepAlive)

	// Read the answer even when writing failed part way: a server may answer (413, say) and close
	// before it has read the whole request.
	var resp response
	var rerr error
	if werr == nil || c.cw.n > written {
		_, rerr = c.br.Peek(1)
		if err := c.cw.sent(); werr == nil {
			werr = err // the request's end went out with that first read
		}
	}
	if werr != nil && c.cw.n == written {
		// Not a byte of the request went out: what the connection holds answers no request of ours.
		rerr = werr
	}
	out.BytesOut += c.cw.n - written
	if rerr == nil {
		out.FirstByte = time.Now()
		resp, rerr = readResponse(c.br, r.Method == "HEAD", t.opts.KeepBody, t.maxBody, out.Body)
		if t.opts.KeepBody {
			out.Body = resp.body
		}
	}
	out.BytesIn += resp.n
	canceled, interrupted := c.end()
	reused := c.uses > 0
	c.uses++

	if rerr == nil {
		out.Answered, out.Status = true, resp.status
		c.answered = out.FirstByte
		t.release(c, werr == nil && !resp.close && !t.opts.DisableKeepAlive && !interrupted)
		return false
	}
	err := werr
	if err == nil {
		err = rerr
	}
	switch {
	case canceled || ctx.Err() != nil:
		err = ctx.Err()
	case mayRetry && reused && resp.n == 0 && idempotent(r.Method) && closedByPeer(err):
		return true
	default:
		err = describe(err, werr, rerr, resp.n, t.maxBody)
	}
	t.release(c, false)
	t.fail(ctx, out, err)
	return false
}

// fail records err in out with its class.
func (t *Transport) fail(ctx context.Context, out *transport.Outcome, err error) {
	out.Err = err
	switch {
	case ctx.Err() != nil:
		out.Class, out.Err = result.Canceled, ctx.Err()
	case errors.Is(err, ErrClosed) || errors.Is(err, net.ErrClosed) && t.isClosed():
		out.Class, out.Err = result.Canceled, ErrClosed
	case IsProtocolError(err):
		out.Class = result.Protocol
	case errors.Is(err, ErrBodyTooLarge):
		out.Class = result.TooLarge
	default:
		out.Class = transport.Classify(err)
	}
}

func (t *Transport) isClosed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.closed
}

// Close closes every connection, idle or busy: requests in flight end with class Canceled and
// ErrClosed, as do later requests. It returns nil.
func (t *Transport) Close() error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil
	}
	t.closed = true
	conns := t.conns
	t.conns = nil
	for _, p := range t.pools {
		p.idle = nil
	}
	t.idle, t.open = 0, 0
	for _, w := range t.waiters {
		w.ch <- grant{err: ErrClosed}
	}
	t.waiters = nil
	t.mu.Unlock()
	for c := range conns {
		c.close()
	}
	return nil
}

// describe says what went wrong with a request, as Transport's errors say it: werr writing, rerr
// reading (the parser's included), n bytes of the answer read.
func describe(err, werr, rerr error, n, maxBody int64) error {
	switch {
	case n == 0 && errors.Is(err, io.EOF):
		return fmt.Errorf("httpx: the server closed the connection without answering: %w", err)
	case werr != nil:
		return fmt.Errorf("httpx: writing the request: %w", err)
	case errors.Is(rerr, io.ErrUnexpectedEOF):
		return fmt.Errorf("httpx: the server closed the connection after %d bytes of the answer: %w", n, err)
	case errors.Is(rerr, ErrBodyTooLarge):
		return fmt.Errorf("%w (%d bytes)", rerr, maxBody)
	case !IsProtocolError(rerr):
		return fmt.Errorf("httpx: reading the answer: %w", err)
	}
	return err
}

// IsProtocolError reports whether err, or an error it wraps, is a *ProtocolError.
func IsProtocolError(err error) bool {
	var pe *ProtocolError
	return errors.As(err, &pe)
}

// idempotent reports whether a request with method may be sent twice (RFC 9110, 9.2.2).
func idempotent(method string) bool {
	switch method {
	case "GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE", "":
		return true
	}
	return false
}

// closedByPeer reports whether err says the server closed or reset the connection.
func closedByPeer(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, syscall.ECONNABORTED)
}
