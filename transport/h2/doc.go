// Package h2 is rpcbench's HTTP/2 transport: h2 over TLS, chosen by ALPN (a server that does not
// offer h2 is spoken to in HTTP/1.1 on the same connection), and h2c, HTTP/2 over cleartext TCP
// with prior knowledge. It implements transport.Transport with its own HTTP/2 client connection,
// built on golang.org/x/net/http2's Framer and its HPACK encoder and decoder (net/http's client
// connection speaks HTTP/1.1 when ALPN chose it), and its own pool: requests are multiplexed, up
// to Options.Streams per connection, and another connection opens only when every open one
// carries that many, up to Options.MaxConns.
//
// A connection has one goroutine reading the server's frames and handing each answer to the
// request waiting for it, and one writing to the server what requests leave in its buffer, after
// letting the goroutines ready to run go first, so that concurrent requests share a write. In
// steady state a request allocates nothing.
//
// It sits in the flow plan → schedule → engine → transport → result, beside httpx (HTTP/1.1): the
// engine hands it one transport.Request at a time and gets back a transport.Outcome with the same
// fields and error classes as httpx gives, and, for each connection opened, its set-up (DNS,
// connect, TLS handshake, apart from request latency) and the protocol it spoke
// (result.ConnEvent.Proto: "h2", "h2c" or "http/1.1").
package h2
