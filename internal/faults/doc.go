// Package faults holds servers that misbehave on purpose, for the tests of rpcbench's fault matrix:
// each binds 127.0.0.1, serves one fault (refuses, resets mid-answer, closes kept-alive
// connections, answers garbage, trickles, sends an endless body, fails the TLS handshake, goes
// away and comes back) and closes with Close, which waits for every goroutine it started.
//
// Most faults are raw net.Listeners: an HTTP server cannot misbehave enough. They read a request
// head (GET requests: no body) and then act.
package faults
