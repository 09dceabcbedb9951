package httpx

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rpcbench/rpcbench/transport"
)

// conn is one connection with its buffers. It is used by one request at a time; the fields under mu
// are shared with the goroutine of a context.AfterFunc that interrupts a request when its context is
// done.
type conn struct {
	nc       net.Conn
	pool     *hostPool
	br       *bufio.Reader
	bw       *bufio.Writer
	cw       countingWriter
	uses     int       // requests that completed on this connection
	answered time.Time // when the first byte of the last complete answer came
	req      []byte    // the request's line and headers being written, reused from request to request

	mu       sync.Mutex
	done     <-chan struct{} // Done channel of the context watched
	stop     func() bool     // stops the watch of done
	busy     bool            // a request is in flight
	canceled bool            // the watch interrupted the request in flight
	deadline time.Time       // the end of the request in flight
	timer    *time.Timer     // runs expire; nil until the first request
	timerSet bool            // timer is set, for deadline or an earlier one, and has not fired
	expired  bool            // expire interrupted the request in flight at its deadline

	peeker // tells whether the server wrote to or closed the connection while it was idle
}

// newConn wraps nc (the TLS connection over tcp, or tcp itself).
func newConn(nc, tcp net.Conn, p *hostPool) *conn {
	c := &conn{nc: nc, pool: p, cw: countingWriter{w: nc}}
	c.cw.fuser, _ = nc.(sendWithReader)
	c.peeker.init(tcp)
	c.br = bufio.NewReaderSize(nc, readBufferSize)
	c.bw = bufio.NewWriterSize(&c.cw, writeBufferSize)
	return c
}

// countingWriter counts the bytes written to the connection. While onRead is set, a write is
// handed to the connection's next read instead (SendWithRead); sent tells how it went.
type countingWriter struct {
	w      net.Conn
	n      int64
	fuser  sendWithReader // the connection, when it can write with its next read
	onRead bool
	fused  bool // bytes wait for (or went out with) the next read; sent not yet called
}

// sendWithReader is a connection that can write bytes at the start of its next Read, and wait for
// the answer without first reading an empty socket (transport/rawconn's, on Linux).
type sendWithReader interface {
	SendWithRead(p []byte)
	Sent() (int, error)
}

func (w *countingWriter) Write(p []byte) (int, error) {
	if w.onRead {
		w.fuser.SendWithRead(p)
		w.fused = true
		return len(p), nil
	}
	n, err := w.w.Write(p)
	w.n += int64(n)
	return n, err
}

// sent counts the bytes that the read after a fused write wrote, and returns its error; nil when
// there was no fused write.
func (w *countingWriter) sent() error {
	if !w.fused {
		return nil
	}
	w.fused = false
	n, err := w.fuser.Sent()
	w.n += int64(n)
	return err
}

// begin marks c busy with a request under ctx that must end by deadline (now is the time), and makes
// sure ctx being done interrupts it. Watching costs one context.AfterFunc per connection and
// context, not per request: the engine passes the same run context to every request. The deadline
// is kept by a timer that stays set from request to request (see expire), not by the socket's
// deadline, which would be set and its poller timers moved for every request. begin reports false,
// leaving c idle, when ctx is already done.
func (c *conn) begin(ctx context.Context, now, deadline time.Time) bool {
	done := ctx.Done()
	c.mu.Lock()
	defer c.mu.Unlock()
	if done != c.done {
		if c.stop != nil {
			c.stop()
			c.stop = nil
		}
		c.done = done
		if done != nil {
			c.stop = context.AfterFunc(ctx, func() { c.interrupt(done) })
		}
	}
	// A watch that fired before this point saw c idle and did nothing; ctx.Err is set by then.
	if ctx.Err() != nil {
		return false
	}
	// A request's deadline is later than any before it on c (each counts the same timeout from
	// a later start), so a timer still set fires at this deadline or before it, and is set again
	// then.
	c.deadline = deadline
	if !c.timerSet {
		c.timerSet = true
		if c.timer == nil {
			c.timer = time.AfterFunc(deadline.Sub(now), c.expire)
		} else {
			c.timer.Reset(deadline.Sub(now))
		}
	}
	c.busy = true
	return true
}

// expire is c's timer: it interrupts the request in flight whose deadline has passed, is set again
// for the deadline of one that has not, and is left unset while c is idle (begin sets it).
func (c *conn) expire() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.busy {
		if d := time.Until(c.deadline); d > 0 {
			c.timer.Reset(d)
			return
		}
		c.expired = true
		_ = c.nc.SetDeadline(time.Unix(1, 0)) // the read or write in flight ends with a timeout
	}
	c.timerSet = false
}

// interrupt is the watch of the context whose Done channel is done.
func (c *conn) interrupt(done <-chan struct{}) {
	c.mu.Lock()
	if c.busy && c.done == done {
		c.canceled = true
		_ = c.nc.SetDeadline(time.Unix(1, 0)) // a deadline in the past interrupts any read or write
	}
	c.mu.Unlock()
}

// end marks c idle again and reports whether the watch interrupted the request (canceled), and
// whether the watch or the timer did (interrupted): the socket's deadline is then in the past, and c
// must not carry another request.
func (c *conn) end() (canceled, interrupted bool) {
	c.mu.Lock()
	canceled, interrupted = c.canceled, c.canceled || c.expired
	c.busy, c.canceled, c.expired = false, false, false
	c.mu.Unlock()
	return canceled, interrupted
}

// close closes the connection and stops its watch.
func (c *conn) close() {
	c.mu.Lock()
	if c.stop != nil {
		c.stop()
		c.stop = nil
	}
	if c.timer != nil {
		c.timer.Stop()
	}
	c.mu.Unlock()
	_ = c.nc.Close()
}

// writeRequest writes r (appendHead, then the body) and flushes it.
//
// On a connection that can (plain TCP on Linux), what is left in the buffer at the end goes out
// with the first read of the answer, and cw.sent gives the outcome after it: one system call fewer
// per request. The read buffer must be empty, so that the read is made.
func (c *conn) writeRequest(r *transport.Request, ua string, closeConn bool) error {
	c.req = appendHead(c.req[:0], r, ua, closeConn)
	w := c.bw
	w.Write(c.req)
	w.Write(r.Body)
	if c.cw.fuser == nil || c.br.Buffered() > 0 {
		return w.Flush()
	}
	c.cw.onRead = true
	err := w.Flush()
	c.cw.onRead = false
	return err
}

// appendHead appends the request line and headers of r, in HTTP/1.1, to dst. The request line is r.Method and r.Path; Host comes
// from r.Host, User-Agent from ua (a complete header line), unless r.Header gives either.
// Content-Length is computed from r.Body (and is 0 for POST, PUT and PATCH without a body):
// Content-Length and Transfer-Encoding lines in r.Header are not sent. closeConn adds
// "Connection: close".
func appendHead(dst []byte, r *transport.Request, ua string, closeConn bool) []byte {
	method := r.Method
	if method == "" {
		method = "GET"
	}
	dst = append(dst, method...)
	dst = append(dst, ' ')
	if len(r.Path) == 0 {
		dst = append(dst, '/')
	} else {
		dst = append(dst, r.Path...)
	}
	dst = append(dst, " HTTP/1.1\r\n"...)
	hasHost, hasUA := false, false
	for i := range r.Header {
		switch name := r.Header[i].Name; len(name) {
		case 4:
			hasHost = hasHost || equalFoldString(name, "host")
		case 10:
			hasUA = hasUA || equalFoldString(name, "user-agent")
		}
	}
	if !hasHost {
		dst = append(dst, "Host: "...)
		dst = append(dst, r.Host...)
		dst = append(dst, "\r\n"...)
	}
	if !hasUA {
		dst = append(dst, ua...)
	}
	for i := range r.Header {
		h := &r.Header[i]
		if equalFoldString(h.Name, "content-length") || equalFoldString(h.Name, "transfer-encoding") {
			continue
		}
		dst = append(dst, h.Name...)
		dst = append(dst, ": "...)
		dst = append(dst, h.Value...)
		dst = append(dst, "\r\n"...)
	}
	if len(r.Body) > 0 || method == "POST" || method == "PUT" || method == "PATCH" {
		dst = append(dst, "Content-Length: "...)
		dst = strconv.AppendInt(dst, int64(len(r.Body)), 10)
		dst = append(dst, "\r\n"...)
	}
	if closeConn {
		dst = append(dst, "Connection: close\r\n"...)
	}
	return append(dst, "\r\n"...)
}

// checkRequest returns an error when r would not make a well-formed request: a method that is not a
// token, a path with a space or a line break, a host, header name or value with a line break.
func checkRequest(r *transport.Request) error {
	if r.Method != "" && !isToken([]byte(r.Method)) {
		return fmt.Errorf("httpx: method %q is not a token; use e.g. GET or POST", r.Method)
	}
	if bytes.IndexByte(r.Path, ' ') >= 0 || bytes.IndexByte(r.Path, '\n') >= 0 || bytes.IndexByte(r.Path, '\r') >= 0 {
		return fmt.Errorf("httpx: path %q holds a space or a line break; percent-encode it", r.Path)
	}
	if hasLineBreak(r.Host) {
		return fmt.Errorf("httpx: host %q holds a line break", r.Host)
	}
	for i := range r.Header {
		h := &r.Header[i]
		if !isToken([]byte(h.Name)) {
			return fmt.Errorf("httpx: header name %q is not a token; want letters, digits and !#$%%&'*+-.^_`|~", h.Name)
		}
		if at := strings.IndexAny(h.Value, "\r\n"); at >= 0 { // the value is not told: it may be a secret
			return fmt.Errorf("httpx: header %q: its value holds a line break at byte %d; want a value without line breaks", h.Name, at+1)
		}
	}
	return nil
}

func hasLineBreak(s string) bool {
	return strings.IndexByte(s, '\n') >= 0 || strings.IndexByte(s, '\r') >= 0
}

// equalFoldString reports whether s equals the lower-case ASCII string lower, ignoring ASCII case.
func equalFoldString(s, lower string) bool {
	if len(s) != len(lower) {
		return false
	}
	for i := range len(s) {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}
