package rawconn

import (
	"io"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// ReadStream reads the connection for a reader that consumes what arrives as it arrives (an
// HTTP/2 connection's frames): it reads into space(), which must have room for a byte at least,
// and hands each read's byte count to got, until got returns an error or the connection ends. Its
// error is got's, or the read's as Read gives it (io.EOF at the end of the stream).
//
// A read that did not fill the space it was given found the socket empty, so ReadStream then
// waits in the poller for the next bytes instead of reading again: Read, between two arrivals,
// reads once more and finds nothing (EAGAIN), a system call per arrival that this saves. It stays
// inside one of the poller's reads for as long as it runs, so that a readiness the poller took in
// while got ran is not forgotten (each Read starts by forgetting it), and the wait after a short
// read cannot miss bytes that came meanwhile. No Read or SendWithRead may run until it returns,
// and got must not close the connection (Close waits for ReadStream to return).
func (c *Conn) ReadStream(space func() []byte, got func(n int) error) error {
	c.rmu.Lock()
	defer c.rmu.Unlock()
	var err error
	rerr := c.rc.Read(func(fd uintptr) bool {
		for {
			p := space()
			n, _, e := unix.RawSyscall(unix.SYS_READ, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
			switch {
			case e == unix.EINTR:
				continue
			case e == unix.EAGAIN:
				c.emptyReads.Add(1)
				return false // wait for readiness in the poller
			case e != 0:
				err = c.opError("read", os.NewSyscallError("read", e))
				return true
			case n == 0:
				err = io.EOF
				return true
			}
			if err = got(int(n)); err != nil {
				return true
			}
			if int(n) < len(p) {
				return false // the socket is empty: wait for what comes next
			}
		}
	})
	if err == nil && rerr != nil {
		err = c.opError("read", rerr) // closed, or a deadline passed
	}
	return err
}
