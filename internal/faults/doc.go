// Package faults holds servers that misbehave on purpose, for the tests of rpcbench's fault matrix:
// each binds 127.0.0.1, serves one fault (resets mid-answer, closes kept-alive connections,
// answers garbage, trickles, sends an endless body, fails the TLS handshake, upgrades to
// WebSocket and then resets or stays silent, goes away and comes back, allows no HTTP/2 stream,
// answers every DNS question "no such name", serves HTTP/3 and then drops every UDP packet) and
// stops with Close, which waits for every goroutine
// it started. A refused connection needs no server: see testnet.RefusedAddr.
//
// Most faults are raw net.Listeners: an HTTP server cannot misbehave enough. They read a request
// (its head and a body of its Content-Length) and then act.
// The HTTP/2 faults (H2MaxRequests, H2NoStreams) speak h2c frame by frame with x/net/http2's
// Framer.
package faults
