//go:build linux

package monitor

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"os"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The own-socket sampler's dump asks the kernel only for the states a process's socket can be in:
// connections in TIME_WAIT on loopback, which the dump of every state shows, are not sent at all,
// while every live connection still comes with its exact byte counts.
func TestTCPSocketsSkipsTimeWait(t *testing.T) {
	t.Parallel()
	ln := diagListener(t)
	port := uint16(ln.Addr().(*net.TCPAddr).Port)
	deadline := time.Now().Add(20 * time.Second)

	// 5 connections closed by the client first: each client end goes to TIME_WAIT
	const closed = 5
	ours := map[uint16]bool{} // their client ports (a TIME_WAIT of an earlier run may share the server's)
	for range closed {
		c, s := loopbackPair(t, ln, 0, 0)
		ours[uint16(c.LocalAddr().(*net.TCPAddr).Port)] = true
		c.Close()
		if _, err := io.Copy(io.Discard, s); err != nil { // the client's FIN arrived
			t.Fatal(err)
		}
		s.Close()
	}
	// 3 live connections, each sending 1000·(i+1) bytes and receiving 70·(i+1)
	want := map[uint64][2]uint64{} // inode: sent, received
	for i := range 3 {
		c, s := loopbackPair(t, ln, 1000*(i+1), 70*(i+1))
		want[inodeOf(t, c)] = [2]uint64{uint64(1000 * (i + 1)), uint64(70 * (i + 1))}
		want[inodeOf(t, s)] = [2]uint64{uint64(70 * (i + 1)), uint64(1000 * (i + 1))}
	}

	// the client ends reach TIME_WAIT as the server's FIN is processed: dump every state until all
	// 5 are there (a bounded number of dumps, each a round trip to the kernel)
	timeWait := func(states uint32) (n int) {
		t.Helper()
		err := dumpTCP(states, func(m []byte) {
			// inet_diag_msg: family, state, timer, retrans, then sport and dport, big-endian
			if len(m) >= 8 && m[1] == tcpTimeWait && ours[binary.BigEndian.Uint16(m[4:])] && binary.BigEndian.Uint16(m[6:]) == port {
				n++
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	seen := 0
	for i := 0; i < 2000 && seen < closed && time.Now().Before(deadline); i++ {
		seen = timeWait(^uint32(0))
	}
	if seen != closed {
		t.Fatalf("the dump of every state shows %d of the connections to port %d in TIME_WAIT; want %d", seen, port, closed)
	}
	if n := timeWait(inodeStates); n != 0 {
		t.Errorf("the sampler's dump has %d connections in TIME_WAIT; want none: the kernel should leave them out", n)
	}
	all, err := tcpSockets()
	if err != nil {
		t.Fatal(err)
	}
	sameBytes(t, "sock_diag", all, want)
}

// This process's own sockets, read through getsockopt on its descriptors (as the generator's
// monitor of itself reads them), are the TCP sockets sock_diag's dump gives for its inodes, with
// the same byte counts: a listener and three connections that moved known bytes, and not a UDP
// socket nor a Unix socket pair.
func TestOwnTCPSocketsMatchDump(t *testing.T) {
	t.Parallel()
	ln := diagListener(t)
	want := map[uint64][2]uint64{inodeOf(t, ln): {0, 0}} // inode: sent, received
	for i := range 3 {
		c, s := loopbackPair(t, ln, 3000*(i+1), 11*(i+1))
		want[inodeOf(t, c)] = [2]uint64{uint64(3000 * (i + 1)), uint64(11 * (i + 1))}
		want[inodeOf(t, s)] = [2]uint64{uint64(11 * (i + 1)), uint64(3000 * (i + 1))}
	}
	udp, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(pair[0])
	defer unix.Close(pair[1])
	notTCP := map[uint64]string{inodeOf(t, udp): "the UDP socket"}
	for _, fd := range pair {
		ino, ok := socketInode(fd)
		if !ok {
			t.Fatalf("descriptor %d of the Unix socket pair is not a socket", fd)
		}
		notTCP[ino] = "a Unix socket"
	}

	// this process's sampler reads its sockets so; listed twice, each socket counts once
	socks, known := (&reader{}).readSockets([]int{os.Getpid(), os.Getpid()})
	if !known {
		t.Fatal("this process's own sockets: not known")
	}
	own := map[uint64]SockReading{}
	for _, k := range socks {
		if _, twice := own[k.Inode]; twice {
			t.Errorf("inode %d listed twice", k.Inode)
		}
		if name, ok := notTCP[k.Inode]; ok {
			t.Errorf("getsockopt route: %s (inode %d) counted as a TCP socket", name, k.Inode)
		}
		own[k.Inode] = k
	}
	dump, err := tcpSockets()
	if err != nil {
		t.Fatal(err)
	}
	sameBytes(t, "getsockopt", own, want)
	sameBytes(t, "sock_diag", dump, want)
}

// diagListener skips t where sock_diag cannot be read, and otherwise returns a listener on
// loopback, closed when t ends.
func diagListener(t *testing.T) net.Listener {
	t.Helper()
	if err := dumpTCP(inodeStates, func([]byte) {}); err != nil {
		t.Skipf("sock_diag not available: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln
}

// sameBytes fails unless all holds every socket of want (inode: sent, received) with its bytes.
func sameBytes(t *testing.T, route string, all map[uint64]SockReading, want map[uint64][2]uint64) {
	t.Helper()
	for ino, w := range want {
		if got, ok := all[ino]; !ok || got.Sent != w[0] || got.Received != w[1] {
			t.Errorf("%s route, inode %d: found %v, sent %d, received %d; want sent %d, received %d",
				route, ino, ok, got.Sent, got.Received, w[0], w[1])
		}
	}
}

// loopbackPair connects to ln and accepts, sends out bytes from the client end and in bytes from
// the server end, each read in full by the other, and returns both ends, closed when t ends.
func loopbackPair(t *testing.T, ln net.Listener, out, in int) (client, server net.Conn) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	_ = ln.(*net.TCPListener).SetDeadline(deadline)
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	s, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	_ = c.SetDeadline(deadline)
	_ = s.SetDeadline(deadline)
	for _, x := range []struct {
		from, to net.Conn
		n        int
	}{{c, s, out}, {s, c, in}} {
		if _, err := x.from.Write(bytes.Repeat([]byte{'q'}, x.n)); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(x.to, make([]byte, x.n)); err != nil {
			t.Fatal(err)
		}
	}
	return c, s
}

// inodeOf returns the inode of a connection's socket, as /proc/PID/fd links name it.
func inodeOf(t *testing.T, c any) uint64 {
	t.Helper()
	rc, err := c.(syscall.Conn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var st unix.Stat_t
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = unix.Fstat(int(fd), &st) }); err != nil || serr != nil {
		t.Fatal(err, serr)
	}
	return st.Ino
}

// BenchmarkTCPSockets is the own-socket sampler's read, once a second in a run, with 50
// connections open on loopback: "dump" asks sock_diag for the namespace's sockets, whose cost
// follows every socket of the namespace; "self" reads this process's own by getsockopt, as the
// generator's monitor of itself does.
//
//	ss -s; go test -run '^$' -bench TCPSockets ./monitor
func BenchmarkTCPSockets(b *testing.B) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	for range 50 {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		s, err := ln.Accept()
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
	}
	b.Run("dump", func(b *testing.B) {
		for b.Loop() {
			if _, err := tcpSockets(); err != nil {
				b.Skip(err)
			}
		}
	})
	b.Run("self", func(b *testing.B) {
		for b.Loop() {
			if _, known := (&reader{}).readSockets([]int{os.Getpid()}); !known {
				b.Fatal("not known")
			}
		}
	})
}

// With no descriptor left to read /proc/self/fd with (a generator out of files), the generator's
// own sockets are not known for that sample: not read as none, which would show a second of no
// traffic and, at the next sample, every byte since the connections opened as that second's. Not
// parallel: the limit on open files is the process's.
func TestOwnSocketsUnknownWithoutDescriptors(t *testing.T) {
	var old unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &old); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	low := old
	low.Cur = uint64(len(ents) + 16)
	if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &low); err != nil {
		t.Skipf("cannot lower the limit on open files: %v", err)
	}
	var held []int
	defer func() {
		for _, fd := range held {
			unix.Close(fd)
		}
		if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &old); err != nil {
			t.Errorf("restoring the limit on open files: %v", err)
		}
	}()
	for len(held) < 64 { // the limit leaves 16 free: fill them
		fd, err := unix.Open("/dev/null", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			if !errors.Is(err, unix.EMFILE) {
				t.Fatal(err)
			}
			break
		}
		held = append(held, fd)
	}
	if socks, known := (&reader{}).readSockets([]int{os.Getpid()}); known {
		t.Errorf("out of descriptors: got %d sockets, known; want not known", len(socks))
	}
}
