package h3

import (
	"fmt"
	"net"
	"os"
	"sync"
)

// WantBuffer is the size of UDP receive and send buffers that quic-go asks the kernel for, in
// bytes (on every system but OpenBSD).
const WantBuffer = 7 << 20

// quietEnv is the variable that turns off quic-go's own log line about buffers.
const quietEnv = "QUIC_GO_DISABLE_RECEIVE_BUFFER_WARNING"

var (
	bufOnce sync.Once
	bufNote string
)

// BufferWarning opens a UDP socket and raises its buffers as quic-go does (to WantBuffer, by force
// where the process may); when the kernel keeps either below, it returns a line that says so and
// names the sysctl to raise, and turns quic-go's own log line off, so that the warning is said
// once, by the caller. "" means the buffers are large enough (or, off Linux, cannot be read
// back). The check runs once per process.
func BufferWarning() string {
	bufOnce.Do(func() {
		rcv, snd, err := raiseBuffers()
		if err != nil || rcv >= WantBuffer && snd >= WantBuffer {
			return
		}
		bufNote = bufferNote(rcv, snd)
		_ = os.Setenv(quietEnv, "true")
	})
	return bufNote
}

// bufferNote words the warning for UDP buffers of rcv and snd bytes, as the kernel reports them.
func bufferNote(rcv, snd int) string {
	var low, fix string
	switch {
	case rcv < WantBuffer && snd < WantBuffer:
		low = fmt.Sprintf("receive buffers of %d KiB and send buffers of %d KiB", rcv>>10, snd>>10)
		fix = fmt.Sprintf("sysctl -w net.core.rmem_max=%d net.core.wmem_max=%d", WantBuffer, WantBuffer)
	case rcv < WantBuffer:
		low = fmt.Sprintf("receive buffers of %d KiB", rcv>>10)
		fix = fmt.Sprintf("sysctl -w net.core.rmem_max=%d", WantBuffer)
	default:
		low = fmt.Sprintf("send buffers of %d KiB", snd>>10)
		fix = fmt.Sprintf("sysctl -w net.core.wmem_max=%d", WantBuffer)
	}
	return fmt.Sprintf("QUIC's UDP sockets get %s, not the %d KiB quic-go asks for: at high rates packets may be dropped and counted as lost; raise the limit with %s",
		low, WantBuffer>>10, fix)
}

// raiseBuffers raises the buffers of a new UDP socket on loopback as quic-go does and returns
// their sizes as the kernel then reports them.
func raiseBuffers() (rcv, snd int, err error) {
	c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		return 0, 0, err
	}
	defer c.Close()
	_ = c.SetReadBuffer(WantBuffer)
	_ = c.SetWriteBuffer(WantBuffer)
	return socketBuffers(c)
}
