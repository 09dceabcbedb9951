package report

import (
	"strings"
	"testing"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/summary"
)

// The transfer section of an HTTP/3 run names the QUIC handshake (there is no TCP connect), and
// says the versions, 0-RTT against 1-RTT, resumptions, GSO and packets of its connections.
func TestTextQUIC(t *testing.T) {
	s := &summary.Summary{Connections: summary.Connections{
		Opened: 4, Protocols: map[string]uint64{"h3": 4},
		TLS: &summary.Percentiles{P50: 1.5, P99: 2, Max: 2},
		QUIC: &result.QUICConns{Versions: map[string]uint64{"v1": 4}, Used0RTT: 1, Resumed: 3, GSO: 4,
			QUICPackets: result.QUICPackets{Sent: 200, Received: 190, Lost: 3, BytesLost: 3600}},
	}}
	var b strings.Builder
	transfer(&b, s)
	for _, want := range []string{
		"  connections     4 opened, spoke h3 4\n",
		"  quic handshake  p50 1.50ms, p99 2.00ms, max 2.00ms\n",
		"  quic            v1 4; 0-RTT 1, 1-RTT 3; resumed 3; GSO 4 of 4\n",
		"  quic packets    200 sent, 190 received, 3 lost (1.50%), 3.5 KiB lost\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("transfer lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "tls set-up") {
		t.Errorf("an HTTP/3 run calls its handshake tls set-up:\n%s", b.String())
	}
}
