package monitor

import (
	"context"
	"net"
	"net/url"
	"time"
)

// Listener is a process holding a TCP socket that listens on a port.
type Listener struct {
	PID  int
	Comm string // its command name, as the kernel keeps it (at most 15 bytes)
}

// Listening is what Listeners finds for a port: the processes holding a socket that listens on it,
// and how many such sockets have no process this one may see (another user's: their
// /proc/PID/fd cannot be read).
type Listening struct {
	Procs  []Listener
	Hidden int
}

// DialURL connects to the host and port of u (the scheme's port when u names none), within a
// second.
func DialURL(ctx context.Context, u string) (net.Conn, error) {
	pu, err := url.Parse(u)
	if err != nil {
		return nil, err
	}
	port := pu.Port()
	if port == "" {
		port = "80"
		if pu.Scheme == "https" || pu.Scheme == "wss" {
			port = "443"
		}
	}
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	var d net.Dialer
	return d.DialContext(ctx, "tcp", net.JoinHostPort(pu.Hostname(), port))
}

// AnswerAt returns the address that takes connections at the host and port of u: the one its host
// name resolved to; nil when none does.
func AnswerAt(ctx context.Context, u string) *net.TCPAddr {
	c, err := DialURL(ctx, u)
	if err != nil {
		return nil
	}
	defer c.Close()
	addr, _ := c.RemoteAddr().(*net.TCPAddr)
	return addr
}

// Local reports whether ip is a loopback address or one of this machine's interfaces'.
func Local(ip net.IP) bool {
	if ip.IsLoopback() {
		return true
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return false
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.Equal(ip) {
			return true
		}
	}
	return false
}
