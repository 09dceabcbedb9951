package faults

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"

	"github.com/rpcbench/rpcbench/serve/h3serve"
)

// H3 is an HTTP/3 server on 127.0.0.1 with a self-signed certificate (clients skip verification or
// trust CertPEM) that answers with its handler, until it stops: after answering its quota of
// requests, the next one to reach the handler stops it, or Drop does. Stopped, it neither reads nor
// answers a UDP packet — a server that stopped answering mid-run, or a firewall that drops UDP —
// and a request in its handler waits for its client to give up. Close stops it and waits for its
// goroutines; it is also registered with the test's cleanup.
type H3 struct {
	Addr    string // host:port, UDP
	CertPEM []byte

	quota     int64
	h         http.Handler
	drop      atomic.Bool
	seen      atomic.Int64
	answered  atomic.Int64
	udp       net.PacketConn
	srv       *http3.Server
	done      chan struct{} // closed when serving ends
	stop      chan struct{} // closed by Close: handlers waiting return
	closeOnce sync.Once
}

// NewH3 starts an H3 that answers quota requests (0: any number) with h (nil: "ok").
func NewH3(tb testing.TB, quota int64, h http.Handler) *H3 {
	tb.Helper()
	tc, certPEM, err := h3serve.SelfSignedTLS("rpcbench faults")
	if err != nil {
		tb.Fatalf("faults: %v", err)
	}
	udp, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("faults: %v", err)
	}
	if h == nil {
		h = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok") })
	}
	s := &H3{Addr: udp.LocalAddr().String(), CertPEM: certPEM, quota: quota, h: h, udp: udp, done: make(chan struct{}), stop: make(chan struct{})}
	tc.MinVersion = tls.VersionTLS13
	s.srv = &http3.Server{TLSConfig: http3.ConfigureTLSConfig(tc), QUICConfig: &quic.Config{}, Handler: http.HandlerFunc(s.serveHTTP)}
	go func() { defer close(s.done); _ = s.srv.Serve(dropper{udp, &s.drop}) }()
	tb.Cleanup(s.Close)
	return s
}

func (s *H3) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if n := s.seen.Add(1); s.quota > 0 && n > s.quota || s.drop.Load() {
		s.drop.Store(true)
		select { // its answer would be dropped anyway
		case <-r.Context().Done():
		case <-s.stop:
		}
		return
	}
	s.h.ServeHTTP(w, r)
	s.answered.Add(1)
}

// Drop stops the server answering: from now on it drops every UDP packet.
func (s *H3) Drop() { s.drop.Store(true) }

// Answered returns how many requests the handler answered.
func (s *H3) Answered() int64 { return s.answered.Load() }

// Close stops the server and waits until it has.
func (s *H3) Close() {
	s.closeOnce.Do(func() {
		close(s.stop)
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = s.srv.Shutdown(ctx) // cut short by the deadline, it is closed below all the same
		_ = s.srv.Close()
		_ = s.udp.Close()
		<-s.done
	})
}

// dropper is a server's UDP socket that, while drop is set, neither reads nor answers.
type dropper struct {
	net.PacketConn
	drop *atomic.Bool
}

func (c dropper) ReadFrom(b []byte) (int, net.Addr, error) {
	for {
		n, a, err := c.PacketConn.ReadFrom(b)
		if err != nil || !c.drop.Load() {
			return n, a, err
		}
	}
}

func (c dropper) WriteTo(b []byte, a net.Addr) (int, error) {
	if c.drop.Load() {
		return len(b), nil
	}
	return c.PacketConn.WriteTo(b, a)
}
