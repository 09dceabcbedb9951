//go:build !linux

package h3

import (
	"errors"
	"net"
)

// socketBuffers cannot read the buffers back off Linux: BufferWarning then says nothing, and
// quic-go's own log line stays.
func socketBuffers(*net.UDPConn) (rcv, snd int, err error) {
	return 0, 0, errors.ErrUnsupported
}
