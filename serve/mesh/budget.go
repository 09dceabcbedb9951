package mesh

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
)

// connBudget counts the HTTP/1.1 connections of one process, both ends, against the file
// descriptors it may fill. A nil *connBudget counts nothing and refuses nothing. Safe for concurrent
// use.
type connBudget struct {
	limit int // file descriptors for connections: the open-file limit less reserveFiles
	open  atomic.Int64
}

// newConnBudget returns a budget for a process that may open files file descriptors, or nil when
// files is 0 (no limit known).
func newConnBudget(files int) *connBudget {
	if files <= 0 {
		return nil
	}
	return &connBudget{limit: max(files-reserveFiles, 0)}
}

// Open reports the connections counted now.
func (b *connBudget) Open() int64 {
	if b == nil {
		return 0
	}
	return b.open.Load()
}

// errNoFiles is the dial error when the budget is spent.
type errNoFiles struct{ open, limit int64 }

func (e errNoFiles) Error() string {
	return fmt.Sprintf("no file descriptor left for another HTTP/1.1 connection: %d connections open, "+
		"%d allowed by the open-file limit; HTTP/1.1 holds a connection per open hop, so use transport "+
		"h2c or grpc for deep chains, or raise ulimit -n", e.open, e.limit)
}

// dialer wraps d so every connection counts against b; past the budget it refuses to dial. A dial
// in the same process also costs the accepted end, so it asks for two descriptors.
func (b *connBudget) dialer(d *net.Dialer) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		if b == nil {
			return d.DialContext(ctx, network, addr)
		}
		if n := b.open.Add(1); n+1 > int64(b.limit) {
			b.open.Add(-1)
			return nil, errNoFiles{open: n - 1, limit: int64(b.limit)}
		}
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			b.open.Add(-1)
			return nil, err
		}
		return &countedConn{Conn: c, b: b}, nil
	}
}

// connState counts a server's accepted connections; install it as http.Server.ConnState.
func (b *connBudget) connState(_ net.Conn, s http.ConnState) {
	if b == nil {
		return
	}
	switch s {
	case http.StateNew:
		b.open.Add(1)
	case http.StateClosed, http.StateHijacked:
		b.open.Add(-1)
	}
}

// countedConn gives its slot back to the budget once, when closed.
type countedConn struct {
	net.Conn
	b    *connBudget
	once sync.Once
}

func (c *countedConn) Close() error {
	c.once.Do(func() { c.b.open.Add(-1) })
	return c.Conn.Close()
}
