package report

import (
	"strings"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/compare"
	"github.com/rpcbench/rpcbench/plan"
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
	containsAll(t, "transfer", b.String(),
		"  connections     4 opened, spoke h3 4\n",
		"  quic handshake  p50 1.50ms, p99 2.00ms, max 2.00ms\n",
		"  quic            v1 4; 0-RTT 1, 1-RTT 3; resumed 3; GSO 4 of 4\n",
		"  quic packets    200 sent, 190 received, 3 lost (1.50%), 3.5 KiB lost\n")
	if strings.Contains(b.String(), "tls set-up") {
		t.Errorf("an HTTP/3 run calls its handshake tls set-up:\n%s", b.String())
	}
}

// quicRuns are two runs of one plan, the first over h2 (TCP connect then TLS, 4 connections), the
// second over h3 (4 QUIC connections, 3 of them resumed; 3 of 200 packets lost), with figures set
// by hand.
func quicRuns() (h2, h3 *summary.Summary) {
	run := func(target string, c summary.Connections) *summary.Summary {
		return &summary.Summary{Target: target, DurationS: 10, Connections: c, StartedAt: time.Date(2026, 11, 27, 4, 0, 0, 0, time.UTC),
			Config: plan.Plan{Load: plan.Load{Model: plan.Closed, Connections: 4, Duration: 10 * time.Second}},
			Stats: summary.Stats{Requests: summary.Requests{Sent: 1000, OK: 1000, Completed: 1000}, Throughput: 100,
				Latency: summary.Percentiles{Min: 1, Mean: 2.2, P50: 2, P90: 3, P95: 3.5, P99: 4, P999: 4.5, Max: 5}}}
	}
	h2 = run("https://127.0.0.1:8443/", summary.Connections{Opened: 4, Protocols: map[string]uint64{"h2": 4},
		Connect: &summary.Percentiles{P50: 0.5, P99: 1, Max: 1}, TLS: &summary.Percentiles{P50: 4, P99: 8, Max: 8}})
	h3 = run("https://127.0.0.1:8443/", summary.Connections{Opened: 4, Protocols: map[string]uint64{"h3": 4},
		TLS: &summary.Percentiles{P50: 1.5, P99: 2, Max: 2},
		QUIC: &result.QUICConns{Versions: map[string]uint64{"v1": 4}, Used0RTT: 1, Resumed: 3, GSO: 4,
			QUICPackets: result.QUICPackets{Sent: 200, Received: 190, Lost: 3, BytesLost: 3600}}})
	return h2, h3
}

// The Markdown and HTML reports of an HTTP/3 run say its QUIC facts as the text report does, and
// runs over h2 and h3 compared side by side set their handshakes, resumption and packets lost apart
// (go test -update rewrites the golden files).
func TestQUICReportsGolden(t *testing.T) {
	h2, h3 := quicRuns()
	var md, cmp, txt, page strings.Builder
	if err := Markdown(&md, []*summary.Summary{h3}, nil); err != nil {
		t.Fatal(err)
	}
	golden(t, "quic.md", []byte(md.String()))
	runs := []*summary.Summary{h2, h3}
	if err := Markdown(&cmp, runs, []string{"h2", "h3"}); err != nil {
		t.Fatal(err)
	}
	golden(t, "h2h3.md", []byte(cmp.String()))
	textCompare(&txt, compare.New(runs, []string{"h2", "h3"}))
	golden(t, "h2h3.txt", []byte(txt.String()))
	if err := HTMLWithNames(&page, runs, []string{"h2", "h3"}); err != nil {
		t.Fatal(err)
	}
	from, to := strings.Index(page.String(), "<h2>QUIC connections"), strings.Index(page.String(), "<h2>Status codes")
	if from < 0 || to < from {
		t.Fatalf("the HTML report has no QUIC section before its status codes")
	}
	golden(t, "quic.html", []byte(page.String()[from:to]))

	// the figures, worked out by hand: 1.5/4 = 0.375 of h2's handshake p50, 2/8 = 0.25 of its p99;
	// 3 of 4 connections resumed; 3 of 200 packets lost; none of it known of h2's connections
	containsAll(t, "the Markdown of the h3 run", md.String(),
		"| quic handshake | p50 1.50ms, p99 2.00ms, max 2.00ms |",
		"| quic | v1 4; 0-RTT 1, 1-RTT 3; resumed 3; GSO 4 of 4 |",
		"| quic packets | 200 sent, 190 received, 3 lost (1.50%), 3.5 KiB lost |")
	containsAll(t, "the Markdown comparison", cmp.String(),
		"| handshake p50 | 4.00ms | 1.50ms | **0.38× the handshake p50** |",
		"| handshake p99 | 8.00ms | 2.00ms | **0.25× the handshake p99** |",
		"| resumed | — | 75.00% | n/a (not in the first run) |",
		"| packets lost | — | 1.50% | n/a (not in the first run) |")
	containsAll(t, "the HTML report", page.String(), "<th>quic handshake</th><td>p50 1.50ms, p99 2.00ms, max 2.00ms</td>", "<th>quic packets</th><td>200 sent, 190 received, 3 lost (1.50%), 3.5 KiB lost</td>")
	if strings.Count(page.String(), "<h2>QUIC connections") != 1 {
		t.Errorf("the HTML report has %d QUIC sections; want 1, the h3 run's (h2's connections are over TCP)", strings.Count(page.String(), "<h2>QUIC connections"))
	}
	// the share resumed is the setting of tickets, not an outcome: 4 of 4 against 3 of 4 is shown,
	// never called better
	again := *h3
	q := *h3.Connections.QUIC
	q.Resumed = 4
	again.Connections.QUIC = &q
	var both strings.Builder
	textCompare(&both, compare.New([]*summary.Summary{h3, &again}, []string{"A", "B"}))
	containsAll(t, "h3 against h3", both.String(), "  resumed        75.00%       100.00%      1.3× the resumed\n")
	// without a run over QUIC, nothing of QUIC: neither a section nor a compared figure
	var plain strings.Builder
	if err := Markdown(&plain, []*summary.Summary{h2, h2}, nil); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), "handshake") || strings.Contains(plain.String(), "packets lost") {
		t.Errorf("runs over h2 alone compare QUIC figures:\n%s", plain.String())
	}
}

// containsAll fails t for each of wants that got, what the test calls what, lacks.
func containsAll(t *testing.T, what, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, got)
		}
	}
}
