package h2

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"

	"github.com/rpcbench/rpcbench/transport"
)

// stream is one request's state. A request takes one from its Transport's pool for its whole
// Do. While the stream is open on a connection, the fields after clock are guarded by the
// connection's mu and set by its readLoop (or the request's timer, or its context's watch); once
// finished (done received), they are the request's.
type stream struct {
	done    chan struct{} // receives one value when the stream is finished
	expired chan struct{} // receives one value when the timer fires while the stream is on no connection
	timer   *time.Timer   // the request's timeout; runs clock.expire
	clock   *streamClock  // the request's deadline, shared with the timer

	id         uint32
	ctxDone    <-chan struct{} // the request's context's
	head       bool            // a HEAD request: its answer has no body
	finished   bool            // done was sent; the stream is off its connection
	reset      bool            // finished on this side (timeout, canceled): to be reset on the connection
	gotFinal   bool            // the final answer's headers arrived
	status     int
	contentLen int64 // the answer's content-length; -1 when it gave none
	firstByte  time.Time
	headerIn   int64 // the answer's header fields as HTTP/1.1 would write them
	bodyLen    int64
	body       []byte // the body kept, when the Transport keeps bodies
	err        error
	unsent     bool        // the server did not process the request (GOAWAY, REFUSED_STREAM)
	sendWindow int64       // what the request's body may still send
	recvAvail  int64       // what the server may still send on the stream
	unacked    int64       // DATA read on the stream but not yet given back with a WINDOW_UPDATE
	grpc       *GRPCAnswer // a gRPC call's answer fields (DoGRPC); nil for others
}

// streamClock is a stream's deadline, between the request and the timer. The timer is not set
// and stopped for every request, which cost a stream two operations on the runtime's timer heap
// per request: set once, it fires at the deadline of the request it was set for or later, and
// expire then sets it again for the deadline of the request running on the stream, if any and
// not yet due, or leaves it unset when none runs. (A Transport has one timeout, so the deadlines
// of the requests a stream carries only grow: the timer, set for an earlier one, is never late.)
type streamClock struct {
	st    *stream
	timer *time.Timer

	mu       sync.Mutex
	deadline time.Time   // the running request's; zero while none runs
	armed    bool        // the timer is set
	fired    bool        // expire ran at or after the deadline: the request is out of time
	cc       *clientConn // the connection the stream is open on, once it is
}

func newStream() any {
	s := &stream{done: make(chan struct{}, 1), expired: make(chan struct{}, 1)}
	s.clock = &streamClock{st: s}
	s.timer = time.AfterFunc(time.Hour, s.clock.expire)
	s.timer.Stop()
	s.clock.timer = s.timer
	return s
}

// begin readies s, on which no request runs, for a request whose kept body goes into body, due
// within timeout, and sets its timer unless it is set already (for an earlier deadline).
func (s *stream) begin(head bool, body []byte, timeout time.Duration) {
	*s = stream{done: s.done, expired: s.expired, timer: s.timer, clock: s.clock, head: head, contentLen: -1, body: body[:0]}
	deadline := time.Now().Add(timeout)
	c := s.clock
	c.mu.Lock()
	c.deadline, c.fired, c.cc = deadline, false, nil
	set := !c.armed
	c.armed = true
	c.mu.Unlock()
	if set {
		s.timer.Reset(timeout)
	}
}

// end reports whether the request on s ended before its deadline passed, and marks that no
// request runs on s; false when the timer fired for it, whose expire may still be running.
func (s *stream) end() bool {
	c := s.clock
	c.mu.Lock()
	defer c.mu.Unlock()
	c.deadline, c.cc = time.Time{}, nil
	return !c.fired
}

// goneAway reports whether s, finished, failed because a GOAWAY left it unprocessed.
func (s *stream) goneAway() bool {
	_, ok := s.err.(goAwayError)
	return ok && s.unsent
}

// retry readies s, finished unprocessed, for another attempt on another connection, its timer
// still running; false when the timer fired: the request is out of time.
func (s *stream) retry() bool {
	c := s.clock
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fired {
		return false
	}
	c.cc = nil // from now on the timer tells the request, waiting for a connection or a stream
	s.id, s.ctxDone, s.finished, s.reset, s.err, s.unsent = 0, nil, false, false, nil, false
	s.gotFinal, s.status, s.contentLen, s.firstByte = false, 0, -1, time.Time{}
	s.headerIn, s.bodyLen, s.body = 0, 0, s.body[:0]
	s.sendWindow, s.recvAvail, s.unacked = 0, 0, 0
	if s.grpc != nil {
		s.grpc.reset()
	}
	return true
}

// expire is the timer's. Once the running request's deadline passed, it finishes the stream with
// errTimeout if it is open on a connection, else tells the request waiting for one. Before the
// deadline (the timer was set for an earlier request) it sets the timer again for it; with no
// request running, it leaves the timer unset.
func (c *streamClock) expire() {
	c.mu.Lock()
	if c.deadline.IsZero() {
		c.armed = false
		c.mu.Unlock()
		return
	}
	if left := time.Until(c.deadline); left > 0 {
		c.timer.Reset(left)
		c.mu.Unlock()
		return
	}
	c.fired, c.armed = true, false
	cc := c.cc
	c.mu.Unlock()
	s := c.st
	if cc == nil {
		select {
		case s.expired <- struct{}{}:
		default:
		}
		return
	}
	cc.mu.Lock()
	if !s.finished {
		s.reset = true
		cc.finish(s, errTimeout)
	}
	cc.mu.Unlock()
}

// open records that s is open on cc, unless its timer fired. cc.mu is held.
func (s *stream) open(cc *clientConn) bool {
	c := s.clock
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.fired {
		c.cc = cc
	}
	return !c.fired
}

// errTimeout is the error of a request that ran out of time.
var errTimeout = &timeoutError{}

type timeoutError struct{}

func (*timeoutError) Error() string   { return "h2: no answer within the request's timeout" }
func (*timeoutError) Timeout() bool   { return true }
func (*timeoutError) Temporary() bool { return true }
func (*timeoutError) Unwrap() error   { return context.DeadlineExceeded }

// noStreamError is the error of a request that ran out of time waiting for a stream on a
// connection: the server's SETTINGS_MAX_CONCURRENT_STREAMS (max) were all open, or were 0.
// Nothing of the request was sent.
type noStreamError struct{ max uint32 }

func (e noStreamError) Error() string {
	if e.max == 0 {
		return "h2: no stream opened within the request's timeout: the server's SETTINGS allow none (MAX_CONCURRENT_STREAMS 0)"
	}
	return fmt.Sprintf("h2: no stream opened within the request's timeout: the server's MAX_CONCURRENT_STREAMS (%d) were all open", e.max)
}
func (noStreamError) Timeout() bool   { return true }
func (noStreamError) Temporary() bool { return true }
func (noStreamError) Unwrap() error   { return context.DeadlineExceeded }

// reserve takes a stream slot on cc, waiting while the server's SETTINGS_MAX_CONCURRENT_STREAMS
// are all open. It returns errRetired when cc takes no new streams, and a noStreamError when the
// request's timeout passed while it waited.
func (cc *clientConn) reserve(ctx context.Context, st *stream) error {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	for {
		if cc.retired.Load() {
			return errRetired
		}
		if uint32(cc.active) < cc.maxStreams {
			cc.active++
			return nil
		}
		ch := cc.wait.channel()
		cc.mu.Unlock()
		err := sleep(ctx, st, ch)
		cc.mu.Lock()
		if err == errTimeout {
			return noStreamError{cc.maxStreams}
		}
		if err != nil {
			return err
		}
	}
}

// sleep waits for ch, ctx or st's timeout.
func sleep(ctx context.Context, st *stream, ch <-chan struct{}) error {
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-st.expired:
		return errTimeout
	}
}

// roundTrip sends r on cc as st and waits until st is finished: answered, failed, or cut short
// by ctx or st's timeout. It returns errRetired, having sent nothing, when cc takes no new
// stream, and ctx's error or errTimeout when the request ended before it was sent; any other
// failure is in st.err. out gets Sent and BytesOut.
func (cc *clientConn) roundTrip(ctx context.Context, r *transport.Request, st *stream, out *transport.Outcome) error {
	if err := cc.reserve(ctx, st); err != nil {
		return err
	}
	cc.lockWrite()
	cc.mu.Lock()
	var err error
	switch {
	case cc.retired.Load():
		err = errRetired
	case ctx.Err() != nil: // its watch may have run
		err = ctx.Err()
	case !st.open(cc):
		err = errTimeout
	}
	if err != nil {
		cc.active--
		cc.wait.broadcast()
		cc.mu.Unlock()
		cc.unlockWrite()
		return err
	}
	watched := cc.watch(ctx)
	st.id = cc.nextID
	cc.nextID += 2
	if cc.nextID > maxStreamID {
		cc.retire()
	}
	st.ctxDone = ctx.Done()
	st.sendWindow = int64(cc.initWindow)
	st.recvAvail = int64(cc.streamWindow)
	frameSize := int(cc.maxFrame)
	cc.streams[st.id] = st
	cc.mu.Unlock()

	out.Sent = time.Now()
	n, err := cc.writeHeaders(r, st.id, frameSize)
	out.BytesOut += n // after an attempt a GOAWAY left unprocessed, both
	if err == nil && len(r.Body) > 0 {
		err = cc.writeBody(ctx, st, r.Body)
	}
	cc.unlockWrite()
	if err != nil {
		cc.breakWith(writeError(err))
	}
	if watched {
		<-st.done // the connection's watch of ctx finishes st when ctx is done
	} else {
		select {
		case <-st.done:
		case <-ctx.Done():
			cc.mu.Lock()
			if !st.finished {
				st.reset = true
				cc.finish(st, ctx.Err())
			}
			cc.mu.Unlock()
			<-st.done
		}
	}
	if st.reset {
		cc.lockWrite()
		_ = cc.fr.WriteRSTStream(st.id, http2.ErrCodeCancel)
		cc.unlockWrite()
	}
	return nil
}

// watch makes sure that ctx being done finishes the streams open under it, and reports whether
// it does: one context.AfterFunc per connection and context, not per request, since the engine
// passes the same run context to every request. A connection watches one live context at a
// time; a request under another waits for it itself. cc.mu is held.
func (cc *clientConn) watch(ctx context.Context) bool {
	done := ctx.Done()
	switch {
	case done == nil || done == cc.watched:
		return true
	case cc.watched != nil:
		select {
		case <-cc.watched: // done: watch ctx instead
			cc.stopWatch()
		default:
			return false
		}
	}
	cc.watched = done
	cc.stopWatch = context.AfterFunc(ctx, func() {
		err := ctx.Err()
		cc.mu.Lock()
		for _, st := range cc.streams {
			if st.ctxDone == done {
				st.reset = true
				cc.finish(st, err)
			}
		}
		cc.mu.Unlock()
	})
	return true
}

// finish ends st with err (nil: answered) and takes it off the connection. cc.mu is held.
func (cc *clientConn) finish(st *stream, err error) {
	if st.finished {
		return
	}
	st.finished, st.err = true, err
	delete(cc.streams, st.id)
	cc.active--
	cc.wait.broadcast()
	st.done <- struct{}{}
}

// writeHeaders writes r's header block in a HEADERS frame (and CONTINUATION frames beyond
// frameSize), ending stream id when r has no body. It returns the bytes counted as sent: the body
// and the header fields as HTTP/1.1 would write them, pseudo-fields aside. The write lock is held.
func (cc *clientConn) writeHeaders(r *transport.Request, id uint32, frameSize int) (int64, error) {
	block := cc.headerBlock(r)
	if len(r.Body) > 0 {
		cc.hbuf.Reset()
		cc.hbuf.Write(block)
		cl := strconv.AppendInt(cc.num[:0], int64(len(r.Body)), 10)
		_ = cc.henc.WriteField(hpack.HeaderField{Name: "content-length", Value: unsafe.String(&cl[0], len(cl)), Sensitive: true})
		block = cc.hbuf.Bytes()
	}
	end := len(r.Body) == 0
	chunk := block[:min(len(block), frameSize)]
	block = block[len(chunk):]
	err := cc.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: chunk, EndStream: end, EndHeaders: len(block) == 0})
	for err == nil && len(block) > 0 {
		chunk = block[:min(len(block), frameSize)]
		block = block[len(chunk):]
		err = cc.fr.WriteContinuation(id, len(block) == 0, chunk)
	}
	return requestBytes(r, cc.ua), err
}

// requestBytes counts r's body and header fields as HTTP/1.1 would write them, with User-Agent ua
// unless r has one.
func requestBytes(r *transport.Request, ua string) int64 {
	n, hasUA := int64(len(r.Body)), false
	for i := range r.Header {
		h := &r.Header[i]
		if skipHeader(h.Name) {
			continue
		}
		hasUA = hasUA || len(h.Name) == 10 && strings.EqualFold(h.Name, "user-agent")
		n += int64(len(h.Name) + len(h.Value) + 4)
	}
	if !hasUA {
		n += int64(len("User-Agent") + len(ua) + 4)
	}
	return n
}

// headerBlock returns r's header block, content-length aside. A block whose every field is an
// index into the tables changes neither side's table, so while requests repeat the fields of the
// one that made it (the common case: one method, one path), it is sent again as it is, without
// encoding. The write lock is held.
func (cc *clientConn) headerBlock(r *transport.Request) []byte {
	key := cc.key[:0]
	key = append(append(key, r.Method...), 0)
	key = append(append(key, r.Host...), 0)
	key = append(append(key, r.Path...), 0)
	for i := range r.Header {
		key = append(append(key, r.Header[i].Name...), 0)
		key = append(append(key, r.Header[i].Value...), 0)
	}
	if cc.blockKept && bytes.Equal(key, cc.blockKey) {
		cc.key = key
		return cc.block
	}
	cc.key, cc.blockKey = cc.blockKey, key
	cc.hbuf.Reset()
	fields := cc.encode(r)
	cc.block = append(cc.block[:0], cc.hbuf.Bytes()...)
	cc.blockKept = len(cc.block) == fields // one byte a field: an index each (see allIndexed)
	for _, b := range cc.block {
		cc.blockKept = cc.blockKept && b&0x80 != 0
	}
	return cc.block
}

// encode encodes r's header fields but content-length into cc.hbuf and returns how many it
// encoded. The write lock is held.
func (cc *clientConn) encode(r *transport.Request) (fields int) {
	e := cc.henc
	authority, hasUA := r.Host, false
	for i := range r.Header {
		switch name := r.Header[i].Name; len(name) {
		case 4:
			if strings.EqualFold(name, "host") {
				authority = r.Header[i].Value
			}
		case 10:
			hasUA = hasUA || strings.EqualFold(name, "user-agent")
		}
	}
	method := r.Method
	if method == "" {
		method = "GET"
	}
	path := r.Path
	if len(path) == 0 {
		path = slash
	}
	cc.field(e, ":method", true, method)
	_ = e.WriteField(hpack.HeaderField{Name: ":scheme", Value: cc.scheme})
	cc.field(e, ":authority", true, authority)
	cc.field(e, ":path", true, unsafe.String(&path[0], len(path)))
	fields = 4
	if !hasUA {
		_ = e.WriteField(hpack.HeaderField{Name: "user-agent", Value: cc.ua})
		fields++
	}
	for i := range r.Header {
		h := &r.Header[i]
		if skipHeader(h.Name) {
			continue
		}
		name, kept := cc.lowerName(h.Name)
		cc.field(e, name, kept, h.Value)
		fields++
	}
	return fields
}

var slash = []byte("/")

// field encodes name: value, indexed when both strings may be kept (the encoder keeps indexed
// fields in its table; keep says so of name), else as never indexed, for a request's strings may
// point into buffers that the next request overwrites.
func (cc *clientConn) field(e *hpack.Encoder, name string, keep bool, value string) {
	v, ok := cc.stable(value)
	if !ok || !keep {
		_ = e.WriteField(hpack.HeaderField{Name: name, Value: value, Sensitive: true})
		return
	}
	_ = e.WriteField(hpack.HeaderField{Name: name, Value: v})
}

// Bounds of a connection's copies of request strings.
const (
	maxStable    = 64  // values
	maxStableLen = 128 // bytes each
	maxLower     = 64  // header names
)

// stable returns v, or the copy of v the connection keeps, and whether it may be kept: a copy is
// made the first time a value is seen, for up to maxStable values of up to maxStableLen bytes.
// The write lock is held.
func (cc *clientConn) stable(v string) (string, bool) {
	if s, ok := cc.stables[v]; ok {
		return s, true
	}
	if len(cc.stables) >= maxStable || len(v) > maxStableLen {
		return v, false
	}
	s := string([]byte(v))
	cc.stables[s] = s
	return s, true
}

// lowerName returns name in lower case, as HTTP/2 wants header names, from the connection's
// copies (made the first time, for up to maxLower names; kept is true) or else in a scratch
// buffer. The write lock is held.
func (cc *clientConn) lowerName(name string) (lower string, kept bool) {
	if s, ok := cc.lower[name]; ok {
		return s, true
	}
	b := cc.lowerBuf[:0]
	for i := range len(name) {
		c := name[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	cc.lowerBuf = b
	if len(cc.lower) >= maxLower {
		return unsafe.String(unsafe.SliceData(b), len(b)), false
	}
	s := string(b)
	cc.lower[string([]byte(name))] = s
	return s, true
}

// skipHeader reports whether a request header is not sent as a header field: Host (it is
// :authority), those HTTP/2 forbids, and Content-Length (computed from the body).
func skipHeader(name string) bool {
	switch len(name) {
	case 4:
		return strings.EqualFold(name, "host")
	case 7:
		return strings.EqualFold(name, "upgrade")
	case 10:
		return strings.EqualFold(name, "connection") || strings.EqualFold(name, "keep-alive")
	case 14:
		return strings.EqualFold(name, "content-length")
	case 16:
		return strings.EqualFold(name, "proxy-connection")
	case 17:
		return strings.EqualFold(name, "transfer-encoding")
	}
	return false
}

// writeBody writes body in DATA frames as the server's windows allow, ending the stream. While
// a window is shut it waits without the write lock, until the server opens it or st is finished
// (answered, failed, out of time, or its context done). The write lock is held on entry and on
// return.
func (cc *clientConn) writeBody(ctx context.Context, st *stream, body []byte) error {
	for len(body) > 0 {
		cc.mu.Lock()
		if st.finished {
			answered := st.err == nil
			cc.mu.Unlock()
			if answered { // the server answered before reading it all: close our side
				return cc.fr.WriteRSTStream(st.id, http2.ErrCodeCancel)
			}
			return nil
		}
		n := min(int64(len(body)), int64(cc.maxFrame), cc.sendWindow, st.sendWindow)
		if n <= 0 {
			ch := cc.wait.channel()
			cc.mu.Unlock()
			cc.unlockWrite()
			select {
			case <-ch:
			case <-ctx.Done(): // finish st, unless the connection's watch does
				cc.mu.Lock()
				if !st.finished {
					st.reset = true
					cc.finish(st, ctx.Err())
				}
				cc.mu.Unlock()
			}
			cc.lockWrite()
			continue
		}
		cc.sendWindow -= n
		st.sendWindow -= n
		cc.mu.Unlock()
		if err := cc.fr.WriteData(st.id, int(n) == len(body), body[:n]); err != nil {
			return err
		}
		body = body[n:]
	}
	return nil
}
