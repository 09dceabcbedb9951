package report

import (
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/summary"
)

// The subscriptions section in text and Markdown: every figure where it belongs, the parts as a
// table, and what a run without stamps cannot tell said so.
func TestSubscriptionsSection(t *testing.T) {
	t.Parallel()
	s := subscriptionsSample()
	var b strings.Builder
	subscriptionsText(&b, s)
	text := b.String()
	for _, want := range []string{
		"Subscriptions: eth_subscribe [\"newHeads\"]",
		"  subscriptions     4 asked, 3 opened, 1 failed\n",
		"  time to id        p50 1.00ms, p90 2.00ms, p99 3.00ms, p99.9 4.00ms, max 5.00ms\n",
		"  notifications     30; per subscription mean 10.0, min 9, max 11\n",
		"  gaps              2 missing (by block number), in 1 of 3 subscriptions\n",
		"  delivery latency  none (the notifications carry no rpcbenchStampNs)\n",
		"  unsubscribes      3 sent, 2 answered true\n",
		"  failure           1× subscribe: error -32601 nope\n",
		// columns as wide as their widest cell (18, 13, 7, 9, 13, 4, 12, 6, 6 characters), 2 spaces
		// apart; stage 2's calls are the Stages row of Index 2, the warm-up has none
		"     part                time           calls/s  calls p99  notifications  gaps  delivery p50  p99     max\n",
		"     warm-up             0s – 1.00s" + strings.Repeat(" ", 3+2+7+2+9+2) + "12             0\n",
		"     stage 2: 0 → 100/s  1.00s – 3.00s  99.5     41.0ms     18             2     2.00ms        8.00ms  9.00ms\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	b.Reset()
	subscriptionsMarkdown(&b, s)
	for _, want := range []string{"| subscriptions | 4 asked, 3 opened, 1 failed |", "| warm-up | 0s – 1.00s |  |  | 12 | 0 |  |  |  |", "| stage 2: 0 → 100/s | 1.00s – 3.00s | 99.5 | 41.0ms | 18 | 2 | 2.00ms | 8.00ms | 9.00ms |"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("Markdown lacks %q:\n%s", want, b.String())
		}
	}
}

// subscriptionsSample is a run whose subscriptions have every figure but the delivery latency,
// beside calls in stages: stage 1 (a ramp, left out of the per-stage figures) and stage 2.
func subscriptionsSample() *summary.Summary {
	none, two := uint64(0), uint64(2)
	stage2 := summary.Stage{Index: 2, From: 100, To: 100, StartS: 0, EndS: 2, StageFigures: summary.StageFigures{RPS: 99.5, Latency: summary.Percentiles{P50: 3, P99: 41}}}
	stage3 := summary.Stage{Index: 3, From: 100, To: 100, StartS: 2, EndS: 4, StageFigures: summary.StageFigures{RPS: 7, Latency: summary.Percentiles{P99: 70}}}
	return &summary.Summary{Stages: []summary.Stage{stage2, stage3}, Subscriptions: &summary.Subscriptions{
		Request: `eth_subscribe ["newHeads"]`, Asked: 4, Opened: 3, Failed: 1,
		Errors:      []summary.SubscriptionError{{Message: "subscribe: error -32601 nope", Count: 1}},
		TimeToID:    &summary.Percentiles{P50: 1, P90: 2, P99: 3, P999: 4, Max: 5},
		TimeToFirst: &summary.Percentiles{P50: 10, P90: 20, P99: 30, P999: 40, Max: 50},
		Messages:    30, MeanPerSubscription: 10, MinPerSubscription: 9, MaxPerSubscription: 11, Gaps: 2, GapsBy: "block number", GappedSubscriptions: 1,
		Spread: &summary.Percentiles{P50: 0.5, Max: 1}, SpreadEvents: 10, UnsubscribeSent: 3, Unsubscribed: 2,
		Parts: []summary.SubscriptionPart{{Label: "warm-up", ToS: 1, Messages: 12, Gaps: &none}, {Label: "stage 2: 0 → 100/s", Stage: 2, FromS: 1, ToS: 3, Messages: 18, Gaps: &two,
			Delivery: &summary.Percentiles{P50: 2, P90: 7, P99: 8, Max: 9}}},
	}}
}

// The HTML report has the subscriptions section of the run that had them, under that run's letter
// among several, with the same rows, note and parts as the text.
func TestSubscriptionsHTML(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	if err := HTML(&b, []*summary.Summary{{}, subscriptionsSample()}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{
		`</span>B: <code>eth_subscribe [&#34;newHeads&#34;]</code></h2>`,
		`<tr><th>subscriptions</th><td class="msg">4 asked, 3 opened, 1 failed</td></tr>`,
		`<tr><th>gaps</th><td class="msg">2 missing (by block number), in 1 of 3 subscriptions</td></tr>`,
		`<tr><th>failure</th><td class="msg">1× subscribe: error -32601 nope</td></tr>`,
		`spread from an event&#39;s first to its last receipt, 10 events</p>`,
		`<thead><tr><th>part</th><th>time</th><th>calls/s</th><th>calls p99</th><th>notifications</th><th>gaps</th><th>delivery p50</th><th>p99</th><th>max</th></tr></thead>`,
		`<tr><td class="msg">stage 2: 0 → 100/s</td><td class="msg">1.00s – 3.00s</td><td class="n">99.5</td><td class="n">41.0ms</td><td class="n">18</td><td class="n">2</td><td class="n">2.00ms</td><td class="n">8.00ms</td><td class="n">9.00ms</td></tr>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	if n := strings.Count(page, "<h2>Subscriptions"); n != 1 {
		t.Errorf("%d subscriptions sections; want the second run's only", n)
	}
	b.Reset()
	if err := HTML(&b, []*summary.Summary{{}}); err != nil || strings.Contains(b.String(), "<h2>Subscriptions") {
		t.Errorf("a run without subscriptions has their section (%v)", err)
	}
}

// A run with a reference connection has its lag rows: the percentiles, then the heads timed, the
// reference's, those received first, the slowest subscriber and why the reference ended.
func TestSubscriptionsReferenceRows(t *testing.T) {
	t.Parallel()
	s := subscriptionsSample()
	s.Subscriptions.Reference = &summary.ReferenceLag{URL: "ws://127.0.0.1:9/", Heads: 20, Timed: 34, Ahead: 1, Error: "read: EOF",
		Lag:     &summary.Percentiles{P50: 0.1, P90: 300, P99: 301, P999: 301, Max: 302},
		Slowest: &summary.SubscriberLag{Heads: 14, MeanMs: 300.5, MaxMs: 302}}
	var b strings.Builder
	subscriptionsText(&b, s)
	for _, want := range []string{
		"  reference lag     p50 100µs, p90 300.0ms, p99 301.0ms, p99.9 301.0ms, max 302.0ms\n",
		"  behind reference  34 heads timed against 20 received on ws://127.0.0.1:9/; 1 received before the reference (lag 0); slowest subscriber mean 300.5ms, max 302.0ms over 14 heads; the reference ended early: read: EOF\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
	s.Subscriptions.Reference = nil
	b.Reset()
	subscriptionsText(&b, s)
	if strings.Contains(b.String(), "reference") {
		t.Errorf("a run without a reference has its rows:\n%s", b.String())
	}
}

// aloneSample is a run of subscriptions alone: the sample's subscriptions, without parts, on a
// plan of one WebSocket URL and no calls.
func aloneSample() *summary.Summary {
	s := subscriptionsSample()
	s.Stages, s.Subscriptions.Parts = nil, nil
	s.Subscriptions.Delivery = &summary.Percentiles{P50: 2, P90: 7, P99: 8, P999: 8.5, Max: 9}
	s.Target, s.DurationS, s.StartedAt = "ws://127.0.0.1:18548/", 5, time.Date(2026, 11, 27, 6, 0, 0, 0, time.UTC)
	s.Config = plan.Plan{Endpoints: []plan.Endpoint{{URL: s.Target}},
		Subscribe: &plan.Subscribe{Method: "eth_subscribe", Params: json.RawMessage(`["newHeads"]`), Count: 4}}
	return s
}

// A run of subscriptions alone renders as an HTML page (it was refused): what the run was, its
// subscriptions' figures on the run card and in their section, a chart of them by percentile, and
// none of the calls' charts and tables, which it has nothing for; self-contained as every page.
// Beside other runs it is refused, saying why.
func TestSubscriptionsAloneHTML(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	if err := Render(&b, []*summary.Summary{aloneSample()}, "html", Options{}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{
		`subscriptions alone (no calls) for 5.00s; started 2026-11-27 06:00:00 UTC · <code>eth_subscribe [&#34;newHeads&#34;]</code>`,
		`<span class="value">3 of 4</span><span class="name">subscriptions opened</span>`,
		`<span class="value">30</span><span class="name">notifications</span>`,
		`<span class="value">2</span><span class="name">gaps</span>`,
		`<span class="value">30.0ms</span><span class="name">time to first p99</span>`,
		`<span class="value">8.00ms</span><span class="name">delivery latency p99</span>`,
		`<tr><th>subscriptions</th><td class="msg">4 asked, 3 opened, 1 failed</td></tr>`,
		`<tr><th>delivery latency</th><td class="msg">p50 2.00ms, p90 7.00ms, p99 8.00ms, p99.9 8.50ms, max 9.00ms</td></tr>`,
		`<tr><th>unsubscribes</th><td class="msg">3 sent, 2 answered true</td></tr>`,
		`<tr><th>load</th><td>4 subscriptions opened at once and held (closed model), no calls</td></tr>`,
		`id="chart-subscriptions"`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	for _, calls := range []string{`id="chart-latency"`, `id="chart-throughput"`, `id="chart-spectrum"`, `id="chart-histogram"`, "<h2>Endpoints", "<h2>Status codes", "<h2>Latency and service time", `<span class="name">requests sent`, `<span class="name">answers/s`} {
		if strings.Contains(page, calls) {
			t.Errorf("the page of a run without calls has %s", calls)
		}
	}
	if m := regexp.MustCompile(`(?i)<script[^>]+src=|<link[^>]+href=|@import|url\(`).FindString(page); m != "" {
		t.Errorf("page loads something: found %q", m)
	}
	d := pageData(t, page)
	want := []subsChart{{Run: 0, Measures: []subsMeasure{
		{"time to id", [5]float64{1, 2, 3, 4, 5}}, {"time to first", [5]float64{10, 20, 30, 40, 50}},
		{"delivery latency", [5]float64{2, 7, 8, 8.5, 9}}, {"fan-out spread", [5]float64{0.5, 0, 0, 0, 1}}}}}
	if !reflect.DeepEqual(d.Subscriptions, want) || strings.Join(d.SubsPcts, ",") != "p50,p90,p99,p99.9,max" {
		t.Errorf("chart data %+v over %v; want %+v over p50 … max", d.Subscriptions, d.SubsPcts, want)
	}
	err := Render(&b, []*summary.Summary{aloneSample(), subscriptionsSample()}, "html", Options{})
	if err == nil || !strings.Contains(err.Error(), "several runs are compared by their calls, and it has none") {
		t.Errorf("beside a run of calls: %v; want a refusal saying why", err)
	}
}
