//go:build !linux

package rawconn

import "net"

// Wrap returns nc as it is: raw reads and writes are made on Linux only.
func Wrap(nc net.Conn) net.Conn { return nc }

// Unwrap returns nc as it is.
func Unwrap(nc net.Conn) net.Conn { return nc }
