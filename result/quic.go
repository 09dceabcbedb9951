package result

import "maps"

// QUICConn is what a QUIC connection (HTTP/3) was once its handshake completed, as quic-go's
// ConnectionState says.
type QUICConn struct {
	// Version is the QUIC version spoken: "v1" (RFC 9000) or "v2" (RFC 9369).
	Version string
	// Used0RTT: the server accepted the request data the client sent before the handshake
	// completed (0-RTT); else the connection was 1-RTT.
	Used0RTT bool
	// Resumed: the TLS session was resumed from a ticket of an earlier connection.
	Resumed bool
	// GSO: quic-go sends this connection's packets with UDP generic segmentation offload.
	GSO bool
}

// QUICPackets count the packets of QUIC connections, as quic-go's ConnectionStats does: every
// packet sent (those found lost included), received (those that could not be processed
// included), and those the loss detection declared lost, with their bytes. A transport reports
// what a connection added since its last report, with the answer of a request it carried.
type QUICPackets struct {
	Sent      uint64 `json:"packets_sent,omitempty"`
	Received  uint64 `json:"packets_received,omitempty"`
	Lost      uint64 `json:"packets_lost,omitempty"`
	BytesLost uint64 `json:"bytes_lost,omitempty"`
}

// IsZero reports whether p counts nothing.
func (p QUICPackets) IsZero() bool { return p == QUICPackets{} }

func (p *QUICPackets) add(o QUICPackets) {
	p.Sent += o.Sent
	p.Received += o.Received
	p.Lost += o.Lost
	p.BytesLost += o.BytesLost
}

// QUICConns sum the QUIC connections of an interval: how many spoke each version, used 0-RTT,
// resumed a TLS session and sent with GSO, and their packets.
type QUICConns struct {
	Versions map[string]uint64 `json:"versions,omitempty"`
	Used0RTT uint64            `json:"zero_rtt,omitempty"`
	Resumed  uint64            `json:"resumed,omitempty"`
	GSO      uint64            `json:"gso,omitempty"`
	QUICPackets
}

// Conns returns how many connections q describes: the sum over the versions.
func (q *QUICConns) Conns() uint64 {
	var n uint64
	for _, v := range q.Versions {
		n += v
	}
	return n
}

func (q *QUICConns) addConn(c *QUICConn) {
	if q.Versions == nil {
		q.Versions = map[string]uint64{}
	}
	q.Versions[c.Version]++
	if c.Used0RTT {
		q.Used0RTT++
	}
	if c.Resumed {
		q.Resumed++
	}
	if c.GSO {
		q.GSO++
	}
}

func (q *QUICConns) merge(o *QUICConns) {
	for v, n := range o.Versions {
		if q.Versions == nil {
			q.Versions = map[string]uint64{}
		}
		q.Versions[v] += n
	}
	q.Used0RTT += o.Used0RTT
	q.Resumed += o.Resumed
	q.GSO += o.GSO
	q.QUICPackets.add(o.QUICPackets)
}

// Clone returns a copy of q that shares nothing with it; nil for nil.
func (q *QUICConns) Clone() *QUICConns {
	if q == nil {
		return nil
	}
	c := *q
	c.Versions = maps.Clone(q.Versions)
	return &c
}

// quic returns c's QUIC sums, making them when c has none yet.
func (c *Conns) quic() *QUICConns {
	if c.QUIC == nil {
		c.QUIC = &QUICConns{}
	}
	return c.QUIC
}
