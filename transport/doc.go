// Package transport says how a request travels: one small interface, Transport, with one
// implementation per protocol in its subpackages: httpx for HTTP/1.1 and HTTPS, h2 for HTTP/2 (h2
// by ALPN, h2c), grpcx for gRPC, ws for JSON-RPC over WebSocket; a registry (Register, New) makes
// the one a plan's protocol names. Its words, Protocol, Request, Outcome, Header and TLSFiles, are
// package result's (aliases), so that what reads results needs no transport.
//
// It sits between engine and result in the flow plan → schedule → engine → transport → result →
// summary → report. A failed request is data (Outcome.Class and Outcome.Err), never an error that
// stops a run.
package transport
