package report

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/summary"
)

var fmtMs = summary.FormatMs

// Text writes s as the report people read at a terminal.
func Text(w io.Writer, s *summary.Summary) error { return TextWith(w, s, Options{}) }

// TextWith is Text with the tables chosen by o.
func TextWith(w io.Writer, s *summary.Summary, o Options) error {
	b := &strings.Builder{}
	validityText(b, s)
	if s.Config.SubscriptionsOnly() {
		aloneText(b, s)
	} else {
		header(b, s)
		requests(b, s)
		generatorsText(b, s)
		latencyTable(b, s)
		histogram(b, s.LatencyHist, "Latency distribution (from intended send time)")
		statusAndErrors(b, &s.Stats)
		transfer(b, s)
		if len(s.Endpoints) > 1 {
			endpoints(b, s, o.percentiles())
			grpcByMethod(b, s)
		}
		callsText(b, &s.Stats)
		checksText(b, &s.Stats)
		answerMetricsText(b, s)
		subscriptionsText(b, s)
		stagesTable(b, s)
	}
	sloText(b, s)
	resourcesText(b, s)
	jumpsText(b, s)
	if len(s.Notes) > 0 {
		b.WriteString("\nNotes\n")
		for _, n := range s.Notes {
			fmt.Fprintf(b, "  ! %s\n", n)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func header(b *strings.Builder, s *summary.Summary) {
	fmt.Fprintf(b, "rpcbench %s  %s\n", s.Tool.Version, s.Target)
	l := s.Config.Load
	var load string
	switch {
	case l.Model == plan.Open && len(l.Stages) > 0:
		load = fmt.Sprintf("open model, %d stages, up to %d connections", len(l.Stages), l.Connections)
	case l.Model == plan.Open:
		load = fmt.Sprintf("open model at %s/s, up to %d connections", trimFloat(l.Rate), l.Connections)
	case len(l.Stages) > 0:
		load = fmt.Sprintf("closed model, %d stages of connections", len(l.Stages))
	default:
		load = fmt.Sprintf("closed model, %d connections", l.Connections)
	}
	switch p := s.Config.Protocol; p {
	case result.H2:
		load += ", HTTP/2 where the server's ALPN chose it (h2)"
	case result.H2C:
		load += ", HTTP/2 over cleartext (h2c)"
	case result.H3:
		load += ", HTTP/3 over QUIC (h3)"
	}
	if n := s.Config.HTTP.Streams; n > 0 {
		load += fmt.Sprintf(", up to %d streams per connection", n)
	}
	if seg, _, ok, _ := l.Part(); ok {
		// the rate, stages and closed connections are the whole plan's, split over the generators;
		// the open model's cap of connections is each generator's own
		if l.Model == plan.Open {
			load = strings.Replace(load, ", up to", " in the whole plan, up to", 1) + " on this generator"
		} else {
			load += " in the whole plan"
		}
		load += fmt.Sprintf("; this generator ran segment %s of %s", seg, seg.SequenceString())
	}
	fmt.Fprintf(b, "%s; started %s\n", load, s.StartedAt.Format("2006-01-02 15:04:05 UTC"))
	if s.Interrupted {
		b.WriteString("INTERRUPTED: what follows covers the run up to the interruption\n")
	}
}

func requests(b *strings.Builder, s *summary.Summary) {
	r := s.Requests
	b.WriteString("\nRequests\n")
	fmt.Fprintf(b, "  %-11s intended %d, sent %d, completed %d, ok %d, failed %d\n", "count", r.Intended, r.Sent, r.Completed, r.OK, r.Errors)
	if m := missesText(s); m != "" {
		fmt.Fprintf(b, "  %-11s %s\n", "misses", m)
	}
	if r.Unsent > 0 {
		fmt.Fprintf(b, "  %-11s %d failed before sending (no connection: nothing written, no service time)\n", "unsent", r.Unsent)
	}
	if r.Dropped > 0 {
		fmt.Fprintf(b, "  %-11s %d (the generator fell behind the schedule)\n", "never sent", r.Dropped)
	}
	if r.RetriedAfterReset > 0 {
		fmt.Fprintf(b, "  %-11s %d after a reset or close of a reused connection (sent again on a new one; the counts above are of the second attempts)\n", "retried", r.RetriedAfterReset)
	}
	if r.RetriedAfterGoAway > 0 {
		fmt.Fprintf(b, "  %-11s %d after a GOAWAY that left them unprocessed (sent again on a new connection; the counts above are of the last attempts)\n", "retried", r.RetriedAfterGoAway)
	}
	if r.Unknown > 0 {
		fmt.Fprintf(b, "  %-11s %d (in flight or not yet sent when the run was killed: the result file was cut short)\n", "unknown", r.Unknown)
	}
	if s.SendSpanS > s.SendingS*(1+0.01) {
		fmt.Fprintf(b, "  %-11s %s (sending took %s for a %s schedule, then waiting for the last answers)\n", "duration", fmtSeconds(s.DurationS), fmtSeconds(s.SendSpanS), fmtSeconds(s.SendingS))
	} else {
		fmt.Fprintf(b, "  %-11s %s (sending %s, then waiting for the last answers)\n", "duration", fmtSeconds(s.DurationS), fmtSeconds(s.SendingS))
	}
	if w, from := s.Warmup, warmupFrom(s.Config.Load); w != nil && from != "" {
		fmt.Fprintf(b, "  %-11s %s %s, %d requests, not counted\n", "warm-up", fmtSeconds(w.DurationS), from, w.Sent)
	} else if w != nil {
		fmt.Fprintf(b, "  %-11s %s, %d requests, not counted\n", "warm-up", fmtSeconds(w.DurationS), w.Sent)
	}
	if s.Config.Load.Model == plan.Open {
		fmt.Fprintf(b, "  %-11s intended %s/s, sent %s/s; throughput %s\n", "rate", fmt1(s.IntendedRate), fmt1(s.SendRate), throughputText(s))
		fmt.Fprintf(b, "  %-11s %s\n", "send lag", sendLagText(s))
	} else {
		fmt.Fprintf(b, "  %-11s %s\n", "throughput", throughputText(s))
	}
	// the drain, when it pulls the whole run's figure down by 1% or more
	if s.SendingThroughput > 0 && s.DurationS > s.SendSpanS && s.Throughput < 0.99*s.SendingThroughput {
		fmt.Fprintf(b, "  %-11s %s after the last send (%s answers/s over the whole run)\n", "drain", fmtSeconds(s.DurationS-s.SendSpanS), fmt1(s.Throughput))
	}
}

// missesText says how many answers were misses (plan.Checks.Miss) and their share of the
// requests: "1000 (9.09% of the requests): status 404, counted as ok, not failed"; "" for a run
// without miss statuses.
func missesText(s *summary.Summary) string {
	if s.Config.Checks.Miss == "" {
		return ""
	}
	r := s.Requests
	share := 0.0
	if n := r.Attempted(); n > 0 {
		share = 100 * float64(r.Misses) / float64(n)
	}
	return fmt.Sprintf("%d (%.2f%% of the requests): status %s, counted as ok, not failed", r.Misses, share, s.Config.Checks.Miss)
}

// throughputText is the headline throughput: over the sending window when the timeline tells it,
// so the drain after the last send does not pull it down; else over the whole run.
func throughputText(s *summary.Summary) string {
	rps, t := s.Throughput, " answers/s"
	if s.SendingThroughput > 0 {
		rps, t = s.SendingThroughput, " answers/s while sending"
	}
	if b := batchSize(s); b > 1 { // an answer is a batch: say the calls too
		t += fmt.Sprintf(" (%s calls/s in batches of %d)", fmt1(rps*float64(b)), b)
	}
	return fmt1(rps) + t
}

// batchSize is the number of JSON-RPC calls each request of s carried, or 0 when not batches.
func batchSize(s *summary.Summary) int {
	if len(s.Config.Endpoints) == 0 {
		return 0
	}
	return s.Config.Endpoints[0].Calls
}

// sendLagText is the send lag of an open-model run: "p50 …, p99 …, max …", and the send slack
// allowed when there is one.
func sendLagText(s *summary.Summary) string {
	t := fmt.Sprintf("p50 %s, p99 %s, max %s", fmtMs(s.SendLag.P50), fmtMs(s.SendLag.P99), fmtMs(s.SendLag.Max))
	if sl := s.Config.Load.SendSlack; sl > 0 {
		t += fmt.Sprintf(" (a send slack of %s allowed)", sl)
	}
	return t
}

// timeRows are the rows of the tables of latency beside service time (text and HTML): each
// figure's name and how to read it from Percentiles.
var timeRows = []struct {
	name string
	v    func(*summary.Percentiles) float64
}{
	{"min", func(p *summary.Percentiles) float64 { return p.Min }},
	{"mean", func(p *summary.Percentiles) float64 { return p.Mean }},
	{"stdev", func(p *summary.Percentiles) float64 { return p.Stdev }},
	{"p50", func(p *summary.Percentiles) float64 { return p.P50 }},
	{"p75", func(p *summary.Percentiles) float64 { return p.P75 }},
	{"p90", func(p *summary.Percentiles) float64 { return p.P90 }},
	{"p95", func(p *summary.Percentiles) float64 { return p.P95 }},
	{"p99", func(p *summary.Percentiles) float64 { return p.P99 }},
	{"p99.9", func(p *summary.Percentiles) float64 { return p.P999 }},
	{"p99.99", func(p *summary.Percentiles) float64 { return p.P9999 }},
	{"max", func(p *summary.Percentiles) float64 { return p.Max }},
}

func latencyTable(b *strings.Builder, s *summary.Summary) {
	if s.Requests.Sent == 0 {
		return
	}
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', tabwriter.AlignRight)
	cols := []*summary.Percentiles{&s.Latency, &s.Service}
	switch {
	case s.TTFB != nil && s.Messages != nil: // streaming calls: the first message received
		cols = append(cols, s.TTFB)
		fmt.Fprintln(tw, "\n\tlatency\tservice time\tfirst message\t")
		fmt.Fprintln(tw, "\t(from intended send)\t(send to the end)\t(send to first message)\t")
	case s.TTFB != nil: // time to first byte, beside the service time (to the last byte)
		cols = append(cols, s.TTFB)
		fmt.Fprintln(tw, "\n\tlatency\tservice time\tfirst byte\t")
		fmt.Fprintln(tw, "\t(from intended send)\t(send to last byte)\t(send to first byte)\t")
	default:
		fmt.Fprintln(tw, "\n\tlatency\tservice time\t")
		fmt.Fprintln(tw, "\t(from intended send)\t(from actual send)\t")
	}
	for _, r := range timeRows {
		fmt.Fprintf(tw, "  %s\t", r.name)
		for _, c := range cols {
			fmt.Fprintf(tw, "%s\t", fmtMs(r.v(c)))
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}

// histogram draws up to 12 bars over the recorded range, log-spaced when the range is wide.
func histogram(b *strings.Builder, h *result.Histogram, title string) {
	if h == nil || h.TotalCount() == 0 {
		return
	}
	edges := bucketEdges(h.Min(), h.Max(), 12)
	counts := make([]int64, len(edges)-1)
	for _, bar := range h.Distribution() {
		if bar.Count == 0 {
			continue
		}
		k := sort.Search(len(edges)-1, func(i int) bool { return edges[i+1] > bar.From }) // bucket holding bar.From
		k = min(k, len(counts)-1)
		counts[k] += bar.Count
	}
	var peak int64
	for _, c := range counts {
		peak = max(peak, c)
	}
	total := float64(h.TotalCount())
	fmt.Fprintf(b, "\n%s\n", title)
	const width = 40
	for i, c := range counts {
		n := int(math.Round(float64(c) / float64(peak) * width))
		if c > 0 && n == 0 {
			n = 1
		}
		fmt.Fprintf(b, "  %9s – %-9s %s%s %d (%.1f%%)\n", fmtMs(float64(edges[i])/1000), fmtMs(float64(edges[i+1])/1000),
			strings.Repeat("█", n), strings.Repeat(" ", width-n), c, 100*float64(c)/total)
	}
}

// bucketEdges returns n+1 edges (µs) from lo to hi inclusive, log-spaced when hi/lo > 20.
func bucketEdges(lo, hi int64, n int) []int64 {
	if hi <= lo {
		return []int64{lo, lo + 1}
	}
	hi++ // the last bucket includes the maximum
	edges := make([]int64, 0, n+1)
	logScale := lo > 0 && float64(hi)/float64(lo) > 20
	for i := 0; i <= n; i++ {
		var e float64
		if logScale {
			e = float64(lo) * math.Pow(float64(hi)/float64(lo), float64(i)/float64(n))
		} else {
			e = float64(lo) + float64(hi-lo)*float64(i)/float64(n)
		}
		v := int64(math.Round(e))
		if len(edges) > 0 && v <= edges[len(edges)-1] {
			continue
		}
		edges = append(edges, v)
	}
	if edges[len(edges)-1] < hi {
		edges = append(edges, hi)
	}
	return edges
}

func statusAndErrors(b *strings.Builder, st *summary.Stats) {
	if overWebSocket(st) {
		rpcOutcomes(b, st)
	} else if len(st.Status) > 0 {
		codes := statusOrder(st.Status)
		if grpcStatuses(st.Status) {
			b.WriteString("\ngRPC status codes\n")
		} else {
			b.WriteString("\nStatus codes\n")
		}
		failing := st.Errors[result.Status.String()] > 0
		width := 0
		for _, c := range codes {
			width = max(width, len(c))
		}
		for _, c := range codes {
			n := st.Status[c]
			note := ""
			if failing && !successStatus(c) {
				note = "  (counted as failed)"
			}
			fmt.Fprintf(b, "  %-*s  %d (%.1f%%)%s\n", width, c, n, pct(n, st.Requests.Completed), note)
		}
		nonOK(b, st)
	}
	if len(st.Errors) > 0 {
		b.WriteString("\nFailures by class\n")
		classes := make([]string, 0, len(st.Errors))
		for c := range st.Errors {
			classes = append(classes, c)
		}
		sort.Slice(classes, func(i, j int) bool { return st.Errors[classes[i]] > st.Errors[classes[j]] })
		of := "sent"
		if st.Requests.Unsent > 0 {
			of = "attempted" // sent or failed before sending
		}
		for _, c := range classes {
			fmt.Fprintf(b, "  %-9s %d (%.1f%% of %s)\n", c, st.Errors[c], pct(st.Errors[c], st.Requests.Attempted()), of)
		}
		b.WriteString("\nDistinct failures\n")
		for i, m := range st.ErrorMessages {
			if i == 10 {
				break
			}
			fmt.Fprintf(b, "  %8d  %-9s %s\n", m.Count, m.Class, m.Message)
		}
		if n, reqs := st.Unlisted(10); n > 0 {
			fmt.Fprintf(b, "  … and %d more distinct messages (%d requests)\n", n, reqs)
		}
	}
}

// rpcOutcomes writes, for answers over WebSocket, what the status codes cannot tell: how many
// held a result, and how many each JSON-RPC error code.
func rpcOutcomes(b *strings.Builder, st *summary.Stats) {
	b.WriteString("\nJSON-RPC outcomes (over WebSocket; every answer has the upgrade's status 101)\n")
	counts, keys := wsOutcomes(st)
	for _, k := range keys {
		fmt.Fprintf(b, "  %-14s %d (%.1f%%)\n", k, counts[k], pct(counts[k], st.Requests.Completed))
	}
}

// overWebSocket reports whether st's answers came over WebSocket: every one carries the upgrade's
// 101, which says nothing of the call.
func overWebSocket(st *summary.Stats) bool { return len(st.Status) == 1 && st.Status["101"] > 0 }

// wsOutcomes counts, for answers over WebSocket, each call's JSON-RPC outcome — "result", "error
// CODE" by code, "error (other)" for errors whose code the listed messages do not give, "not
// JSON-RPC" — in the order a report lists them. Every renderer shows these where HTTP answers show
// status codes.
func wsOutcomes(st *summary.Stats) (map[string]uint64, []string) {
	codes := map[string]uint64{}
	var names []string
	var coded uint64
	for _, m := range st.ErrorMessages {
		f := strings.Fields(m.Message)
		if m.Class != result.Status.String() || len(f) < 2 || f[0] != "jsonrpc" {
			continue
		}
		if _, ok := codes[f[1]]; !ok {
			names = append(names, f[1])
		}
		codes[f[1]] += m.Count
		coded += m.Count
	}
	status, protocol := st.Errors[result.Status.String()], st.Errors[result.Protocol.String()]
	n := st.Requests.Completed
	out := map[string]uint64{"result": n - min(n, status+protocol)}
	keys := []string{"result"}
	sort.Strings(names)
	for _, c := range names {
		out["error "+c] = codes[c]
		keys = append(keys, "error "+c)
	}
	if status > coded {
		out["error (other)"] = status - coded
		keys = append(keys, "error (other)")
	}
	if protocol > 0 {
		out["not JSON-RPC"] = protocol
		keys = append(keys, "not JSON-RPC")
	}
	return out, keys
}

// successStatus reports whether code is 2xx or 3xx, the 101 of WebSocket answers, or gRPC's OK.
func successStatus(code string) bool { return result.SuccessName(code) }

// nonOK writes wrk's "Non-2xx or 3xx responses" line, split by status class, when there are any.
func nonOK(b *strings.Builder, st *summary.Stats) {
	var by [10]uint64 // by hundreds
	var n uint64
	for code, k := range st.Status {
		c, err := strconv.Atoi(code)
		if err != nil || successStatus(code) {
			continue
		}
		n += k
		by[min(max(c/100, 0), 9)] += k
	}
	if n == 0 {
		return
	}
	fmt.Fprintf(b, "  non-2xx/3xx %d (%.1f%% of answers):", n, pct(n, st.Requests.Completed))
	sep := " "
	for h, k := range by {
		if k > 0 {
			fmt.Fprintf(b, "%s%dxx %d", sep, h, k)
			sep = ", "
		}
	}
	b.WriteString("\n")
}

// streamLines writes the figures of streaming calls, their names padded to width: the messages
// sent and received, the latency of each answer of a paced bidi call, the gaps between answers.
func streamLines(b *strings.Builder, s *summary.Summary, width int) {
	if m := s.Messages; m != nil {
		fmt.Fprintf(b, "  %-*s sent %d (%s per call), received %d (%s per call)\n", width, "messages", m.Sent, fmt1(m.SentPerCall), m.Received, fmt1(m.ReceivedPerCall))
	}
	if p := s.MessageLatency; p != nil {
		fmt.Fprintf(b, "  %-*s p50 %s, p90 %s, p99 %s, max %s (each answer from its message's due time)\n", width, "message latency", fmtMs(p.P50), fmtMs(p.P90), fmtMs(p.P99), fmtMs(p.Max))
	}
	if p := s.MessageGap; p != nil {
		fmt.Fprintf(b, "  %-*s p50 %s, p90 %s, p99 %s, max %s (between the answers of a stream)\n", width, "message gaps", fmtMs(p.P50), fmtMs(p.P90), fmtMs(p.P99), fmtMs(p.Max))
	}
}

func transfer(b *strings.Builder, s *summary.Summary) {
	b.WriteString("\nTransfer\n")
	perSec := func(n uint64) string {
		if s.DurationS <= 0 {
			return ""
		}
		return " (" + fmtBytes(float64(n)/s.DurationS) + "/s)"
	}
	fmt.Fprintf(b, "  %-15s %s%s\n", "bytes in", fmtBytes(float64(s.Bytes.In)), perSec(s.Bytes.In))
	fmt.Fprintf(b, "  %-15s %s%s\n", "bytes out", fmtBytes(float64(s.Bytes.Out)), perSec(s.Bytes.Out))
	streamLines(b, s, 15)
	c := s.Connections
	fmt.Fprintf(b, "  %-15s %d opened", "connections", c.Opened)
	if c.Failed > 0 {
		fmt.Fprintf(b, ", %d failed to open", c.Failed)
	}
	if len(c.Protocols) > 0 {
		b.WriteString(", spoke ")
		for i, p := range slices.Sorted(maps.Keys(c.Protocols)) {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(b, "%s %d", p, c.Protocols[p])
		}
	}
	b.WriteString("\n")
	quic := quicHandshake(&c)
	for _, p := range []struct {
		name string
		v    *summary.Percentiles
	}{{"dns set-up", c.DNS}, {"connect set-up", c.Connect}, {"tls set-up", c.TLS}} {
		if p.v != nil && (p.v != c.TLS || !quic) {
			fmt.Fprintf(b, "  %-15s %s\n", p.name, setupTimes(p.v))
		}
	}
	for _, r := range quicRows(&c) {
		fmt.Fprintf(b, "  %-15s %s\n", r[0], r[1])
	}
}

// setupTimes says the p50, p99 and max of a connection's set-up step.
func setupTimes(p *summary.Percentiles) string {
	return fmt.Sprintf("p50 %s, p99 %s, max %s", fmtMs(p.P50), fmtMs(p.P99), fmtMs(p.Max))
}

// quicHandshake reports whether c's TLS set-up is the QUIC handshake of HTTP/3, which carries TLS
// 1.3 in itself: there is no connect before it.
func quicHandshake(c *summary.Connections) bool { return c.QUIC != nil && c.Connect == nil }

// quicRows are the names and values of the lines that say what the QUIC connections of HTTP/3
// were: their handshake, their versions, how many used 0-RTT (the others 1-RTT), resumed a TLS
// session and sent with GSO, and their packets; none without QUIC connections. The text, Markdown
// and HTML reports all show these.
func quicRows(c *summary.Connections) [][2]string {
	q := c.QUIC
	if q == nil {
		return nil
	}
	var rows [][2]string
	if c.TLS != nil && quicHandshake(c) {
		rows = append(rows, [2]string{"quic handshake", setupTimes(c.TLS)})
	}
	if n := q.Conns(); n > 0 {
		var b strings.Builder
		for i, v := range slices.Sorted(maps.Keys(q.Versions)) {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%s %d", v, q.Versions[v])
		}
		fmt.Fprintf(&b, "; 0-RTT %d, 1-RTT %d; resumed %d; GSO %d of %d", q.Used0RTT, n-q.Used0RTT, q.Resumed, q.GSO, n)
		rows = append(rows, [2]string{"quic", b.String()})
	}
	if !q.QUICPackets.IsZero() {
		lost := ""
		if q.Sent > 0 {
			lost = fmt.Sprintf(" (%.2f%%)", 100*float64(q.Lost)/float64(q.Sent))
		}
		rows = append(rows, [2]string{"quic packets", fmt.Sprintf("%d sent, %d received, %d lost%s, %s lost", q.Sent, q.Received, q.Lost, lost, fmtBytes(float64(q.BytesLost)))})
	}
	return rows
}

// TextEndpoints is the most endpoints the text report lists, in the plan's order; a run of more
// lists the TextEndpoints that attempted the most requests, and says how many it left out (the
// JSON, Markdown and HTML reports list them all).
const TextEndpoints = 30

func endpoints(b *strings.Builder, s *summary.Summary, qs []float64) {
	shown := s.Endpoints
	if len(shown) > TextEndpoints {
		shown = slices.Clone(shown)
		slices.SortStableFunc(shown, func(x, y summary.Endpoint) int {
			return cmp.Compare(y.Requests.Attempted(), x.Requests.Attempted())
		})
		shown = shown[:TextEndpoints]
	}
	if len(shown) < len(s.Endpoints) {
		fmt.Fprintf(b, "\nEndpoints (the %d of %d with the most requests)\n", len(shown), len(s.Endpoints))
	}
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	if len(shown) == len(s.Endpoints) {
		fmt.Fprintln(tw, "\nEndpoints\t")
	}
	fmt.Fprintf(tw, "  name\tsent\tok\tfailed\tanswers/s\t%s\tmax\t\n", strings.Join(pctNames(qs), "\t"))
	for _, e := range shown {
		fmt.Fprintf(tw, "  %s\t%d\t%d\t%d\t%s\t%s\t\n", e.Name, e.Requests.Sent, e.Requests.OK, e.Requests.Errors,
			fmt1(e.Throughput), strings.Join(pctCells(&e.Latency, qs), "\t"))
	}
	tw.Flush()
	if n := len(s.Endpoints) - len(shown); n > 0 {
		fmt.Fprintf(b, "  … and %d more endpoints: --format json, markdown or html lists them all\n", n)
	}
}

func pct(n, of uint64) float64 {
	if of == 0 {
		return 0
	}
	return 100 * float64(n) / float64(of)
}

func fmt1(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

func trimFloat(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func fmtSeconds(s float64) string { return fmtMs(s * 1000) }

// warmupFrom says where a warm-up that ramped rose from ("rising from 50 connections", "rising
// from 300/s"); "" for one that held the run's level.
func warmupFrom(l plan.Load) string {
	if l.WarmupFrom == nil {
		return ""
	}
	level := strconv.FormatFloat(*l.WarmupFrom, 'f', -1, 64)
	switch {
	case l.Model != plan.Closed:
		level += "/s"
	case *l.WarmupFrom == 1:
		level += " connection"
	default:
		level += " connections"
	}
	return "rising from " + level
}

func fmtBytes(n float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	i := 0
	for n >= 1024 && i < len(units)-1 {
		n /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%.0f %s", n, units[i])
	}
	return fmt.Sprintf("%.1f %s", n, units[i])
}
