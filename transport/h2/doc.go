// Package h2 is rpcbench's HTTP/2 transport: h2 over TLS, chosen by ALPN (a server that does not
// offer h2 is spoken to in HTTP/1.1 on the same connection), and h2c, HTTP/2 over cleartext TCP
// with prior knowledge. It implements transport.Transport on net/http's client connections
// (http.Transport.NewClientConn), with its own pool: requests are multiplexed, up to Options.Streams
// per connection, and another connection opens only when every open one carries that many, up to
// Options.MaxConns.
//
// It sits in the flow plan → schedule → engine → transport → result, beside httpx (HTTP/1.1): the
// engine hands it one transport.Request at a time and gets back a transport.Outcome with the same
// fields and error classes as httpx gives, and, for each connection opened, its set-up (DNS,
// connect, TLS handshake, apart from request latency) and the protocol it spoke
// (result.ConnEvent.Proto: "h2", "h2c" or "http/1.1").
package h2
