package compare

import "github.com/rpcbench/rpcbench/summary"

// addQUICMetrics appends to c.Metrics, when some run spoke QUIC (HTTP/3), the figures that set its
// connections apart from those over TCP, so that runs of one plan over h2 and h3 compare side by
// side: the handshake's p50 and p99 (over TCP the TLS set-up, after a connect; over QUIC the QUIC
// handshake, which is the whole set-up), the share of connections that resumed a TLS session (known
// of QUIC connections only) and the share of packets lost (QUIC's). A run without the figure has it
// missing; the resumption is not judged (it is the client's and server's setting of tickets).
func (c *Comparison) addQUICMetrics(runs []*summary.Summary) {
	quic := false
	for _, s := range runs {
		quic = quic || s.Connections.QUIC != nil
	}
	if !quic {
		return
	}
	add := func(name, unit string, better Direction, f func(*summary.Connections) (float64, bool)) {
		c.Metrics = append(c.Metrics, partialMetric(Metric{Name: name, Unit: unit, Better: better, phrase: name}, len(runs), func(i int) (float64, bool) { return f(&runs[i].Connections) }))
	}
	handshake := func(f func(*summary.Percentiles) float64) func(*summary.Connections) (float64, bool) {
		return func(k *summary.Connections) (float64, bool) {
			if k.TLS == nil {
				return 0, false
			}
			return f(k.TLS), true
		}
	}
	add("handshake p50", "ms", LowerIsBetter, handshake(func(p *summary.Percentiles) float64 { return p.P50 }))
	add("handshake p99", "ms", LowerIsBetter, handshake(func(p *summary.Percentiles) float64 { return p.P99 }))
	add("resumed", "%", NotJudged, func(k *summary.Connections) (float64, bool) {
		if k.QUIC == nil || k.QUIC.Conns() == 0 {
			return 0, false
		}
		return 100 * float64(k.QUIC.Resumed) / float64(k.QUIC.Conns()), true
	})
	add("packets lost", "%", LowerIsBetter, func(k *summary.Connections) (float64, bool) {
		if k.QUIC == nil || k.QUIC.Sent == 0 {
			return 0, false
		}
		return 100 * float64(k.QUIC.Lost) / float64(k.QUIC.Sent), true
	})
}
