package rawconn

import (
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Conn is a *net.TCPConn whose Read and Write use raw system calls. Every other method is the
// TCPConn's.
type Conn struct {
	*net.TCPConn
	rc syscall.RawConn

	// The state of one Read and of one Write; the callbacks are made once, so that neither
	// allocates. net.Conn lets goroutines call Read and Write at once, so each direction has a
	// lock of its own (the poller's fd locks come later, inside RawConn's Read and Write).
	rmu   sync.Mutex
	rp    []byte
	rn    int
	rerr  syscall.Errno
	read  func(fd uintptr) bool
	wmu   sync.Mutex
	wp    []byte
	wn    int
	werr  syscall.Errno
	write func(fd uintptr) bool

	// Under rmu: bytes to write at the start of the next Read (SendWithRead), and what became of them.
	send     []byte
	sendSet  bool  // SendWithRead gave bytes that the next Read has not tried yet
	sendLeft bool  // the socket buffer filled: Read finishes the write before reading
	sent     int   // bytes of send written
	sendErr  error // the write's error

	emptyReads atomic.Int64 // reads that found the socket empty (EAGAIN) and waited
}

// Wrap returns nc with raw reads and writes when it is a *net.TCPConn, and nc itself otherwise.
func Wrap(nc net.Conn) net.Conn {
	tc, ok := nc.(*net.TCPConn)
	if !ok {
		return nc
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return nc
	}
	c := &Conn{TCPConn: tc, rc: rc}
	c.read = c.readFD
	c.write = c.writeFD
	return c
}

// Unwrap returns the *net.TCPConn under a Conn, and nc itself for any other connection.
func Unwrap(nc net.Conn) net.Conn {
	if c, ok := nc.(*Conn); ok {
		return c.TCPConn
	}
	return nc
}

func (c *Conn) readFD(fd uintptr) bool {
	if c.sendSet {
		c.sendSet = false
		switch e := writeRaw(fd, &c.send, &c.sent); e {
		case 0:
			// Everything went out after the poller forgot any earlier readiness (RawConn's Read
			// resets it before calling here), so the readiness that the answer brings is new and
			// cannot be missed: wait for it instead of reading a socket that is still empty.
			return false
		case unix.EAGAIN:
			c.sendLeft = true // Read waits for room, writes the rest, then reads
			return true
		default:
			// Read all the same: a server may answer, and close, before it has read the request.
			c.sendErr = c.opError("write", os.NewSyscallError("write", e))
		}
	}
	for {
		n, _, e := unix.RawSyscall(unix.SYS_READ, fd, uintptr(unsafe.Pointer(&c.rp[0])), uintptr(len(c.rp)))
		switch e {
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			c.emptyReads.Add(1)
			return false // wait for readiness in the poller
		}
		c.rn, c.rerr = int(n), e
		return true
	}
}

// writeRaw writes *p until all of it is written, the socket buffer is full (EAGAIN) or the write
// fails, taking what went out off *p and adding its length to *n.
func writeRaw(fd uintptr, p *[]byte, n *int) syscall.Errno {
	for len(*p) > 0 {
		m, _, e := unix.RawSyscall(unix.SYS_WRITE, fd, uintptr(unsafe.Pointer(&(*p)[0])), uintptr(len(*p)))
		switch e {
		case 0:
			*n += int(m)
			*p = (*p)[m:]
		case unix.EINTR:
		default:
			return e
		}
	}
	return 0
}

func (c *Conn) writeFD(fd uintptr) bool {
	switch e := writeRaw(fd, &c.wp, &c.wn); e {
	case 0:
	case unix.EAGAIN:
		return false // the send buffer is full: wait for room
	default:
		c.werr = e
	}
	return true
}

// SendWithRead makes the next Read write p whole before it reads, for a request whose answer is
// read next: its bytes go out inside the read's own call into the poller, which then waits for the
// answer before reading it. A Write followed by a Read reads at once after the write and, the
// answer not being there yet, finds the socket empty (EAGAIN) and waits then: a system call per
// request that this saves. p must stay unchanged until that Read returns; Sent then tells what
// became of it. The next Read must be given a non-empty buffer, and no Write may run until it
// returns (the bytes of the two would interleave).
//
// It is for exchanges in which the peer speaks when spoken to. Bytes that came before the write,
// and whose readiness the poller had already taken in, are read only when more comes after it
// (the answer, the end of the stream, a reset) or at the deadline: check that an idle connection
// holds nothing before sending on it.
func (c *Conn) SendWithRead(p []byte) {
	c.rmu.Lock()
	c.send, c.sendSet, c.sendLeft, c.sent, c.sendErr = p, true, false, 0, nil
	c.rmu.Unlock()
}

// Sent returns how many bytes of those given to SendWithRead the Read after it wrote, and why it
// wrote no more: the write's error, or the read's when the connection was closed or its deadline
// had passed before anything could be written.
func (c *Conn) Sent() (int, error) {
	c.rmu.Lock()
	defer c.rmu.Unlock()
	if c.sendSet {
		return 0, c.opError("write", errors.New("rawconn: no Read after SendWithRead"))
	}
	n, err := c.sent, c.sendErr
	c.send, c.sent, c.sendErr = nil, 0, nil
	return n, err
}

// EmptyReads returns how many reads found the socket empty and waited for readiness: a system
// call each that brought nothing.
func (c *Conn) EmptyReads() int {
	return int(c.emptyReads.Load()) // not under rmu, which ReadStream holds while it runs
}

// Read reads as net.Conn's Read does. After SendWithRead it writes first.
func (c *Conn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	c.rmu.Lock()
	defer c.rmu.Unlock()
	c.rp, c.rn, c.rerr = p, 0, 0
	err := c.rc.Read(c.read)
	if c.sendSet {
		// The poller refused the read (closed, deadline passed) before the bytes could go out.
		c.sendSet, c.sendErr = false, c.opError("write", err)
	}
	if err == nil && c.sendLeft {
		c.sendLeft = false
		n, werr := c.Write(c.send)
		c.sent += n
		if werr != nil {
			c.sendErr = werr
		}
		c.rn, c.rerr = 0, 0
		err = c.rc.Read(c.read)
	}
	c.rp = nil
	switch {
	case err != nil:
		return 0, c.opError("read", err)
	case c.rerr != 0:
		return 0, c.opError("read", os.NewSyscallError("read", c.rerr))
	case c.rn == 0:
		return 0, io.EOF
	}
	return c.rn, nil
}

// Write writes all of p as net.Conn's Write does, or says why it could not.
func (c *Conn) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.wp, c.wn, c.werr = p, 0, 0
	err := c.rc.Write(c.write)
	c.wp = nil
	switch {
	case err != nil:
		return c.wn, c.opError("write", err)
	case c.werr != 0:
		return c.wn, c.opError("write", os.NewSyscallError("write", c.werr))
	}
	return c.wn, nil
}

// opError makes err what net.Conn's op would have returned: syscall.RawConn says "raw-read" or
// "raw-write", with no local address.
func (c *Conn) opError(op string, err error) error {
	var oe *net.OpError
	if errors.As(err, &oe) {
		err = oe.Err // a deadline, a closed connection: the poller's error
	}
	return &net.OpError{Op: op, Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
}
