package httpx

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/transport"
	"github.com/rpcbench/rpcbench/transport/rawconn"
)

// Loop sends HTTP/1.1 requests to one host over plain TCP from a single goroutine that owns its
// connections, as wrk's event loop does: one wait covers the answers of every connection, a timer
// and the wake-ups of other goroutines, so that a request costs no goroutine parked and woken, no
// look at an idle connection (the wait already says whether the server wrote to it or closed it)
// and, when answers may wait for the next wake-up, no wake-up of its own.
//
// The wait is an epoll set of the Loop's own that the runtime's poller watches like a socket: the
// goroutine that calls Run parks in the runtime (holding no thread and no P) until it is readable.
// Made with prompt, the Loop has its connections in that set; otherwise in a second set, added to
// the first while answers must wake the Loop at once (Driver.Wake's prompt, or whenever letting
// them wait is not safe: see lazy); else they are read at the next wake-up. Each answer is timed by
// the kernel's receive timestamp of its last packet (SO_TIMESTAMPNS), not by when it was read, so
// that reading late does not make an answer late.
//
// A Loop behaves as Transport does for one host: the same request bytes (appendHead), the same
// parser, the same retry of an idempotent request on a reused connection that the server closed,
// the same classes of failure; connections are opened by Transport's dial (on a goroutine each,
// then handed to the Loop) and count against the Loop's cap. It is not safe for concurrent use:
// only Wakeup may be called from other goroutines.
type Loop struct {
	t    *Transport
	pool *hostPool

	ep   int      // the connections' epoll set
	wait int      // the set the runtime's poller watches: timer, wake-up and, while prompt, ep
	wf   *os.File // wait, in the runtime's poller, which owns the descriptor
	rc   syscall.RawConn
	tfd  int // timerfd
	efd  int // eventfd of Wakeup and of finished dials

	prompt bool // ep is in wait
	flat   bool // ep is wait: answers always wake the Loop

	slots   []*lconn
	free    []*lconn // slots with no connection
	idle    []*lconn // open idle connections, the most recently used last
	busy    int      // calls started and not finished
	writing int      // connections with a request partly written, waiting for room

	armed    time.Time // when the timer will fire; zero: not set
	earliest time.Time // no call in flight has a deadline before it

	ctx    context.Context // the dials'; cancelled by Abort and Close
	cancel context.CancelFunc
	mu     sync.Mutex
	dialed []dialed // finished dials, under mu
	closed bool     // under mu
	woken  atomic.Bool

	driver  Driver
	events  []unix.EpollEvent
	oob     [64]byte
	msg     unix.Msghdr
	iov     unix.Iovec
	br      *bufio.Reader
	src     answerSource
	spec    unix.ItimerSpec
	efdBuf  [8]byte
	ctl     unix.EpollEvent       // epoll_ctl's argument, kept so that it does not escape per call
	trailer []byte                // judgeTrailer's scratch
	parses  int                   // the parser's passes over answers read (tests: a pass per read would be quadratic)
	answers int                   // answers read
	big     bool                  // an answer was larger than lazyMaxAnswer, or came in pieces
	horizon time.Duration         // lazyHorizon; tests set it longer
	more    bool                  // a read stopped at readBudget: go round again
	budget  int                   // readBudget; tests set it smaller
	turns   int                   // reads stopped at the budget
	now     time.Time             // the clock as stamp last read it
	wall    int64                 // now's wall clock, in ns
	step    func(fd uintptr) bool // made once: a method value allocates
	runErr  error
	keep    bool
	maxBody int64
	// stamping is set while the kernel stamps the answers read (SO_TIMESTAMPNS): they may then
	// wait for the next wake-up.
	stamping bool
}

// Driver decides what a Loop sends and when; its methods run on the goroutine that called Run.
type Driver interface {
	// Wake is called each time the Loop wakes, and first when Run starts. It starts calls (Loop.Start)
	// and returns when it wants to be woken next (zero: no time of its own), whether an answer
	// must wake the Loop at once (prompt; otherwise answers are read at the next wake-up), and
	// whether it is done: Run then returns as soon as no call is in flight (answers wake the Loop
	// at once meanwhile).
	Wake(now time.Time) (next time.Time, prompt, done bool)
	// Finished is called with each call that ended, answered or failed; the call is the driver's
	// again. It must not call Start: Wake does, once the answers read are all finished.
	Finished(c *Call)
}

// Call is one request on a Loop: fill Req, Start it, and the Driver's Finished gets it back with
// Out filled in as Transport.Do fills it, and Done set.
type Call struct {
	Req transport.Request
	Out transport.Outcome
	// Done is when the call ended: for an answer, when its last packet reached this host (the
	// kernel's receive timestamp; the time it was read where the kernel gives none); for a failure,
	// when the Loop found it.
	Done time.Time
	// ID is the driver's, to find its own record of the call; the Loop does not touch it.
	ID int

	deadline time.Time
	conn     *lconn
}

// ErrNoLoop is returned by NewLoop for what a Loop does not serve.
var ErrNoLoop = errors.New("httpx: no event loop for this")

// answer states of a slot
const (
	slotFree    = iota // no connection
	slotDialing        // a connection is being opened for the call
	slotIdle           // open, no request
	slotBusy           // open, a request written or being written
)

type lconn struct {
	idx   int
	fd    int
	state int
	call  *Call
	uses  int    // answers read on the connection
	out   []byte // the request being written: its head, and its body when small
	body  []byte // the request's body when large, written after out from the request itself
	woff  int    // bytes of out, then body, written
	werr  error  // writing failed after some bytes went out: the answer may still come
	in    []byte // bytes read and not yet consumed
	need  int    // parse again once in holds this many bytes
	eof   bool   // the server closed its side
	first bool   // the first bytes of the answer have come
	last  time.Time
	// A body not kept is read as it comes, once the answer's head is parsed, instead of being held
	// whole (an endless one would fill the memory): stream is its framing, bodyNone before.
	stream  int8
	status  int    // the answer's status, from its head
	closing bool   // the answer says the connection ends with it
	n       int64  // bytes of the answer read, head included
	left    int64  // bodyFixed: body bytes to come; bodyChunked: bytes of the chunk's data to come
	cstate  int8   // bodyChunked: what comes next
	line    []byte // bodyChunked: a chunk size or trailer line so far
	lines   int    // bodyChunked: trailer lines so far
	pending bool   // the read being handled filled its room: the socket may hold more
	// laddr and raddr are the connection's addresses, for errors.
	laddr, raddr net.Addr
	// wantOut is set while the connection waits for room to write the rest of a request.
	wantOut bool
}

type dialed struct {
	lc  *lconn
	fd  int
	ev  result.ConnEvent
	err error
}

// Marks of the timer and the wake-up in an epoll set (EpollEvent.Fd); a connection's is its slot.
const (
	markTimer = -1
	markWake  = -3
)

// errIncomplete is answerSource's error at the end of the bytes read so far.
var errIncomplete = errors.New("httpx: answer incomplete")

// answerSource hands the parser the bytes of a connection read so far, then errIncomplete (or
// io.EOF when the server closed its side).
type answerSource struct {
	b   []byte
	eof bool
}

func (s *answerSource) Read(p []byte) (int, error) {
	if len(s.b) == 0 {
		if s.eof {
			return 0, io.EOF
		}
		return 0, errIncomplete
	}
	n := copy(p, s.b)
	s.b = s.b[n:]
	return n, nil
}

// NewLoop returns a Loop of at most conns connections to host over scheme, which must be http, with
// opts (DisableKeepAlive is not served: ErrNoLoop). Close it after Run.
//
// With prompt, every answer wakes the Loop, whatever Driver.Wake says (the closed model's use):
// the connections are then in the wait set itself, a level of epoll fewer for each answer to wake.
func NewLoop(opts Options, scheme, host string, conns int, prompt bool) (*Loop, error) {
	if scheme != "http" || opts.DisableKeepAlive || conns < 1 {
		return nil, ErrNoLoop
	}
	t, err := New(opts)
	if err != nil {
		return nil, err
	}
	p, err := t.newPool(scheme, host)
	if err != nil {
		return nil, err
	}
	l := &Loop{t: t, pool: p, ep: -1, wait: -1, tfd: -1, efd: -1, keep: opts.KeepBody, maxBody: t.maxBody, flat: prompt, prompt: prompt, horizon: lazyHorizon, budget: readBudget}
	l.ctx, l.cancel = context.WithCancel(context.Background())
	if err := l.open(); err != nil {
		l.Close()
		return nil, err
	}
	l.slots = make([]*lconn, conns)
	for i := range l.slots {
		l.slots[i] = &lconn{idx: i, fd: -1}
	}
	for i := len(l.slots) - 1; i >= 0; i-- {
		l.free = append(l.free, l.slots[i])
	}
	l.events = make([]unix.EpollEvent, min(conns, 256)+2)
	l.br = bufio.NewReaderSize(&l.src, readBufferSize)
	l.step = l.iterate
	return l, nil
}

// open makes the epoll sets, the timer and the eventfd.
func (l *Loop) open() error {
	var err error
	if l.wait, err = unix.EpollCreate1(unix.EPOLL_CLOEXEC); err != nil {
		return fmt.Errorf("httpx: epoll: %w", err)
	}
	l.ep = l.wait
	if !l.flat {
		if l.ep, err = unix.EpollCreate1(unix.EPOLL_CLOEXEC); err != nil {
			return fmt.Errorf("httpx: epoll: %w", err)
		}
	}
	if l.tfd, err = unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC); err != nil {
		return fmt.Errorf("httpx: timerfd: %w", err)
	}
	if l.efd, err = unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC); err != nil {
		return fmt.Errorf("httpx: eventfd: %w", err)
	}
	for _, ev := range []unix.EpollEvent{{Events: unix.EPOLLIN, Fd: markTimer}, {Events: unix.EPOLLIN, Fd: markWake}} {
		fd := l.tfd
		if ev.Fd == markWake {
			fd = l.efd
		}
		if err := unix.EpollCtl(l.wait, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
			return fmt.Errorf("httpx: epoll: %w", err)
		}
	}
	if err := unix.SetNonblock(l.wait, true); err != nil {
		return fmt.Errorf("httpx: epoll: %w", err)
	}
	l.wf = os.NewFile(uintptr(l.wait), "epoll")
	if l.rc, err = l.wf.SyscallConn(); err != nil {
		return fmt.Errorf("httpx: epoll: %w", err)
	}
	return nil
}

// Close closes the Loop's connections and descriptors. Calls in flight are forgotten: Abort first
// to have them finished.
func (l *Loop) Close() error {
	l.mu.Lock()
	l.closed = true
	pending := l.dialed
	l.dialed = nil
	l.mu.Unlock()
	l.cancel()
	for _, d := range pending {
		if d.err == nil {
			_ = unix.Close(d.fd)
		}
	}
	for _, lc := range l.slots {
		if lc.fd >= 0 {
			_ = unix.Close(lc.fd)
			lc.fd = -1
		}
	}
	if l.ep != l.wait && l.ep >= 0 {
		_ = unix.Close(l.ep)
	}
	for _, fd := range []int{l.tfd, l.efd} {
		if fd >= 0 {
			_ = unix.Close(fd)
		}
	}
	l.ep, l.tfd, l.efd = -1, -1, -1
	if l.wf != nil {
		_ = l.wf.Close()
	} else if l.wait >= 0 {
		_ = unix.Close(l.wait)
	}
	l.wait = -1
	return nil
}

// Wakeup makes the Loop wake and call its Driver's Wake soon. Safe from any goroutine.
func (l *Loop) Wakeup() {
	l.woken.Store(true)
	l.mu.Lock()
	if !l.closed {
		l.kick()
	}
	l.mu.Unlock()
}

// kick makes the wait set readable. Called with mu held, before Close.
func (l *Loop) kick() {
	one := [8]byte{1}
	_, _, _ = unix.RawSyscall(unix.SYS_WRITE, uintptr(l.efd), uintptr(unsafe.Pointer(&one[0])), 8)
}

// Run runs d until it is done and no call is in flight.
func (l *Loop) Run(d Driver) error {
	l.driver = d
	if err := l.rc.Read(l.step); err != nil {
		return err
	}
	return l.runErr
}

// iterate is one wake-up of the Loop, run by the runtime's poller each time the wait set is
// readable (and first at once). It returns true when the Loop is finished.
func (l *Loop) iterate(uintptr) bool {
	for {
		if l.woken.Swap(false) {
			_, _, _ = unix.RawSyscall(unix.SYS_READ, uintptr(l.efd), uintptr(unsafe.Pointer(&l.efdBuf[0])), 8)
		}
		l.takeDialed()
		l.drain()
		now := time.Now()
		if l.busy > 0 && !now.Before(l.earliest) {
			l.expire(now)
		}
		next, prompt, done := l.driver.Wake(now)
		if done && l.busy == 0 {
			return true
		}
		prompt = prompt || done || l.writing > 0 || !l.lazy(now, next)
		if prompt != l.prompt && !l.flat {
			op := unix.EPOLL_CTL_DEL
			if prompt {
				op = unix.EPOLL_CTL_ADD
			}
			l.ctl = unix.EpollEvent{Events: unix.EPOLLIN, Fd: -2}
			if err := unix.EpollCtl(l.wait, op, l.ep, &l.ctl); err != nil {
				l.runErr = fmt.Errorf("httpx: epoll: %w", err)
				return true
			}
			l.prompt = prompt
			continue // answers that came meanwhile are read before waiting
		}
		if l.more {
			l.more = false
			continue // a connection has more to read: after the others and the arrivals had a turn
		}
		target := next
		if l.busy > 0 && (target.IsZero() || l.earliest.Before(target)) {
			target = l.earliest
		}
		if target.IsZero() || target.Equal(l.armed) && now.Before(target) {
			return false // nothing to wait for but answers, or the timer is set for it already
		}
		d := time.Until(target)
		if d <= 0 {
			continue
		}
		l.spec.Value = unix.NsecToTimespec(int64(d))
		if _, _, e := unix.RawSyscall6(unix.SYS_TIMERFD_SETTIME, uintptr(l.tfd), 0, uintptr(unsafe.Pointer(&l.spec)), 0, 0, 0); e != 0 {
			l.runErr = fmt.Errorf("httpx: timerfd: %w", e)
			return true
		}
		l.armed = target
		return false
	}
}

// Answers may wait for the next wake-up (lazy) only when waiting cannot make them late:
//   - the kernel is seen to stamp them (it starts a moment after the first socket asks: a global
//     switch it turns on in the background; an answer without a stamp is timed when it is read);
//   - they are small: every answer so far fitted lazyMaxAnswer and came whole at once — a larger
//     one may fill the socket's buffer, and the server then waits for the read, so that even its
//     last packet's stamp is late — over at least lazyLearn answers, read promptly;
//   - the next wake-up is near (lazyHorizon, or LazyWithin's): a surprise (the first large answer)
//     is late by at most that, once, before answers wake the Loop for the rest of the run.
//
// An answer read late has no true first byte: the kernel merges packets that wait in a socket and
// keeps the last one's stamp. Its FirstByte is the stamp of its first read; a Driver that lets
// answers wait should not report it.
const (
	lazyMaxAnswer = 16 << 10
	lazyLearn     = 16
	lazyHorizon   = 2 * time.Millisecond
)

// Of a connection's turn: bytes it reads at most (read); a request body up to smallBody goes in the
// same write as the request's head, copied after it, a larger one is written from the request.
const (
	readBudget = 256 << 10
	smallBody  = 16 << 10
)

// LazyWithin lets answers wait for a wake-up up to d away (lazyHorizon by default), when the
// Driver allows it.
func (l *Loop) LazyWithin(d time.Duration) { l.horizon = d }

func (l *Loop) lazy(now, next time.Time) bool {
	return l.stamping && !l.big && l.answers >= lazyLearn && !next.IsZero() && next.Sub(now) <= l.horizon
}

// Start sends c on an idle connection, or opens one for it when the Loop has a slot without one;
// it returns false, leaving c the caller's, when every slot is busy. now is when the call starts:
// its timeout counts from the send on an idle connection, from now while one is opened. A call that
// cannot be made well-formed fails at once (Finished).
func (l *Loop) Start(c *Call, now time.Time) bool {
	if err := checkRequest(&c.Req); err != nil {
		c.Out.Class, c.Out.Err = result.Other, err
		l.busy++
		l.finish(c, now)
		return true
	}
	var lc *lconn
	switch {
	case len(l.idle) > 0:
		lc = l.idle[len(l.idle)-1]
		l.idle = l.idle[:len(l.idle)-1]
	case len(l.free) > 0:
		lc = l.free[len(l.free)-1]
		l.free = l.free[:len(l.free)-1]
	default:
		return false
	}
	l.busy++
	lc.call, c.conn, c.deadline = c, lc, time.Time{}
	if cap(lc.out) > 4*smallBody {
		lc.out = nil // a large head once does not hold its memory for the rest of the run
	}
	lc.out = appendHead(lc.out[:0], &c.Req, l.t.uaLine, false)
	lc.body = c.Req.Body
	if len(lc.body) <= smallBody {
		lc.out, lc.body = append(lc.out, lc.body...), nil
	}
	if lc.state == slotIdle {
		l.send(lc, now)
	} else {
		c.deadline = now.Add(l.t.timeout)
		l.noteDeadline(c.deadline)
		l.dial(lc)
	}
	return true
}

// Abort ends every call in flight with class Canceled and err, closing their connections, and
// stops opening connections.
func (l *Loop) Abort(err error) {
	l.cancel()
	now := time.Now()
	for _, lc := range l.slots {
		if c := lc.call; c != nil && lc.state != slotFree {
			c.Out.Class, c.Out.Err = result.Canceled, err
			if lc.state == slotDialing {
				// its connection was being opened, and will not be: as Transport counts a dial
				// cut short
				c.Out.Opened, c.Out.Conn.Failed = true, true
			}
			l.drop(lc) // a dial's connection is closed when it comes
			l.finish(c, now)
		}
	}
}

// send writes lc's request, its call's Sent now.
func (l *Loop) send(lc *lconn, now time.Time) {
	c := lc.call
	lc.state = slotBusy
	lc.woff, lc.werr, lc.need, lc.first, lc.stream = 0, nil, 0, false, bodyNone
	c.Out.Sent = now
	if c.deadline.IsZero() {
		c.deadline = now.Add(l.t.timeout)
	}
	// Noted again after a connection was opened for it: a turn of expire meanwhile looked past
	// calls still connecting.
	l.noteDeadline(c.deadline)
	l.write(lc)
}

// write writes what is left of lc's request, and waits for room when the socket is full.
func (l *Loop) write(lc *lconn) {
	c := lc.call
	for {
		var p []byte
		switch k := lc.woff - len(lc.out); {
		case k < 0:
			p = lc.out[lc.woff:]
		case k < len(lc.body):
			p = lc.body[k:]
		default:
			p = nil
		}
		if len(p) == 0 {
			break
		}
		n, _, e := unix.RawSyscall(unix.SYS_WRITE, uintptr(lc.fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
		switch e {
		case 0:
			lc.woff += int(n)
			c.Out.BytesOut += int64(n)
			continue
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			if !lc.wantOut {
				l.watchOut(lc, true)
			}
			return
		}
		err := lc.opError("write", os.NewSyscallError("write", e))
		if lc.wantOut {
			l.watchOut(lc, false)
		}
		if lc.woff == 0 {
			// Not a byte went out: whatever the connection holds answers no request of ours.
			l.failed(lc, err, nil, 0)
			return
		}
		lc.werr = err // the server may answer before reading all of it (a 413, say): read on
		return
	}
	if lc.wantOut {
		l.watchOut(lc, false)
	}
}

func (l *Loop) watchOut(lc *lconn, on bool) {
	l.ctl = unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLRDHUP, Fd: int32(lc.idx)}
	if on {
		l.ctl.Events |= unix.EPOLLOUT
		l.writing++
	} else {
		l.writing--
	}
	lc.wantOut = on
	_ = unix.EpollCtl(l.ep, unix.EPOLL_CTL_MOD, lc.fd, &l.ctl)
}

// dial opens a connection for lc's call on a goroutine of its own, with Transport's dial; the Loop
// takes it (takeDialed) when the eventfd wakes it.
func (l *Loop) dial(lc *lconn) {
	lc.state = slotDialing
	deadline := lc.call.deadline
	go func() {
		d := dialed{lc: lc, fd: -1}
		c, ev, err := l.t.dial(l.ctx, l.pool, deadline)
		d.ev, d.err = ev, err
		if err == nil {
			d.fd, d.err = detach(c)
		}
		l.mu.Lock()
		if l.closed {
			l.mu.Unlock()
			if d.err == nil {
				_ = unix.Close(d.fd)
			}
			return
		}
		l.dialed = append(l.dialed, d)
		l.kick()
		l.mu.Unlock()
	}()
}

// detach takes the socket of c out of the runtime's poller: a copy of its descriptor, then c closed.
func detach(c *conn) (int, error) {
	tc, ok := rawconn.Unwrap(c.nc).(*net.TCPConn)
	if !ok {
		_ = c.nc.Close()
		return -1, fmt.Errorf("httpx: not a TCP connection")
	}
	raw, err := tc.SyscallConn()
	fd := -1
	if err == nil {
		cerr := raw.Control(func(s uintptr) {
			fd, err = unix.FcntlInt(s, unix.F_DUPFD_CLOEXEC, 0)
		})
		if err == nil {
			err = cerr
		}
	}
	_ = tc.Close()
	if err != nil {
		return -1, fmt.Errorf("httpx: taking the connection: %w", err)
	}
	return fd, nil
}

// takeDialed takes the connections that finished opening: each one's call is sent on it, or fails
// when it did not open.
func (l *Loop) takeDialed() {
	l.mu.Lock()
	ds := l.dialed
	l.dialed = nil
	l.mu.Unlock()
	for _, d := range ds {
		lc := d.lc
		if lc.state != slotDialing { // given up meanwhile (Abort)
			if d.err == nil {
				_ = unix.Close(d.fd)
			}
			continue
		}
		c := lc.call
		c.Out.Conn, c.Out.Opened = d.ev, true
		if d.err == nil {
			d.err = l.adopt(lc, d.fd)
			if d.err != nil {
				c.Out.Conn.Failed = true
			}
		}
		if d.err != nil {
			lc.state, lc.call = slotFree, nil // the call is the driver's again
			l.free = append(l.free, lc)
			l.t.fail(l.ctx, &c.Out, d.err)
			l.finish(c, time.Now())
			continue
		}
		l.send(lc, time.Now())
	}
}

// adopt makes fd lc's connection: in the connections' epoll set, with receive timestamps.
func (l *Loop) adopt(lc *lconn, fd int) error {
	_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1)
	if err := unix.EpollCtl(l.ep, unix.EPOLL_CTL_ADD, fd, &unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLRDHUP, Fd: int32(lc.idx)}); err != nil {
		_ = unix.Close(fd)
		return fmt.Errorf("httpx: epoll: %w", err)
	}
	lc.fd, lc.uses, lc.eof = fd, 0, false
	lc.laddr, lc.raddr = tcpAddr(unix.Getsockname(fd)), tcpAddr(unix.Getpeername(fd))
	lc.in = lc.in[:0]
	return nil
}

// drain reads every connection that has something to read, and writes to those waiting for room.
func (l *Loop) drain() {
	for {
		n, _, e := unix.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(l.ep), uintptr(unsafe.Pointer(&l.events[0])), uintptr(len(l.events)), 0, 0, 0)
		if e != 0 || n == 0 {
			return
		}
		l.tick()
		for i := range int(n) {
			ev := &l.events[i]
			if ev.Fd < 0 { // the timer or the wake-up, in a flat wait set: clear it
				fd := l.tfd
				if ev.Fd == markWake {
					fd = l.efd
				}
				_, _, _ = unix.RawSyscall(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&l.efdBuf[0])), 8)
				continue
			}
			lc := l.slots[ev.Fd]
			if lc.fd < 0 {
				continue
			}
			if ev.Events&unix.EPOLLOUT != 0 && lc.wantOut {
				l.write(lc)
			}
			if ev.Events&(unix.EPOLLIN|unix.EPOLLRDHUP|unix.EPOLLHUP|unix.EPOLLERR) != 0 && lc.fd >= 0 {
				// RDHUP: the server closed its side after what it wrote; once that is read, the
				// connection carries nothing more (as the look at an idle one would find).
				l.read(lc, ev.Events&unix.EPOLLRDHUP != 0)
			}
		}
		if int(n) < len(l.events) {
			return
		}
	}
}

// read reads what lc's socket holds and parses the answer once it can be complete.
func (l *Loop) read(lc *lconn, rdhup bool) {
	// One connection reads at most readBudget at a time: a fast or endless answer must not keep
	// the arrivals and the other connections waiting. What is left is read next round (the wait
	// is level-triggered, and l.more makes the Loop go round again at once).
	budget := l.budget
	for {
		if len(lc.in) == cap(lc.in) {
			lc.in = slices.Grow(lc.in, max(readBufferSize, len(lc.in)))
		}
		room := lc.in[len(lc.in):cap(lc.in)]
		l.iov.Base = &room[0]
		l.iov.SetLen(len(room))
		l.msg.Iov, l.msg.Iovlen = &l.iov, 1
		l.msg.Control = &l.oob[0]
		l.msg.SetControllen(len(l.oob))
		n, _, e := unix.RawSyscall(unix.SYS_RECVMSG, uintptr(lc.fd), uintptr(unsafe.Pointer(&l.msg)), 0)
		switch e {
		case 0:
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			l.parse(lc)
			return
		default:
			err := lc.opError("read", os.NewSyscallError("read", e))
			if lc.state != slotBusy {
				l.drop(lc) // a reset while idle: the connection is gone
				return
			}
			l.failed(lc, lc.werr, err, lc.got())
			return
		}
		if n == 0 {
			l.ended(lc)
			return
		}
		if lc.state != slotBusy {
			// The server wrote to an idle connection (a 408 at its idle timeout, bytes beyond an
			// answer): nothing sent on it could tell its own answer from those bytes.
			l.drop(lc)
			return
		}
		at := l.stamp()
		budget -= int(n)
		if !lc.first {
			lc.first = true
			lc.call.Out.FirstByte = at
		}
		lc.last = at
		drained := int(n) < len(room)
		if drained && rdhup {
			lc.eof = true // the server's close came after these bytes
		}
		// A read that filled the room may have left bytes in the socket: an answer that ends in it
		// is followed by more, which no request asked for.
		lc.pending = !drained
		if lc.stream != bodyNone {
			if l.feed(lc, room[:n]) || drained {
				if drained && lc.state == slotBusy && lc.fd >= 0 {
					l.big = true
				}
				lc.pending = false
				return
			}
			if budget <= 0 {
				lc.pending, l.more = false, true
				l.turns++
				return
			}
			continue
		}
		lc.in = lc.in[:len(lc.in)+int(n)]
		if drained || len(lc.in) == cap(lc.in) {
			l.parse(lc) // the head may be in: a body not kept is read as it comes from then on
		}
		lc.pending = false
		if drained && lc.state == slotBusy && lc.fd >= 0 {
			l.big = true // an answer that comes in pieces: answers wake the Loop from now on
		}
		if drained || lc.fd < 0 {
			return
		}
		if budget <= 0 && lc.state == slotBusy {
			l.more = true
			l.turns++
			return
		}
	}
}

// opError describes err of op on lc's connection as the net package does, with its addresses.
func (lc *lconn) opError(op string, err error) error {
	return &net.OpError{Op: op, Net: "tcp", Source: lc.laddr, Addr: lc.raddr, Err: err}
}

// ended handles the end of lc's stream: the server closed its side.
func (l *Loop) ended(lc *lconn) {
	lc.eof = true
	switch {
	case lc.state != slotBusy:
		l.drop(lc) // the server closed it while idle
	case lc.stream == bodyUntilClose:
		l.complete(lc, false)
	case lc.stream != bodyNone:
		l.failed(lc, lc.werr, io.ErrUnexpectedEOF, lc.n)
	default:
		l.parse(lc)
	}
}

// got returns the bytes of lc's answer read so far.
func (lc *lconn) got() int64 {
	if lc.stream != bodyNone {
		return lc.n
	}
	return int64(len(lc.in))
}

// stamp returns when the bytes just received reached this host: the kernel's receive timestamp of
// the last packet read, carried to the monotonic clock through l.now and its wall clock l.wall
// (read again when the packet is later than them); the clock's time when the kernel gave none.
func (l *Loop) stamp() time.Time {
	h := (*unix.Cmsghdr)(unsafe.Pointer(&l.oob[0]))
	if l.msg.Controllen < 32 || h.Level != unix.SOL_SOCKET || h.Type != unix.SCM_TIMESTAMPNS {
		l.stamping = false
		l.tick()
		return l.now
	}
	l.stamping = true
	ts := (*unix.Timespec)(unsafe.Pointer(&l.oob[unix.SizeofCmsghdr])).Nano()
	if ts > l.wall {
		l.tick() // the bytes came after the clock was read (an answer streaming in): read it again
	}
	if d := l.wall - ts; d > 0 {
		return l.now.Add(-time.Duration(d))
	}
	return l.now
}

// tick reads the clock, for stamp to carry the kernel's timestamps to it.
func (l *Loop) tick() {
	l.now = time.Now()
	l.wall = l.now.UnixNano()
}

// parse parses lc's answer from the bytes read, once they can hold it all.
func (l *Loop) parse(lc *lconn) {
	if lc.state != slotBusy || len(lc.in) == 0 && !lc.eof || len(lc.in) < lc.need && !lc.eof {
		return
	}
	c := lc.call
	l.parses++
	l.src.b, l.src.eof = lc.in, lc.eof
	l.br.Reset(&l.src)
	resp, err := readResponse(l.br, c.Req.Method == "HEAD", l.keep, l.maxBody, c.Out.Body)
	if l.keep {
		c.Out.Body = resp.body
	}
	if err == errIncomplete {
		if resp.framing == bodyChunked || resp.framing == bodyUntilClose || !l.keep && resp.framing == bodyFixed {
			// The head is in: read the body as it comes from here on, keeping what is kept as it
			// comes (a body of known length to keep is parsed once whole: it is within MaxBody).
			lc.stream, lc.status, lc.closing, lc.n = resp.framing, resp.status, resp.close, resp.bodyStart
			if l.keep {
				c.Out.Body = c.Out.Body[:0]
			}
			lc.left, lc.cstate, lc.line, lc.lines = resp.length, chunkSize0, lc.line[:0], 0
			body := lc.in[resp.bodyStart:]
			lc.in = lc.in[:0]
			if !l.feed(lc, body) && lc.eof {
				if lc.stream == bodyUntilClose {
					l.complete(lc, false)
				} else {
					l.failed(lc, lc.werr, io.ErrUnexpectedEOF, lc.n)
				}
			}
			return
		}
		lc.need = max(int(resp.need), len(lc.in)+1)
		return
	}
	if err != nil {
		l.failed(lc, lc.werr, err, resp.n)
		return
	}
	lc.status, lc.closing, lc.n = resp.status, resp.close, resp.n
	l.complete(lc, int(resp.n) != len(lc.in))
}

// complete ends lc's call with the answer read (lc.status, lc.n bytes); more is true when bytes
// came after the answer, which no request asked for.
func (l *Loop) complete(lc *lconn, more bool) {
	c := lc.call
	c.Out.BytesIn += lc.n
	c.Out.Answered, c.Out.Status = true, lc.status
	lc.uses++
	l.answers++
	if lc.n > lazyMaxAnswer {
		l.big = true
	}
	reuse := !lc.closing && !more && !lc.pending && !lc.eof && lc.werr == nil
	lc.in, lc.stream = lc.in[:0], bodyNone
	if c.deadline.Before(lc.last) {
		// It came after its deadline, between two wake-ups: a timeout, as it would have been.
		c.Out.Answered, c.Out.Status = false, 0
		l.t.fail(l.ctx, &c.Out, fmt.Errorf("httpx: reading the answer: %w", lc.opError("read", os.ErrDeadlineExceeded)))
		reuse = false
	}
	if reuse {
		lc.call, lc.state, lc.body = nil, slotIdle, nil
		l.idle = append(l.idle, lc)
	} else {
		l.drop(lc)
	}
	l.finish(c, lc.last)
}

// failed ends lc's call after werr (writing) or rerr (reading, the parser's error included), n bytes
// of the answer read — or sends it again on a new connection, as Transport does.
func (l *Loop) failed(lc *lconn, werr, rerr error, n int64) {
	c := lc.call
	err := werr
	if err == nil {
		err = rerr
	}
	if c.Out.Retried == 0 && lc.uses > 0 && n == 0 && idempotent(c.Req.Method) && closedByPeer(err) {
		c.Out.Retried++
		l.closeConn(lc)
		l.dial(lc) // in the same slot
		return
	}
	if werr == nil && rerr == nil {
		rerr = io.ErrUnexpectedEOF
	}
	c.Out.BytesIn += n
	err = describe(err, werr, rerr, n, l.maxBody)
	l.drop(lc)
	l.t.fail(l.ctx, &c.Out, err)
	l.finish(c, time.Now())
}

// expire fails the calls whose deadline has passed, and finds the next deadline.
func (l *Loop) expire(now time.Time) {
	var earliest time.Time
	for _, lc := range l.slots {
		c := lc.call
		if c == nil || lc.state != slotBusy {
			continue
		}
		if !now.Before(c.deadline) {
			c.Out.BytesIn += lc.got()
			l.drop(lc)
			l.t.fail(l.ctx, &c.Out, fmt.Errorf("httpx: reading the answer: %w", lc.opError("read", os.ErrDeadlineExceeded)))
			l.finish(c, now)
			continue
		}
		if earliest.IsZero() || c.deadline.Before(earliest) {
			earliest = c.deadline
		}
	}
	if earliest.IsZero() {
		// Only calls waiting for a connection: their dial has the deadline; look again a timeout on.
		earliest = now.Add(l.t.timeout)
	}
	l.earliest = earliest
}

func (l *Loop) noteDeadline(d time.Time) {
	if l.busy == 1 || d.Before(l.earliest) {
		l.earliest = d
	}
}

// closeConn closes lc's connection, if any, and takes it out of the idle ones; the slot keeps its
// call.
func (l *Loop) closeConn(lc *lconn) {
	if lc.state == slotIdle {
		for i, x := range l.idle {
			if x == lc {
				l.idle = append(l.idle[:i], l.idle[i+1:]...)
				break
			}
		}
	}
	if lc.wantOut {
		lc.wantOut = false
		l.writing--
	}
	if lc.fd >= 0 {
		_ = unix.Close(lc.fd)
		lc.fd = -1
	}
	lc.in, lc.eof, lc.need = lc.in[:0], false, 0
	if cap(lc.in) > 1<<20 {
		lc.in = nil // one large answer does not hold its memory for the rest of the run
	}
}

// drop closes lc's connection, if any, and frees the slot (a dial under way is closed when it
// comes).
func (l *Loop) drop(lc *lconn) {
	if lc.state == slotFree {
		return
	}
	l.closeConn(lc)
	lc.call, lc.state, lc.body = nil, slotFree, nil
	l.free = append(l.free, lc)
}

// finish ends c at done and hands it to the driver.
func (l *Loop) finish(c *Call, done time.Time) {
	c.Done, c.conn = done, nil
	l.busy--
	l.driver.Finished(c)
}

// The parts of a chunked body, in the order they come (lconn.cstate).
const (
	chunkSize0   int8 = iota // a chunk size line
	chunkData                // the chunk's data
	chunkEnd                 // the line break after the data
	chunkTrailer             // trailer lines, up to an empty one
)

// feed reads b, the next bytes of lc's streamed body, as the parser would (readResponse's fixed,
// chunked and untilClose), keeping none of it. It reports whether the call ended: the answer is
// complete (bytes after it make the connection unusable) or broken.
func (l *Loop) feed(lc *lconn, b []byte) bool {
	switch lc.stream {
	case bodyUntilClose:
		lc.n += int64(len(b))
		return l.keepBody(lc, b, true)
	case bodyFixed:
		k := min(int64(len(b)), lc.left)
		lc.left -= k
		lc.n += k
		if lc.left > 0 {
			return false
		}
		l.complete(lc, int64(len(b)) > k)
		return true
	}
	for len(b) > 0 {
		if lc.cstate == chunkData {
			k := min(int64(len(b)), lc.left)
			lc.left -= k
			lc.n += k
			if l.keepBody(lc, b[:k], false) {
				return true
			}
			b = b[k:]
			if lc.left == 0 {
				lc.cstate = chunkEnd
			}
			continue
		}
		i := bytes.IndexByte(b, '\n')
		part := b
		if i >= 0 {
			part = b[:i+1]
		}
		lc.n += int64(len(part))
		b = b[len(part):]
		// lc.line holds the line so far, as the parser's buffer would; the trailer section whole.
		if limit := readBufferSize; lc.cstate != chunkTrailer && len(lc.line)+len(part) > limit {
			msg := fmt.Sprintf("chunk size line longer than %d bytes", limit)
			if lc.cstate == chunkEnd {
				msg = "chunk data not followed by CRLF"
			}
			l.failed(lc, lc.werr, &ProtocolError{Msg: msg}, lc.n)
			return true
		} else if lc.cstate == chunkTrailer && len(lc.line)+len(part) > maxHeaderLine+readBufferSize {
			// longer than the parser takes a header line: it says so
			lc.line = append(lc.line, part[:maxHeaderLine+readBufferSize-len(lc.line)]...)
			if err := l.judgeTrailer(lc); err != nil {
				l.failed(lc, lc.werr, err, lc.n)
			} else {
				l.failed(lc, lc.werr, protocolf("header line longer than %d bytes", maxHeaderLine), lc.n)
			}
			return true
		}
		lc.line = append(lc.line, part...)
		if i < 0 {
			return false // the rest of the line is to come
		}
		line := lc.line[:len(lc.line)-1]
		if len(line) > 0 && line[len(line)-1] == '\r' {
			line = line[:len(line)-1]
		}
		switch lc.cstate {
		case chunkSize0:
			size, ok := chunkSize(line)
			if !ok {
				l.failed(lc, lc.werr, protocolf("bad chunk size line %s", quote(line)), lc.n)
				return true
			}
			if l.keep && size > l.maxBody-int64(len(lc.call.Out.Body)) {
				l.failed(lc, lc.werr, ErrBodyTooLarge, lc.n) // as the parser: before the chunk
				return true
			}
			lc.left, lc.cstate = size, chunkData
			if size == 0 {
				lc.cstate, lc.lines = chunkTrailer, 0
			}
			lc.line = lc.line[:0]
		case chunkEnd:
			if len(line) != 0 {
				l.failed(lc, lc.werr, protocolf("chunk data not followed by CRLF"), lc.n)
				return true
			}
			lc.cstate = chunkSize0
			lc.line = lc.line[:0]
		case chunkTrailer:
			if len(line) == 0 {
				lc.line = lc.line[:0]
				l.complete(lc, len(b) > 0)
				return true
			}
			if err := l.judgeTrailer(lc); err != nil {
				l.failed(lc, lc.werr, err, lc.n)
				return true
			}
			lc.lines++
			lc.line = lc.line[:0]
		}
	}
	return false
}

// judgeTrailer returns the parser's error for the trailer line in lc.line, at its place in the
// trailer section (after lc.lines others), or nil when the parser takes it.
func (l *Loop) judgeTrailer(lc *lconn) error {
	if lc.lines == maxHeaders {
		return protocolf("more than %d header lines", maxHeaders)
	}
	l.trailer = l.trailer[:0]
	if lc.lines > 0 {
		l.trailer = append(l.trailer, "x:\n"...) // a line before it: a folded line may follow one
	}
	l.trailer = append(l.trailer, lc.line...)
	l.src.b, l.src.eof = l.trailer, true
	l.br.Reset(&l.src)
	r := reader{br: l.br}
	var f framing
	if err := r.headers(&f, true); IsProtocolError(err) {
		return err
	}
	return nil // the rest of the section is to come
}

// keepBody appends b, bytes of lc's body, to its call's kept body when bodies are kept, and reports
// whether the call ended: the body grew beyond MaxBody (after = true: once it has, as the parser of
// a body read until the close finds it; otherwise b was checked against it before).
func (l *Loop) keepBody(lc *lconn, b []byte, after bool) bool {
	if !l.keep {
		return false
	}
	out := &lc.call.Out
	out.Body = append(out.Body, b...)
	if after && int64(len(out.Body)) > l.maxBody {
		l.failed(lc, lc.werr, ErrBodyTooLarge, lc.n)
		return true
	}
	return false
}

// tcpAddr returns sa as a *net.TCPAddr, or nil.
func tcpAddr(sa unix.Sockaddr, err error) net.Addr {
	switch a := sa.(type) {
	case *unix.SockaddrInet4:
		if err == nil {
			return &net.TCPAddr{IP: net.IP(a.Addr[:]).To16(), Port: a.Port}
		}
	case *unix.SockaddrInet6:
		if err == nil {
			return &net.TCPAddr{IP: net.IP(a.Addr[:]), Port: a.Port}
		}
	}
	return nil
}
