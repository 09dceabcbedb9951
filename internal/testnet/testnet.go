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
