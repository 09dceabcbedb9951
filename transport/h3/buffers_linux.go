package h3

import (
	"net"

	"golang.org/x/sys/unix"
)

// socketBuffers forces c's buffers to WantBuffer where the process may (SO_RCVBUFFORCE and
// SO_SNDBUFFORCE need CAP_NET_ADMIN), as quic-go tries, and returns their sizes.
func socketBuffers(c *net.UDPConn) (rcv, snd int, err error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return 0, 0, err
	}
	var serr error
	if err := raw.Control(func(fd uintptr) {
		if v, _ := unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_RCVBUF); v < WantBuffer {
			_ = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, WantBuffer)
		}
		if v, _ := unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_SNDBUF); v < WantBuffer {
			_ = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_SNDBUFFORCE, WantBuffer)
		}
		if rcv, serr = unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_RCVBUF); serr != nil {
			return
		}
		snd, serr = unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_SNDBUF)
	}); err != nil {
		return 0, 0, err
	}
	return rcv, snd, serr
}
