// Package transport says how a request travels: one small interface, Transport, with one
// implementation per protocol in its subpackages (httpx for HTTP/1.1 and HTTPS; HTTP/2, gRPC and
// WebSocket follow the same shape).
//
// It sits between engine and result in the flow plan → schedule → engine → transport → result →
// summary → report. A failed request is data (Outcome.Class and Outcome.Err), never an error that
// stops a run.
package transport
