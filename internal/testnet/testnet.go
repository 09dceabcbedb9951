// Package testnet holds network helpers for the tests of rpcbench's packages.
package testnet

import "testing"

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
