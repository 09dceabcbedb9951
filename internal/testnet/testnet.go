// Package testnet holds network helpers for the tests of rpcbench's packages.
package testnet

import (
	"errors"
	"fmt"
	"net"
	"testing"
	"time"
)

// RefusedAddr returns a loopback host:port that refuses connections for the rest of the test.
// Closing a listener is not enough: a test running in parallel may be given the freed port by
// its own Listen on port 0 and answer where a refusal was wanted. Where the platform allows it,
// the port stays bound (without listening) until the test ends, so nobody else can take it.
func RefusedAddr(tb testing.TB) string {
	tb.Helper()
	return refusedAddr(tb)
}

// ReservedAddr returns a loopback host:port that nobody else is given for the rest of the test,
// where the caller may listen, close and listen again: a server that goes away and comes back on
// the same port. Between its listeners connections are refused. Where the platform allows it,
// a socket bound with SO_REUSEADDR (never listening) holds the port: a listener with SO_REUSEADDR
// (Go sets it on every listener) may share it, but a bind to port 0 is never given it.
func ReservedAddr(tb testing.TB) string {
	tb.Helper()
	return reservedAddr(tb)
}

// Closed returns nil if ln is closed, else an error saying it still accepts. It looks at the
// listener itself: listening again on its port to prove the port free would fail whenever a test
// running in parallel has been given that port meanwhile. ln must be a *net.TCPListener, not in
// use by a server any more.
func Closed(ln net.Listener) error {
	tl, ok := ln.(*net.TCPListener)
	if !ok {
		return fmt.Errorf("testnet: a %T; want a *net.TCPListener", ln)
	}
	// On an open listener the deadline makes Accept return at once instead of waiting.
	if err := tl.SetDeadline(time.Now()); errors.Is(err, net.ErrClosed) {
		return nil
	}
	c, err := tl.Accept()
	switch {
	case errors.Is(err, net.ErrClosed):
		return nil
	case err == nil:
		c.Close()
	}
	return fmt.Errorf("listener on %s is open (Accept: %v); want it closed", ln.Addr(), err)
}
