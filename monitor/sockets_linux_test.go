//go:build linux

package monitor

import (
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The own-socket sampler's dump asks the kernel only for the states a process's socket can be in:
// connections in TIME_WAIT on loopback, which the dump of every state shows, are not sent at all,
// while every live connection still comes with its exact byte counts.
func TestTCPSocketsSkipsTimeWait(t *testing.T) {
	t.Parallel()
	if err := dumpTCP(inodeStates, func([]byte) {}); err != nil {
		t.Skipf("sock_diag not available: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := uint16(ln.Addr().(*net.TCPAddr).Port)
	deadline := time.Now().Add(20 * time.Second)
	_ = ln.(*net.TCPListener).SetDeadline(deadline)
	dial := func() (client, server net.Conn) {
		t.Helper()
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		s, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		_ = c.SetDeadline(deadline)
		_ = s.SetDeadline(deadline)
		return c, s
	}

	// 5 connections closed by the client first: each client end goes to TIME_WAIT
	const closed = 5
	for range closed {
		c, s := dial()
		c.Close()
		if _, err := io.Copy(io.Discard, s); err != nil { // the client's FIN arrived
			t.Fatal(err)
		}
		s.Close()
	}
	// 3 live connections, each sending 1000·(i+1) bytes and receiving 70·(i+1)
	type live struct {
		inode   uint64
		out, in uint64
		srv     net.Conn
	}
	var lives []live
	for i := range 3 {
		c, s := dial()
		defer c.Close()
		defer s.Close()
		out, in := 1000*(i+1), 70*(i+1)
		if _, err := c.Write(bytes.Repeat([]byte{'q'}, out)); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(s, make([]byte, out)); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Write(bytes.Repeat([]byte{'a'}, in)); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(c, make([]byte, in)); err != nil {
			t.Fatal(err)
		}
		lives = append(lives, live{inode: inodeOf(t, c), out: uint64(out), in: uint64(in), srv: s})
	}

	// the client ends reach TIME_WAIT as the server's FIN is processed: dump every state until all
	// 5 are there (a bounded number of dumps, each a round trip to the kernel)
	timeWait := func(states uint32) (n int) {
		t.Helper()
		err := dumpTCP(states, func(m []byte) {
			// inet_diag_msg: family, state, timer, retrans, then sport and dport, big-endian
			if len(m) >= 8 && m[1] == tcpTimeWait && binary.BigEndian.Uint16(m[6:]) == port {
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
		t.Fatalf("the dump of every state shows %d connections to port %d in TIME_WAIT; want %d", seen, port, closed)
	}
	if n := timeWait(inodeStates); n != 0 {
		t.Errorf("the sampler's dump has %d connections in TIME_WAIT; want none: the kernel should leave them out", n)
	}
	all, err := tcpSockets()
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range lives {
		got, ok := all[l.inode]
		if !ok || got.Sent != l.out || got.Received != l.in {
			t.Errorf("live connection %d (inode %d): found %v, sent %d, received %d; want sent %d, received %d",
				i, l.inode, ok, got.Sent, got.Received, l.out, l.in)
		}
		if srv, ok := all[inodeOf(t, l.srv)]; !ok || srv.Sent != l.in || srv.Received != l.out {
			t.Errorf("its server end: found %v, sent %d, received %d; want %d, %d", ok, srv.Sent, srv.Received, l.in, l.out)
		}
	}
}

// inodeOf returns the inode of a connection's socket, as /proc/PID/fd links name it.
func inodeOf(t *testing.T, c net.Conn) uint64 {
	t.Helper()
	rc, err := c.(*net.TCPConn).SyscallConn()
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

// BenchmarkTCPSockets is the own-socket sampler's dump, once a second in a run: its cost follows
// the namespace's sockets in the states it asks for.
//
//	ss -s; go test -run '^$' -bench TCPSockets ./monitor
func BenchmarkTCPSockets(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tcpSockets(); err != nil {
			b.Skip(err)
		}
	}
}
