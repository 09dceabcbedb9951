package report

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/summary"
)

// GHZ writes s as ghz's summary does, section for section (Summary, Response time histogram,
// Latency distribution, Status code distribution, Error distribution), so that a ghz user finds
// the figures where they look; then rpcbench's own: latency from the intended send time beside the
// service time, what was intended, sent and dropped, and the connections. As in ghz, the ghz
// sections time each call from its actual send (rpcbench's service time); Count is every call
// made, failed ones included, and Requests/sec is Count over Total.
func GHZ(w io.Writer, s *summary.Summary) error {
	b := &strings.Builder{}
	count := s.Requests.Attempted()
	l := s.Service
	b.WriteString("\nSummary:\n")
	fmt.Fprintf(b, "  Count:\t%d\n", count)
	fmt.Fprintf(b, "  Total:\t%s\n", ghzMs(s.DurationS*1000))
	fmt.Fprintf(b, "  Slowest:\t%s\n", ghzMs(l.Max))
	fmt.Fprintf(b, "  Fastest:\t%s\n", ghzMs(l.Min))
	fmt.Fprintf(b, "  Average:\t%s\n", ghzMs(l.Mean))
	rps := 0.0
	if s.DurationS > 0 {
		rps = float64(count) / s.DurationS
	}
	fmt.Fprintf(b, "  Requests/sec:\t%.2f\n", rps)
	ghzHistogram(b, s)
	if s.ServiceHist != nil && s.ServiceHist.TotalCount() > 0 {
		b.WriteString("\nLatency distribution:\n")
		for _, q := range []float64{10, 25, 50, 75, 90, 95, 99} {
			fmt.Fprintf(b, "  %v %% in %s \n", q, ghzMs(float64(s.ServiceHist.ValueAtQuantile(q))/1000))
		}
	}
	codes := ghzCodes(s)
	if len(codes) > 0 {
		b.WriteString("\nStatus code distribution:\n")
		for _, c := range statusOrder(codes) {
			fmt.Fprintf(b, "  [%s]\t%d responses\n", c, codes[c])
		}
	}
	if len(s.ErrorMessages) > 0 {
		b.WriteString("\nError distribution:\n")
		for _, m := range s.ErrorMessages {
			fmt.Fprintf(b, "  [%d]\t%s\n", m.Count, m.Message)
		}
		if n, reqs := s.Unlisted(len(s.ErrorMessages)); n > 0 {
			fmt.Fprintf(b, "  [%d]\t… %d more distinct messages\n", reqs, n)
		}
	}
	ghzOwn(b, s)
	_, err := io.WriteString(w, b.String())
	return err
}

// ghzMs writes milliseconds as ghz does: two decimals and the unit.
func ghzMs(v float64) string { return fmt.Sprintf("%.2f ms", v) }

// ghzHistogram writes ghz's response time histogram: ten equal buckets from the fastest to the
// slowest call, each mark counting the calls above the previous mark up to it, bars of ∎ scaled to
// the fullest bucket.
func ghzHistogram(b *strings.Builder, s *summary.Summary) {
	h := s.ServiceHist
	if h == nil || h.TotalCount() == 0 {
		return
	}
	const buckets = 10
	lo, hi := float64(h.Min()), float64(h.Max())
	step := (hi - lo) / buckets
	var counts [buckets + 1]int64
	for _, bar := range h.Distribution() {
		if bar.Count == 0 {
			continue
		}
		i := buckets
		if step > 0 {
			i = int(math.Ceil((float64(bar.From) - lo) / step))
		}
		counts[min(max(i, 0), buckets)] += bar.Count
	}
	var peak int64
	for _, c := range counts {
		peak = max(peak, c)
	}
	b.WriteString("\nResponse time histogram:\n")
	for i, c := range counts {
		n := 0
		if peak > 0 {
			n = int(c * 40 / peak)
		}
		fmt.Fprintf(b, "  %.3f [%d]\t|%s\n", (lo+step*float64(i))/1000, c, strings.Repeat("∎", n))
	}
}

// ghzCodes returns the calls by gRPC status code as ghz counts them: the answers' codes, and the
// code grpc-go gives a call that got no answer (DeadlineExceeded for a deadline, Canceled for a call
// cut short, Unavailable when the connection failed).
func ghzCodes(s *summary.Summary) map[string]uint64 {
	codes := map[string]uint64{}
	for c, n := range s.Status {
		codes[c] += n
	}
	for class, n := range s.Errors {
		switch class {
		case result.Status.String(), result.Check.String(), result.Protocol.String(), result.TooLarge.String():
			// an answer, counted by its code
		case result.Timeout.String():
			codes["DeadlineExceeded"] += n
		case result.Canceled.String():
			codes["Canceled"] += n
		default:
			codes["Unavailable"] += n
		}
	}
	return codes
}

// ghzOwn writes what rpcbench adds to ghz's figures.
func ghzOwn(b *strings.Builder, s *summary.Summary) {
	r := s.Requests
	b.WriteString("\nrpcbench:\n")
	fmt.Fprintf(b, "  requests      intended %d, sent %d, ok %d, failed %d", r.Intended, r.Sent, r.OK, r.Errors)
	if r.Dropped > 0 {
		fmt.Fprintf(b, ", dropped %d (never sent: the generator or its connections fell behind)", r.Dropped)
	}
	b.WriteString("\n")
	row := func(name string, p summary.Percentiles, note string) {
		fmt.Fprintf(b, "  %-13s p50 %s, p90 %s, p99 %s, p99.9 %s, max %s  %s\n", name,
			fmtMs(p.P50), fmtMs(p.P90), fmtMs(p.P99), fmtMs(p.P999), fmtMs(p.Max), note)
	}
	row("latency", s.Latency, "(from the intended send time)")
	row("service time", s.Service, "(from the actual send, as ghz times calls)")
	if s.Config.Load.Model == plan.Open {
		fmt.Fprintf(b, "  rate          intended %s/s, sent %s/s; send lag p99 %s\n", fmt1(s.IntendedRate), fmt1(s.SendRate), fmtMs(s.SendLag.P99))
	}
	fmt.Fprintf(b, "  throughput    %s answers/s\n", fmt1(s.Throughput))
	if s.TTFB != nil && s.Messages != nil {
		row("first message", *s.TTFB, "(from the actual send to the first answer of a stream)")
	}
	streamLines(b, s, 13)
	c := s.Connections
	fmt.Fprintf(b, "  connections   %d opened", c.Opened)
	if c.Failed > 0 {
		fmt.Fprintf(b, ", %d failed", c.Failed)
	}
	if c.TLS != nil {
		fmt.Fprintf(b, "; tls set-up p50 %s", fmtMs(c.TLS.P50))
	}
	b.WriteString("\n")
	for _, n := range s.Notes {
		fmt.Fprintf(b, "  ! %s\n", n)
	}
}
