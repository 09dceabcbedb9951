package httpx

import (
	"net"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// peeker looks at an idle connection's socket without reading from it: recv(2) with MSG_PEEK and
// MSG_DONTWAIT, a raw system call as rawconn's reads are (it never blocks). The read callback is
// made once per connection, so a peek allocates nothing.
type peeker struct {
	raw   syscall.RawConn
	read  func(fd uintptr) bool
	n     uintptr
	errno syscall.Errno
	buf   [1]byte
}

func (p *peeker) init(tcp net.Conn) {
	sc, ok := tcp.(syscall.Conn)
	if !ok {
		return
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return
	}
	p.raw = raw
	p.read = func(fd uintptr) bool {
		p.n, _, p.errno = unix.RawSyscall6(unix.SYS_RECVFROM, fd, uintptr(unsafe.Pointer(&p.buf[0])), 1,
			unix.MSG_PEEK|unix.MSG_DONTWAIT, 0, 0)
		return true // never wait for readiness
	}
}

// stale reports whether the peer wrote to the idle connection or closed it.
func (p *peeker) stale() bool {
	if p.raw == nil {
		return false
	}
	if err := p.raw.Read(p.read); err != nil {
		return true
	}
	switch p.errno {
	case unix.EAGAIN:
		return false // nothing to read: the connection is as we left it
	case 0:
		return true // bytes waiting (n = 1) or end of stream (n = 0)
	}
	return true // reset or another error
}
