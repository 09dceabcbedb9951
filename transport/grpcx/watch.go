package grpcx

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync/atomic"
	"time"

	"github.com/rpcbench/rpcbench/result"
)

// ErrNoStreams is the failure of a call on a connection whose server's SETTINGS allow no
// concurrent stream: the call waited for one and was never sent. Exact: its 0 is kept in reports.
var ErrNoStreams error = result.Exact("grpcx: the server's SETTINGS allow no streams (MAX_CONCURRENT_STREAMS 0): the call was never sent")

// ErrServerTLS is the failure of a grpc:// connection to a server that speaks TLS.
var ErrServerTLS = errors.New("grpcx: the server speaks TLS: use grpcs://")

// watchConn is the connection grpc-go reads HTTP/2 from (after TLS, for grpcs), watched for what
// grpc-go does not tell: the server's SETTINGS_MAX_CONCURRENT_STREAMS, and the error that ended the
// connection before the server's first byte. It walks the frame headers of what grpc-go reads;
// only SETTINGS payloads are looked into. Only grpc-go's reader goroutine calls Read; its writer
// calls Write.
type watchConn struct {
	net.Conn
	s       *slot
	tls     bool        // over TLS: an error of the first read may be the server's alert
	hasCert bool        // a client certificate was offered
	seen    atomic.Bool // a byte has arrived
	hdr     [9]byte
	hn      int  // bytes of hdr filled
	left    int  // bytes of the current frame's payload still to come
	isSet   bool // the current frame is a SETTINGS frame, not its ACK
	entry   [6]byte
	en      int // bytes of entry filled
}

// errBeforeSettings marks a connection that ended before the server's first byte.
var errBeforeSettings = errors.New("grpcx: the server closed the connection before its HTTP/2 settings")

// Frame types, flags and settings of HTTP/2 (RFC 9113) that watchConn reads.
const (
	frameSettings     = 0x4
	flagAck           = 0x1
	settingMaxStreams = 0x3
)

func (c *watchConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	switch {
	case n > 0:
		if !c.seen.Load() {
			c.seen.Store(true)
		}
		c.scan(p[:n])
	case err != nil && !c.seen.Load() && !errors.Is(err, net.ErrClosed): // closed by grpc-go: it says why elsewhere
		c.s.setErr(c.firstReadErr(err))
	}
	return n, err
}

// Write is the connection's, noting a failure before the server's first byte: grpc-go then
// closes the connection, and the read sees only that.
func (c *watchConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	if err != nil && !c.seen.Load() && !errors.Is(err, net.ErrClosed) {
		c.s.setErr(fmt.Errorf("%w: %w", errBeforeSettings, err))
	}
	return n, err
}

// firstReadErr says why the connection ended before the server's first byte.
func (c *watchConn) firstReadErr(err error) error {
	if c.tls {
		if e := tlsAlert(err, c.hasCert); e != err {
			return e
		}
	}
	return fmt.Errorf("%w: %w", errBeforeSettings, err)
}

// tlsAlert says what the server's TLS alert err means, when it is about the client's certificate
// (TLS 1.2 sends it in the handshake, 1.3 after it, as the first read's error); else it is err.
func tlsAlert(err error, hasCert bool) error {
	var op *net.OpError
	if !errors.As(err, &op) || op.Op != "remote error" {
		return err
	}
	m := op.Err.Error()
	switch {
	case !strings.Contains(m, "certificate required") && !strings.Contains(m, "bad certificate"):
		return err
	case hasCert:
		return fmt.Errorf("grpcx: the server refused the client certificate: %w", err)
	}
	return fmt.Errorf("grpcx: the server requires a client certificate, and none was given: %w", err)
}

// scan walks the frames in b, the next bytes from the server.
func (c *watchConn) scan(b []byte) {
	for len(b) > 0 {
		if c.left == 0 { // a frame header
			k := copy(c.hdr[c.hn:], b)
			c.hn += k
			b = b[k:]
			if c.hn < len(c.hdr) {
				return
			}
			c.hn, c.en = 0, 0
			c.left = int(c.hdr[0])<<16 | int(c.hdr[1])<<8 | int(c.hdr[2])
			c.isSet = c.hdr[3] == frameSettings && c.hdr[4]&flagAck == 0
			continue
		}
		k := min(c.left, len(b))
		if c.isSet {
			for _, x := range b[:k] {
				c.entry[c.en] = x
				if c.en++; c.en == len(c.entry) {
					c.en = 0
					if uint16(c.entry[0])<<8|uint16(c.entry[1]) == settingMaxStreams {
						c.s.maxStreams.Store(int64(c.entry[2])<<24 | int64(c.entry[3])<<16 | int64(c.entry[4])<<8 | int64(c.entry[5]))
					}
				}
			}
		}
		c.left -= k
		b = b[k:]
	}
}

// noStreams reports whether the server of s's connection allows no concurrent stream.
func (s *slot) noStreams() bool { return s != nil && s.maxStreams.Load() == 0 }

// setErr keeps err as the failure of s's connection.
func (s *slot) setErr(err error) {
	s.errMu.Lock()
	s.dialErr = err
	s.errMu.Unlock()
}

// speaksTLS reports whether the server at addr answers a TLS handshake, within d: asked when a
// grpc:// connection was accepted but ended before the server's settings.
func speaksTLS(ctx context.Context, addr string, d time.Duration) bool {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var dialer net.Dialer
	raw, err := dialer.DialContext(ctx, "tcp", addr)
	if err != nil {
		return false
	}
	defer raw.Close()
	host, _, _ := net.SplitHostPort(addr)
	c := tls.Client(raw, &tls.Config{ServerName: host, InsecureSkipVerify: true, NextProtos: []string{"h2"}}) //nolint:gosec // only asks whether TLS is spoken
	err = c.HandshakeContext(ctx)
	var op *net.OpError
	// a completed handshake, or the server's alert (a client certificate wanted): TLS either way
	return err == nil || errors.As(err, &op) && op.Op == "remote error"
}
