package faults

import (
	"bufio"
	"crypto/sha1"
	"encoding/base64"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Server is one misbehaving server on 127.0.0.1. Close stops it and waits for its goroutines; it is
// also registered with the test's cleanup. Safe for concurrent use.
type Server struct {
	Addr string // host:port

	handle func(c net.Conn, done <-chan struct{})
	done   chan struct{} // closed by Close
	wg     sync.WaitGroup
	mu     sync.Mutex
	ln     net.Listener
	conns  map[net.Conn]struct{}
	closed bool
}

// URL returns "http://" + Addr.
func (s *Server) URL() string { return "http://" + s.Addr }

// start makes a Server that runs handle on each connection accepted from ln. handle must return
// once done is closed or its connection is (Close does both).
func start(tb testing.TB, ln net.Listener, handle func(c net.Conn, done <-chan struct{})) *Server {
	tb.Helper()
	s := &Server{Addr: ln.Addr().String(), handle: handle, done: make(chan struct{}), conns: map[net.Conn]struct{}{}}
	s.serve(ln)
	tb.Cleanup(s.Close)
	return s
}

func listen(tb testing.TB) net.Listener {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("faults: %v", err)
	}
	return ln
}

// serve accepts on ln until it is closed.
func (s *Server) serve(ln net.Listener) {
	s.mu.Lock()
	s.ln = ln
	s.mu.Unlock()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.mu.Lock()
			if s.closed {
				s.mu.Unlock()
				c.Close()
				return
			}
			s.conns[c] = struct{}{}
			s.wg.Add(1)
			s.mu.Unlock()
			go func() {
				defer s.wg.Done()
				s.handle(c, s.done)
				c.Close()
				s.mu.Lock()
				delete(s.conns, c)
				s.mu.Unlock()
			}()
		}
	}()
}

// dropAll closes the listener and every open connection.
func (s *Server) dropAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ln != nil {
		s.ln.Close()
		s.ln = nil
	}
	for c := range s.conns {
		c.Close()
	}
}

// Close stops the server: it closes the listener and every connection, and waits for every
// goroutine. Closing twice is harmless.
func (s *Server) Close() {
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		close(s.done)
	}
	s.mu.Unlock()
	s.dropAll()
	s.wg.Wait()
}

// readHead reads one request: its head (up to the empty line) and a body of its Content-Length.
// It returns false when the connection ended or sent something that is not a request.
func readHead(r *bufio.Reader) bool {
	var length int64
	for n := 0; n < 100; n++ {
		line, err := r.ReadString('\n')
		if err != nil {
			return false
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			_, err := io.CopyN(io.Discard, r, length)
			return err == nil
		}
		if name, v, ok := strings.Cut(line, ":"); ok && strings.EqualFold(name, "Content-Length") {
			if length, err = strconv.ParseInt(strings.TrimSpace(v), 10, 64); err != nil || length < 0 {
				return false
			}
		}
	}
	return false
}

// readKey reads one request head and returns its Sec-WebSocket-Key ("" if none).
func readKey(r *bufio.Reader) (key string, ok bool) {
	for n := 0; n < 100; n++ {
		line, err := r.ReadString('\n')
		if err != nil {
			return "", false
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			return key, true
		}
		if name, v, found := strings.Cut(line, ":"); found && strings.EqualFold(name, "Sec-WebSocket-Key") {
			key = strings.TrimSpace(v)
		}
	}
	return "", false
}

// upgrade reads a WebSocket upgrade request from c and accepts it.
func upgrade(c net.Conn, r *bufio.Reader) bool {
	key, ok := readKey(r)
	if !ok {
		return false
	}
	h := sha1.Sum([]byte(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
	_, err := io.WriteString(c, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
		"Sec-WebSocket-Accept: "+base64.StdEncoding.EncodeToString(h[:])+"\r\n\r\n")
	return err == nil
}

// WSResetAfterUpgrade accepts WebSocket upgrades, then resets each connection (TCP RST) once the
// first bytes of a message arrive: every call on it is cut mid-answer.
func WSResetAfterUpgrade(tb testing.TB) *Server {
	return start(tb, listen(tb), func(c net.Conn, _ <-chan struct{}) {
		r := bufio.NewReader(c)
		if !upgrade(c, r) {
			return
		}
		if _, err := r.ReadByte(); err != nil {
			return
		}
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.SetLinger(0)
		}
	})
}

// WSSilent accepts WebSocket upgrades, then reads every message and answers none.
func WSSilent(tb testing.TB) *Server {
	return start(tb, listen(tb), func(c net.Conn, _ <-chan struct{}) {
		r := bufio.NewReader(c)
		if !upgrade(c, r) {
			return
		}
		_, _ = io.Copy(io.Discard, r)
	})
}

// ResetMidAnswer answers every request with the start of a 200 whose body is cut short by a TCP
// reset.
func ResetMidAnswer(tb testing.TB) *Server {
	return start(tb, listen(tb), func(c net.Conn, _ <-chan struct{}) {
		if !readHead(bufio.NewReader(c)) {
			return
		}
		_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\nhalf an ans")
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.SetLinger(0) // close sends RST instead of FIN
		}
	})
}

// Answer is a complete HTTP/1.1 answer of 200 with the body "ok".
const Answer = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"

// CloseAtRandom answers every request with Answer and keeps the connection alive, but after each
// answer closes the connection with probability p (no "Connection: close" warns the client), from
// a sequence that seed makes repeatable.
func CloseAtRandom(tb testing.TB, p float64, seed uint64) *Server {
	var mu sync.Mutex
	x := seed | 1
	draw := func() float64 { // xorshift64: repeatable, no global state
		mu.Lock()
		defer mu.Unlock()
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		return float64(x>>11) / (1 << 53)
	}
	return start(tb, listen(tb), func(c net.Conn, _ <-chan struct{}) {
		r := bufio.NewReader(c)
		for readHead(r) {
			if _, err := io.WriteString(c, Answer); err != nil || draw() < p {
				return
			}
		}
	})
}

// Garbage reads a request head and answers with data, then closes the connection.
func Garbage(tb testing.TB, data string) *Server {
	return start(tb, listen(tb), func(c net.Conn, _ <-chan struct{}) {
		if !readHead(bufio.NewReader(c)) {
			return
		}
		_, _ = io.WriteString(c, data)
	})
}

// NotHTTP is an answer that is no HTTP at all.
const NotHTTP = "SSH-2.0-OpenSSH_9.6\r\n\x00\xff\xfe garbage \x7f\r\n\r\n"

// NotJSON is an HTTP answer of 200 whose body is not JSON.
const NotJSON = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 12\r\n\r\n<html>oops</"

// Trickle answers every request with a valid 200 whose body is 1000 bytes, written one byte every
// period (the head too), until the client goes away or the server closes.
func Trickle(tb testing.TB, period time.Duration) *Server {
	return start(tb, listen(tb), func(c net.Conn, done <-chan struct{}) {
		if !readHead(bufio.NewReader(c)) {
			return
		}
		ans := "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n"
		for len(ans) < 1000+38 {
			ans += "x"
		}
		t := time.NewTicker(period)
		defer t.Stop()
		for i := range len(ans) {
			if _, err := io.WriteString(c, ans[i:i+1]); err != nil {
				return
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	})
}

// EndlessBody answers every request with a 200 whose body never ends: chunked, or with a
// Content-Length of 64 GiB (a 1 GiB body is read in well under a second over loopback), written as
// fast as the client reads.
func EndlessBody(tb testing.TB, chunked bool) *Server {
	return start(tb, listen(tb), func(c net.Conn, _ <-chan struct{}) {
		if !readHead(bufio.NewReader(c)) {
			return
		}
		head, chunk := "HTTP/1.1 200 OK\r\nContent-Length: 68719476736\r\n\r\n", make([]byte, 32<<10)
		if chunked {
			head = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
			chunk = append([]byte("8000\r\n"), make([]byte, 32<<10)...)
			chunk = append(chunk, "\r\n"...)
		}
		if _, err := io.WriteString(c, head); err != nil {
			return
		}
		for written := 0; written < 1<<36; written += len(chunk) {
			if _, err := c.Write(chunk); err != nil {
				return
			}
		}
	})
}

// Silent accepts connections, reads what comes and never answers.
func Silent(tb testing.TB) *Server {
	return start(tb, listen(tb), func(c net.Conn, _ <-chan struct{}) {
		_, _ = io.Copy(io.Discard, c)
	})
}

// TLSAlert reads the client's first TLS record (its ClientHello) and answers with a fatal
// handshake_failure alert: the handshake fails at once.
func TLSAlert(tb testing.TB) *Server {
	return start(tb, listen(tb), func(c net.Conn, _ <-chan struct{}) {
		hdr := make([]byte, 5)
		if _, err := io.ReadFull(c, hdr); err != nil {
			return
		}
		if _, err := io.CopyN(io.Discard, c, int64(hdr[3])<<8|int64(hdr[4])); err != nil {
			return
		}
		_, _ = c.Write([]byte{0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x28}) // alert, TLS 1.2, fatal, handshake_failure
	})
}

// Flapping is a server that answers every request with Answer on kept-alive connections, and can
// go away (Down: its listener and every connection closed, so connections are refused) and come
// back (Up) on the same port. Its port stays reserved while it is down.
type Flapping struct {
	*Server
	served atomic.Uint64
}

// Served returns the number of answers written so far.
func (f *Flapping) Served() uint64 { return f.served.Load() }

// NewFlapping starts a Flapping server, up, on a port that stays reserved for the rest of the
// test (see testnet.ReservedAddr).
func NewFlapping(tb testing.TB, addr string) *Flapping {
	tb.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		tb.Fatalf("faults: %v", err)
	}
	f := &Flapping{}
	f.Server = start(tb, ln, func(c net.Conn, _ <-chan struct{}) {
		r := bufio.NewReader(c)
		for readHead(r) {
			if _, err := io.WriteString(c, Answer); err != nil {
				return
			}
			f.served.Add(1)
		}
	})
	return f
}

// Down closes the listener and every connection: until Up, connections are refused.
func (f *Flapping) Down() { f.dropAll() }

// Up listens again on the same address. It reports a failure to tb.
func (f *Flapping) Up(tb testing.TB) {
	tb.Helper()
	ln, err := net.Listen("tcp", f.Addr)
	if err != nil {
		tb.Errorf("faults: listen again on %s: %v", f.Addr, err)
		return
	}
	f.mu.Lock()
	closed := f.closed
	f.mu.Unlock()
	if closed {
		ln.Close()
		return
	}
	f.serve(ln)
}
