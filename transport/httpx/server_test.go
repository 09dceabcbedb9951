package httpx

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
)

// rawServer is a TCP server on 127.0.0.1 that runs handle for each connection, so that tests can send
// exact bytes. Close (also run by the test's cleanup) closes the listener and every connection and
// waits for the handlers.
type rawServer struct {
	ln       net.Listener
	accepted atomic.Int64
	wg       sync.WaitGroup
	mu       sync.Mutex
	conns    map[net.Conn]struct{}
}

func startRaw(tb testing.TB, handle func(c net.Conn)) *rawServer {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	s := &rawServer{ln: ln, conns: map[net.Conn]struct{}{}}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.accepted.Add(1)
			s.mu.Lock()
			s.conns[c] = struct{}{}
			s.mu.Unlock()
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				defer c.Close()
				handle(c)
			}()
		}
	}()
	tb.Cleanup(s.Close)
	return s
}

// Host returns the server's address as host:port.
func (s *rawServer) Host() string { return s.ln.Addr().String() }

func (s *rawServer) Close() {
	s.ln.Close()
	s.mu.Lock()
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
}

// readRequest reads one request's head from br and discards its body (Content-Length framing only).
// It returns the head's bytes appended to head, and allocates nothing once head has grown.
func readRequest(br *bufio.Reader, head []byte) ([]byte, error) {
	var length int64
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return head, err
		}
		head = append(head, line...)
		if len(line) <= 2 { // the empty line that ends the head
			break
		}
		if len(line) > 16 && equalFold(line[:15], "content-length:") {
			n, ok := parseDecimal(trimSpace(bytes.TrimRight(line[15:], "\r\n")))
			if ok {
				length = n
			}
		}
	}
	_, err := br.Discard(int(length))
	return head, err
}

// answerEach answers every request on the connection with resp. It allocates nothing per request.
func answerEach(resp string) func(net.Conn) {
	answer := []byte(resp)
	return func(c net.Conn) {
		br := bufio.NewReader(c)
		var head []byte
		for {
			var err error
			if head, err = readRequest(br, head[:0]); err != nil {
				return
			}
			if _, err := c.Write(answer); err != nil {
				return
			}
		}
	}
}

// answerOnce answers the first request with resp and closes the connection.
func answerOnce(resp string) func(net.Conn) {
	return func(c net.Conn) {
		if _, err := readRequest(bufio.NewReader(c), nil); err == nil {
			io.WriteString(c, resp)
		}
	}
}

// neverAnswer reads the request and waits for the client to go away.
func neverAnswer(c net.Conn) {
	br := bufio.NewReader(c)
	if _, err := readRequest(br, nil); err == nil {
		io.Copy(io.Discard, br)
	}
}
