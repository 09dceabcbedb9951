package rawconn

import (
	"errors"
	"io"
	"net"
	"os"
	"sync"
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
	for {
		n, _, e := unix.RawSyscall(unix.SYS_READ, fd, uintptr(unsafe.Pointer(&c.rp[0])), uintptr(len(c.rp)))
		switch e {
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			return false // wait for readiness in the poller
		}
		c.rn, c.rerr = int(n), e
		return true
	}
}

func (c *Conn) writeFD(fd uintptr) bool {
	for len(c.wp) > 0 {
		n, _, e := unix.RawSyscall(unix.SYS_WRITE, fd, uintptr(unsafe.Pointer(&c.wp[0])), uintptr(len(c.wp)))
		switch e {
		case 0:
			c.wn += int(n)
			c.wp = c.wp[n:]
		case unix.EINTR:
		case unix.EAGAIN:
			return false // the send buffer is full: wait for room
		default:
			c.werr = e
			return true
		}
	}
	return true
}

// Read reads as net.Conn's Read does.
func (c *Conn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	c.rmu.Lock()
	defer c.rmu.Unlock()
	c.rp, c.rn, c.rerr = p, 0, 0
	err := c.rc.Read(c.read)
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
