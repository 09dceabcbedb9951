//go:build unix

package testnet

import (
	"errors"
	"net"
	"syscall"
	"testing"
	"time"
)

func TestRefusedAddrRefuses(t *testing.T) {
	t.Parallel()
	addr := RefusedAddr(t)
	for range 3 {
		c, err := net.DialTimeout("tcp", addr, 10*time.Second)
		if err == nil {
			c.Close()
			t.Fatalf("dial %s: connected; want refused", addr)
		}
		if !errors.Is(err, syscall.ECONNREFUSED) {
			t.Fatalf("dial %s: %v; want connection refused", addr, err)
		}
	}
	// The port stays taken: nobody else can listen on it while the test runs.
	if ln, err := net.Listen("tcp", addr); err == nil {
		ln.Close()
		t.Errorf("listen %s: succeeded; want the port taken", addr)
	}
}

func TestReservedAddrRelisten(t *testing.T) {
	t.Parallel()
	addr := ReservedAddr(t)
	for round := range 2 {
		if c, err := net.DialTimeout("tcp", addr, 10*time.Second); err == nil {
			c.Close()
			t.Fatalf("round %d: dial %s before listening: connected; want refused", round, addr)
		}
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			t.Fatalf("round %d: listen %s: %v; want the reserved port free to listen on", round, addr, err)
		}
		c, err := net.DialTimeout("tcp", addr, 10*time.Second)
		if err != nil {
			t.Fatalf("round %d: dial %s while listening: %v", round, addr, err)
		}
		c.Close()
		ln.Close()
	}
}

func TestClosed(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if err := Closed(ln); err == nil {
		t.Errorf("Closed on an open listener: got nil; want an error")
	}
	// still open after the check: a connection is accepted
	ln.(*net.TCPListener).SetDeadline(time.Now().Add(10 * time.Second)) //nolint:errcheck // bounds the Accept below
	go func() {
		if c, err := net.DialTimeout("tcp", ln.Addr().String(), 10*time.Second); err == nil {
			c.Close()
		}
	}()
	if c, err := ln.Accept(); err != nil {
		t.Errorf("Accept after the check: %v; want a connection", err)
	} else {
		c.Close()
	}
	ln.Close()
	if err := Closed(ln); err != nil {
		t.Errorf("Closed on a closed listener: %v; want nil", err)
	}
}
