package report

import (
	"strings"
	"testing"

	"github.com/rpcbench/rpcbench/summary"
)

// The subscriptions section in text and Markdown: every figure where it belongs, the parts as a
// table, and what a run without stamps cannot tell said so.
func TestSubscriptionsSection(t *testing.T) {
	t.Parallel()
	s := &summary.Summary{Subscriptions: &summary.Subscriptions{
		Request: `eth_subscribe ["newHeads"]`, Asked: 4, Opened: 3, Failed: 1,
		Errors:      []summary.SubscriptionError{{Message: "subscribe: error -32601 nope", Count: 1}},
		TimeToID:    &summary.Percentiles{P50: 1, P90: 2, P99: 3, P999: 4, Max: 5},
		TimeToFirst: &summary.Percentiles{P50: 10, P90: 20, P99: 30, P999: 40, Max: 50},
		Messages:    30, MeanPerSubscription: 10, MinPerSubscription: 9, MaxPerSubscription: 11, Gaps: 2, GapsBy: "block number",
		Spread: &summary.Percentiles{P50: 0.5, Max: 1}, SpreadEvents: 10, UnsubscribeSent: 3, Unsubscribed: 2,
		Parts: []summary.SubscriptionPart{{Label: "warm-up", ToS: 1, Messages: 12}, {Label: "stage 2: 0 → 100/s", FromS: 1, ToS: 3, Messages: 18,
			Delivery: &summary.Percentiles{P50: 2, P90: 7, P99: 8, Max: 9}}},
	}}
	var b strings.Builder
	subscriptionsText(&b, s)
	text := b.String()
	for _, want := range []string{
		"Subscriptions: eth_subscribe [\"newHeads\"]",
		"  subscriptions     4 asked, 3 opened, 1 failed\n",
		"  time to id        p50 1.00ms, p90 2.00ms, p99 3.00ms, p99.9 4.00ms, max 5.00ms\n",
		"  notifications     30; per subscription mean 10.0, min 9, max 11\n",
		"  gaps              2 missing (by block number)\n",
		"  delivery latency  none (the notifications carry no rpcbenchStampNs)\n",
		"  unsubscribes      3 sent, 2 answered true\n",
		"  failure           1× subscribe: error -32601 nope\n",
		// columns as wide as their widest cell (18, 13, 13, 12, 6, 6 characters), 2 spaces apart
		"     part                time           notifications  delivery p50  p99     max\n",
		"     warm-up             0s – 1.00s     12\n",
		"     stage 2: 0 → 100/s  1.00s – 3.00s  18             2.00ms        8.00ms  9.00ms\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	b.Reset()
	subscriptionsMarkdown(&b, s)
	for _, want := range []string{"| subscriptions | 4 asked, 3 opened, 1 failed |", "| warm-up | 0s – 1.00s | 12 |  |  |  |", "| stage 2: 0 → 100/s | 1.00s – 3.00s | 18 | 2.00ms | 8.00ms | 9.00ms |"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("Markdown lacks %q:\n%s", want, b.String())
		}
	}
}
