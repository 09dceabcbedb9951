// Package h3 is rpcbench's HTTP/3 transport: HTTP over QUIC (UDP), to https:// URLs, built on
// github.com/quic-go/quic-go and its http3 package. It implements transport.Transport with its own
// pool of QUIC connections, all on one UDP socket: requests are multiplexed, up to
// Options.Streams per connection, and another connection opens only when every open one carries
// that many, up to Options.MaxConns (past the cap, a request goes to the least busy connection,
// where the server's stream limit may make it wait).
//
// It sits beside h2 in the flow plan → schedule → engine → transport → result: an Outcome has the
// same fields and classes, with these differences. A connection's set-up has no TCP connect: the
// QUIC handshake, which carries TLS 1.3, is its TLS time (ConnEvent.TLS), and
// ConnEvent.QUIC says its version, whether 0-RTT was used, whether the TLS session was resumed
// (connections share a session cache, so that a new one, as with DisableKeepAlive, resumes) and
// whether quic-go sends with GSO. 0-RTT is not attempted: quic-go v0.65 has a data race when a
// client opens streams during 0-RTT (its issue 4303), so every connection is 1-RTT, resumed or
// not. Whether quic-go receives with GRO it does not say. A handshake that gets no answer within the connect timeout (a
// server that drops UDP, or nothing listening on that UDP port: an unconnected socket hears no
// ICMP) fails with class quic-handshake. Each answer carries the packets its connection sent,
// received and lost since the connection's last answer (Outcome.Packets), from quic-go's
// ConnectionStats: packets after a connection's last answer are not counted. BytesIn and
// BytesOut count bodies only: QPACK-compressed header blocks are not seen by the client.
//
// Unlike h2, a request allocates: it goes through net/http's Request and Response, which http3
// takes.
package h3
