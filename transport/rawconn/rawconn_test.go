//go:build linux

package rawconn

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"syscall"
	"testing"
	"time"
)

// pair returns the client end (wrapped) and the server end of a loopback TCP connection.
func pair(t testing.TB) (client *Conn, server *net.TCPConn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			accepted <- nil
			return
		}
		accepted <- c
	}()
	nc, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	s := <-accepted
	if s == nil {
		t.Fatal("accept failed")
	}
	w, ok := Wrap(nc).(*Conn)
	if !ok {
		t.Fatalf("Wrap(%T) did not wrap", nc)
	}
	t.Cleanup(func() { w.Close(); s.Close() })
	return w, s.(*net.TCPConn)
}

// Bytes written through a Conn arrive intact and in order, and bytes read through it are those
// the peer wrote — including a write far larger than the socket buffers, which must wait for room
// in the poller (EAGAIN) and carry on.
func TestRoundTrip(t *testing.T) {
	t.Parallel()
	c, s := pair(t)
	data := make([]byte, 8<<20)
	rnd := rand.New(rand.NewPCG(1, 2))
	for i := range data {
		data[i] = byte(rnd.Uint32())
	}
	echoed := make(chan error, 1)
	go func() { _, err := io.CopyN(s, s, int64(len(data))); echoed <- err }()
	got := make(chan []byte, 1)
	go func() {
		b := make([]byte, len(data))
		_, err := io.ReadFull(c, b)
		if err != nil {
			t.Errorf("read: %v", err)
		}
		got <- b
	}()
	n, err := c.Write(data)
	if err != nil || n != len(data) {
		t.Fatalf("write: %d, %v; want %d, nil", n, err, len(data))
	}
	if err := <-echoed; err != nil {
		t.Fatalf("echo: %v", err)
	}
	if b := <-got; !bytes.Equal(b, data) {
		t.Error("the bytes read back differ from those written")
	}
}

// resetPair returns the client end of a connection that its peer reset, once a read has seen the
// reset (and taken its error): a write after it finds the socket shut.
func resetPair(t *testing.T) *Conn {
	t.Helper()
	c, s := pair(t)
	if err := s.SetLinger(0); err != nil {
		t.Fatal(err)
	}
	s.Close() // with no linger: a RST
	if _, err := c.Read(make([]byte, 1)); !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("read: %v; want ECONNRESET", err)
	}
	return c
}

// The errors are net.Conn's: the same Op, network and addresses, and a cause that errors.Is finds.
func TestErrors(t *testing.T) {
	t.Parallel()
	check := func(t *testing.T, c *Conn, err error, op string, is error) {
		t.Helper()
		var oe *net.OpError
		if !errors.As(err, &oe) {
			t.Fatalf("got %T %v; want a *net.OpError", err, err)
		}
		if oe.Op != op || oe.Net != "tcp" || oe.Source.String() != c.LocalAddr().String() || oe.Addr.String() != c.RemoteAddr().String() {
			t.Errorf("got %q (op %q, net %q, source %v, addr %v); want op %q, tcp, %v, %v", err, oe.Op, oe.Net, oe.Source, oe.Addr, op, c.LocalAddr(), c.RemoteAddr())
		}
		if !errors.Is(err, is) {
			t.Errorf("got %v; want one that is %v", err, is)
		}
	}
	t.Run("deadline", func(t *testing.T) {
		c, _ := pair(t)
		if err := c.SetReadDeadline(time.Now().Add(20 * time.Millisecond)); err != nil {
			t.Fatal(err)
		}
		_, err := c.Read(make([]byte, 10))
		check(t, c, err, "read", os.ErrDeadlineExceeded)
		var ne net.Error
		if !errors.As(err, &ne) || !ne.Timeout() {
			t.Errorf("%v: want a net.Error whose Timeout is true", err)
		}
	})
	t.Run("reset", func(t *testing.T) {
		c, s := pair(t)
		if err := s.SetLinger(0); err != nil {
			t.Fatal(err)
		}
		s.Close() // with no linger: a RST
		_, err := c.Read(make([]byte, 10))
		check(t, c, err, "read", syscall.ECONNRESET)
	})
	t.Run("end of stream", func(t *testing.T) {
		c, s := pair(t)
		if _, err := s.Write([]byte("ab")); err != nil {
			t.Fatal(err)
		}
		s.Close()
		b, err := io.ReadAll(c)
		if err != nil || string(b) != "ab" {
			t.Errorf("got %q, %v; want \"ab\", nil (io.ReadAll ends at io.EOF)", b, err)
		}
		if n, err := c.Read(make([]byte, 1)); n != 0 || err != io.EOF {
			t.Errorf("read after the end: %d, %v; want 0, io.EOF", n, err)
		}
	})
	t.Run("write to a reset connection", func(t *testing.T) {
		c := resetPair(t)
		_, err := c.Write([]byte("x"))
		var oe *net.OpError
		if !errors.As(err, &oe) || oe.Op != "write" || !(errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)) {
			t.Errorf("got %v; want a write error that is ECONNRESET or EPIPE", err)
		}
	})
	t.Run("closed", func(t *testing.T) {
		c, _ := pair(t)
		c.Close()
		_, err := c.Read(make([]byte, 1))
		check(t, c, err, "read", net.ErrClosed)
		_, err = c.Write([]byte("x"))
		check(t, c, err, "write", net.ErrClosed)
	})
}

// A read or write through a Conn allocates nothing.
func TestReadWriteAllocs(t *testing.T) {
	c, s := pair(t)
	msg := []byte("0123456789")
	buf := make([]byte, len(msg))
	allocs := testing.AllocsPerRun(200, func() {
		if _, err := c.Write(msg); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(s, buf); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Write(msg); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(c, buf); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 0 {
		t.Errorf("%.1f allocations per write and read; want 0", allocs)
	}
	// The same exchange with the write made by the read, against a peer echoing in its own
	// goroutine (the answer must come after the write).
	c2, s2 := pair(t)
	if err := c2.SetDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	go func() {
		b := make([]byte, 64)
		for {
			n, err := s2.Read(b)
			if err != nil {
				return
			}
			if _, err := s2.Write(b[:n]); err != nil {
				return
			}
		}
	}()
	allocs = testing.AllocsPerRun(200, func() {
		c2.SendWithRead(msg)
		if _, err := io.ReadFull(c2, buf); err != nil {
			t.Fatal(err)
		}
		if _, err := c2.Sent(); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 0 {
		t.Errorf("%.1f allocations per SendWithRead and Read; want 0", allocs)
	}
}

// Wrap leaves what is not a TCP connection alone, and Unwrap gives back the TCP connection.
func TestWrapUnwrap(t *testing.T) {
	t.Parallel()
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	if Wrap(a) != a || Unwrap(a) != a {
		t.Error("Wrap or Unwrap changed a net.Pipe end")
	}
	c, _ := pair(t)
	if _, ok := Unwrap(c).(*net.TCPConn); !ok {
		t.Errorf("Unwrap gave %T; want *net.TCPConn", Unwrap(c))
	}
}

// FuzzRoundTrip writes data in chunks of one size through a Conn to an echoing peer and reads it
// back with a buffer of another size: what comes back must be what went out.
func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"), uint16(3), uint16(1))
	f.Add(bytes.Repeat([]byte{0xff}, 70000), uint16(65535), uint16(4096))
	f.Add([]byte{}, uint16(0), uint16(0))
	f.Fuzz(func(t *testing.T, data []byte, chunk, rbuf uint16) {
		c, s := pair(t)
		if err := c.SetDeadline(time.Now().Add(10 * time.Second)); err != nil {
			t.Fatal(err)
		}
		go func() { _, _ = io.CopyN(s, s, int64(len(data))) }()
		w := max(int(chunk), 1)
		wrote := make(chan error, 1)
		go func() {
			for p := data; len(p) > 0; {
				n := min(w, len(p))
				if m, err := c.Write(p[:n]); err != nil || m != n {
					wrote <- err
					return
				}
				p = p[n:]
			}
			wrote <- nil
		}()
		got := make([]byte, 0, len(data))
		buf := make([]byte, max(int(rbuf), 1))
		for len(got) < len(data) {
			n, err := c.Read(buf[:min(len(buf), len(data)-len(got))])
			if err != nil {
				t.Fatalf("read after %d of %d bytes: %v", len(got), len(data), err)
			}
			got = append(got, buf[:n]...)
		}
		if err := <-wrote; err != nil {
			t.Fatalf("write: %v", err)
		}
		if !bytes.Equal(got, data) {
			t.Error("the bytes read back differ from those written")
		}
	})
}

// Goroutines may write (and read) at once, as net.Conn allows: every write arrives whole.
func TestConcurrentWrites(t *testing.T) {
	t.Parallel()
	c, s := pair(t)
	const writers, each, size = 8, 50, 1000
	done := make(chan error, writers)
	for w := range writers {
		go func() {
			msg := bytes.Repeat([]byte{byte('a' + w)}, size)
			for range each {
				if _, err := c.Write(msg); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	got := make([]byte, writers*each*size)
	if _, err := io.ReadFull(s, got); err != nil {
		t.Fatal(err)
	}
	for range writers {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < len(got); i += size {
		if !bytes.Equal(got[i:i+size], bytes.Repeat(got[i:i+1], size)) {
			t.Fatalf("the write at byte %d was interleaved with another", i)
		}
	}
}

// A Read after SendWithRead writes the bytes and then waits for the answer without first reading
// the still empty socket: over 50 exchanges with a server that answers each request in one write,
// no read finds the socket empty (a Write then a Read, as before, makes one such read in nearly
// every exchange: the server has not answered yet when the read comes right after the write).
func TestSendWithReadWaitsBeforeReading(t *testing.T) {
	t.Parallel()
	c, s := pair(t)
	if err := c.SetDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	const rounds = 50
	req, ans := []byte("ping 0123456789"), []byte("pong 9876543210")
	served := make(chan error, 1)
	go func() {
		buf := make([]byte, len(req))
		for range rounds {
			if _, err := io.ReadFull(s, buf); err != nil {
				served <- err
				return
			}
			if _, err := s.Write(ans); err != nil {
				served <- err
				return
			}
		}
		served <- nil
	}()
	buf := make([]byte, 64)
	for i := range rounds {
		c.SendWithRead(req)
		n, err := c.Read(buf)
		if err != nil || string(buf[:n]) != string(ans) {
			t.Fatalf("round %d: read %q, %v; want %q, nil", i, buf[:n], err, ans)
		}
		if sent, err := c.Sent(); sent != len(req) || err != nil {
			t.Fatalf("round %d: Sent() = %d, %v; want %d, nil", i, sent, err, len(req))
		}
	}
	if err := <-served; err != nil {
		t.Fatalf("server: %v", err)
	}
	if n := c.EmptyReads(); n != 0 {
		t.Errorf("%d of %d reads found the socket empty; want 0: the read after the write should wait for the answer first", n, rounds)
	}
}

// Bytes given to SendWithRead that do not fit in the socket buffers are written whole all the
// same (the Read waits for room), before the answer is read.
func TestSendWithReadLargeRequest(t *testing.T) {
	t.Parallel()
	c, s := pair(t)
	if err := c.SetDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	req := make([]byte, 8<<20)
	rnd := rand.New(rand.NewPCG(3, 4))
	for i := range req {
		req[i] = byte(rnd.Uint32())
	}
	got := make(chan []byte, 1)
	go func() {
		b := make([]byte, len(req))
		if _, err := io.ReadFull(s, b); err != nil {
			t.Errorf("server read: %v", err)
		}
		got <- b
		_, _ = s.Write([]byte("done"))
	}()
	c.SendWithRead(req)
	buf := make([]byte, 16)
	n, err := c.Read(buf)
	if err != nil || string(buf[:n]) != "done" {
		t.Fatalf("read %q, %v; want \"done\", nil", buf[:n], err)
	}
	if sent, err := c.Sent(); sent != len(req) || err != nil {
		t.Errorf("Sent() = %d, %v; want %d, nil", sent, err, len(req))
	}
	if b := <-got; !bytes.Equal(b, req) {
		t.Error("the bytes the server read differ from those sent")
	}
}

// When the bytes cannot go out, Sent says why as a write error of net.Conn's kind, and the Read
// fails as it would have alone.
func TestSendWithReadErrors(t *testing.T) {
	t.Parallel()
	t.Run("closed", func(t *testing.T) {
		c, _ := pair(t)
		c.Close()
		c.SendWithRead([]byte("x"))
		if _, err := c.Read(make([]byte, 1)); !errors.Is(err, net.ErrClosed) {
			t.Errorf("read: %v; want net.ErrClosed", err)
		}
		n, err := c.Sent()
		var oe *net.OpError
		if n != 0 || !errors.As(err, &oe) || oe.Op != "write" || !errors.Is(err, net.ErrClosed) {
			t.Errorf("Sent() = %d, %v; want 0 and a write error that is net.ErrClosed", n, err)
		}
	})
	t.Run("deadline passed", func(t *testing.T) {
		c, s := pair(t)
		if err := c.SetDeadline(time.Unix(1, 0)); err != nil {
			t.Fatal(err)
		}
		c.SendWithRead([]byte("x"))
		if _, err := c.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("read: %v; want os.ErrDeadlineExceeded", err)
		}
		if n, err := c.Sent(); n != 0 || !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("Sent() = %d, %v; want 0, os.ErrDeadlineExceeded", n, err)
		}
		// Nothing went out: the server reads the end of the stream, not the byte.
		c.Close()
		if b, err := io.ReadAll(s); len(b) != 0 || err != nil {
			t.Errorf("the server read %q, %v; want nothing", b, err)
		}
	})
	t.Run("reset", func(t *testing.T) {
		c := resetPair(t)
		c.SendWithRead([]byte("x"))
		if _, err := c.Read(make([]byte, 1)); err == nil {
			t.Error("read: nil error; want the reset connection's")
		}
		n, err := c.Sent()
		var oe *net.OpError
		if n != 0 || !errors.As(err, &oe) || oe.Op != "write" || !(errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET)) {
			t.Errorf("Sent() = %d, %v; want 0 and a write error that is EPIPE or ECONNRESET", n, err)
		}
	})
}
