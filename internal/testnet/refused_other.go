//go:build !unix

package testnet

import (
	"net"
	"testing"
)

// refusedAddr takes a free port and closes it: a parallel test may take it again, which is rare.
func refusedAddr(tb testing.TB) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("testnet: %v", err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// reservedAddr takes a free port and closes it: a parallel test may take it again, which is rare.
func reservedAddr(tb testing.TB) string { return refusedAddr(tb) }
