//go:build unix

package testnet

import (
	"fmt"
	"syscall"
	"testing"
)

// refusedAddr binds a TCP socket to 127.0.0.1:0 and never listens on it: a connection to it is
// refused, and the port is taken until the test's cleanup closes the socket.
func refusedAddr(tb testing.TB) string { return boundAddr(tb, false) }

// reservedAddr is refusedAddr with SO_REUSEADDR set on the socket, so that a listener may share
// the port.
func reservedAddr(tb testing.TB) string { return boundAddr(tb, true) }

func boundAddr(tb testing.TB, reuse bool) string {
	syscall.ForkLock.RLock() // no child started meanwhile inherits the socket
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err == nil {
		syscall.CloseOnExec(fd)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		tb.Fatalf("testnet: socket: %v", err)
	}
	tb.Cleanup(func() { syscall.Close(fd) })
	if reuse {
		if err := syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_REUSEADDR, 1); err != nil {
			tb.Fatalf("testnet: SO_REUSEADDR: %v", err)
		}
	}
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		tb.Fatalf("testnet: bind 127.0.0.1:0: %v", err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		tb.Fatalf("testnet: getsockname: %v", err)
	}
	in, ok := sa.(*syscall.SockaddrInet4)
	if !ok {
		tb.Fatalf("testnet: bound to %T; want an IPv4 address", sa)
	}
	return fmt.Sprintf("127.0.0.1:%d", in.Port)
}
