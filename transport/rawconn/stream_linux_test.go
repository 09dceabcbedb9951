package rawconn

import (
	"bytes"
	"errors"
	"io"
	"net"
	"testing"
)

// ReadStream hands got every byte the peer wrote, in order, across reads that fill the space it
// is given (a 1 MiB write read 4 KiB at a time) and short ones (20 small writes, each sent once
// the one before was taken); between the small writes it waits in the poller instead of reading
// the empty socket, and at the end of the stream it returns io.EOF.
func TestReadStream(t *testing.T) {
	t.Parallel()
	c, s := pair(t)
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<16)
	const small = 20
	taken := make(chan struct{})
	go func() {
		defer s.Close()
		if _, err := s.Write(big); err != nil {
			return
		}
		<-taken
		for i := range small {
			if _, err := s.Write([]byte{byte('a' + i)}); err != nil {
				return
			}
			<-taken
		}
	}()
	buf := make([]byte, 4<<10)
	var got []byte
	err := c.ReadStream(func() []byte { return buf }, func(n int) error {
		got = append(got, buf[:n]...)
		if len(got) == len(big) || len(got) > len(big) && len(got) <= len(big)+small {
			taken <- struct{}{} // the peer writes the next piece only now
		}
		return nil
	})
	want := append(bytes.Clone(big), []byte("abcdefghijklmnopqrst")...)
	if err != io.EOF || !bytes.Equal(got, want) {
		t.Fatalf("got %d bytes (equal: %v), error %v; want the %d written, io.EOF", len(got), bytes.Equal(got, want), err, len(want))
	}
	// The reads that found the socket empty: at most one before the big write, one after it and
	// one a small write if a readiness came for bytes already read; reading on until EAGAIN after
	// each small write makes 20 and more.
	if e := c.EmptyReads(); e > small/2 {
		t.Errorf("%d reads found the socket empty; want at most %d", e, small/2)
	}
}

// got's error ends ReadStream and is its error; Close from another goroutine ends ReadStream with
// net.ErrClosed, as it would end Read.
func TestReadStreamErrors(t *testing.T) {
	t.Parallel()
	c, s := pair(t)
	stop := errors.New("stop")
	if _, err := s.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 16)
	if err := c.ReadStream(func() []byte { return buf }, func(int) error { return stop }); err != stop {
		t.Errorf("got's error: ReadStream returned %v; want %v", err, stop)
	}
	arrived, done := make(chan struct{}), make(chan error, 1)
	go func() {
		done <- c.ReadStream(func() []byte { return buf }, func(int) error {
			close(arrived)
			return nil
		})
	}()
	if _, err := s.Write([]byte("y")); err != nil {
		t.Fatal(err)
	}
	<-arrived
	c.Close() // waits for ReadStream to leave got; its next wait finds the connection closed
	var oe *net.OpError
	if err := <-done; !errors.Is(err, net.ErrClosed) || !errors.As(err, &oe) || oe.Op != "read" {
		t.Errorf("closed while streaming: ReadStream returned %v; want a read *net.OpError wrapping net.ErrClosed", err)
	}
}
