// Package httpx is rpcbench's HTTP/1.1 and HTTPS transport: a client written for load generation on
// net.Conn and crypto/tls, implementing transport.Transport.
//
// It sits in the flow plan → schedule → engine → transport → result: the engine hands it one
// transport.Request at a time and gets back a transport.Outcome that says when the request was
// sent, when the first byte of the answer arrived, the status, the bytes moved, the connection set-up
// (DNS, connect, TLS) when a connection was opened, and, on failure, an error class.
//
// The client is purpose-built rather than net/http or fasthttp because the hot path must not
// allocate: each connection owns a bufio.Reader and bufio.Writer, requests are written from the
// reusable Request without formatting, answers are parsed by a hand-written parser (status line,
// Content-Length, chunked with trailers, read-until-close, no body for HEAD/204/304, 1xx interim
// answers skipped) with limits against hostile servers, and bodies are discarded or copied into the
// Outcome's reusable buffer. Cancellation is watched per connection with one context.AfterFunc per
// run context, not one per request. docs/performance.md gives the measurements behind this choice.
package httpx
