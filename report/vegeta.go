package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/rpcbench/rpcbench/summary"
)

// Vegeta writes one run in the layout of vegeta's text report (`vegeta report`), for readers and
// scripts used to it. The figures are rpcbench's, in vegeta's meanings where they differ:
//
//   - Requests: total is every request made (sent, or failed before sending); rate is total over
//     the attack; throughput is the requests that succeeded over the whole duration.
//   - Duration: attack is the window the requests were due in (the run's duration), or longer,
//     to the last request sent, when the generator fell behind; wait runs from its end to the
//     end of the run, which comes with the last answer (its senders then stop, a few milliseconds
//     later on a busy machine), 0 when every answer came within it; total is both. vegeta's attack ends at
//     its last send, one interval between requests before the end of the window.
//   - Latencies: the service time, from the actual send to the answer's last byte, as vegeta
//     times its requests (rpcbench's own latency, from the intended send, is in the other formats).
//   - Bytes In and Bytes Out: read and written, headers included; mean per request made.
//   - Success: the requests that succeeded (a good status, and every check passed) over total.
//   - Status Codes: each answer's status; 0 counts the requests that got none.
//   - Error Set: one example message of each distinct failure.
func Vegeta(w io.Writer, s *summary.Summary) error {
	total := s.Requests.Attempted()
	attack := time.Duration(s.SendSpanS * float64(time.Second))
	all := time.Duration(s.DurationS * float64(time.Second))
	wait := max(all-attack, 0)
	rate, throughput, success := 0.0, 0.0, 0.0
	if attack > 0 {
		rate = float64(total) / attack.Seconds()
	}
	if all > 0 {
		throughput = float64(s.Requests.OK) / all.Seconds()
	}
	meanIn, meanOut := 0.0, 0.0
	if total > 0 {
		success = float64(s.Requests.OK) / float64(total)
		meanIn, meanOut = float64(s.Bytes.In)/float64(total), float64(s.Bytes.Out)/float64(total)
	}
	l := s.Service
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', tabwriter.StripEscape)
	fmt.Fprintf(tw, "Requests\t[total, rate, throughput]\t%d, %.2f, %.2f\n", total, rate, throughput)
	fmt.Fprintf(tw, "Duration\t[total, attack, wait]\t%s, %s, %s\n", vegetaRound(attack+wait), vegetaRound(attack), vegetaRound(wait))
	fmt.Fprintf(tw, "Latencies\t[min, mean, 50, 90, 95, 99, max]\t%s, %s, %s, %s, %s, %s, %s\n",
		msRound(l.Min), msRound(l.Mean), msRound(l.P50), msRound(l.P90), msRound(l.P95), msRound(l.P99), msRound(l.Max))
	fmt.Fprintf(tw, "Bytes In\t[total, mean]\t%d, %.2f\n", s.Bytes.In, meanIn)
	fmt.Fprintf(tw, "Bytes Out\t[total, mean]\t%d, %.2f\n", s.Bytes.Out, meanOut)
	fmt.Fprintf(tw, "Success\t[ratio]\t%.2f%%\n", success*100)
	fmt.Fprintf(tw, "Status Codes\t[code:count]\t")
	codes := make(map[string]uint64, len(s.Status)+1)
	var answered uint64
	for c, n := range s.Status {
		codes[c] += n
		answered += n
	}
	if total > answered {
		codes["0"] += total - answered
	}
	keys := make([]string, 0, len(codes))
	for c := range codes {
		keys = append(keys, c)
	}
	slices.Sort(keys) // as text, as vegeta sorts them
	for _, c := range keys {
		fmt.Fprintf(tw, "%s:%d  ", c, codes[c])
	}
	fmt.Fprintln(tw, "\nError Set:")
	for _, m := range s.ErrorMessages {
		fmt.Fprintln(tw, m.Message)
	}
	for _, m := range s.MoreMessages {
		fmt.Fprintf(tw, "(%d more distinct %s failures, not listed)\n", m.Distinct, m.Class)
	}
	return tw.Flush()
}

// msRound is a figure in milliseconds as vegetaRound writes it.
func msRound(ms float64) string {
	if math.IsNaN(ms) || ms < 0 {
		ms = 0
	}
	return vegetaRound(time.Duration(math.Round(ms * float64(time.Millisecond))))
}

// vegetaRound writes d to the precision of the unit below its largest: 1.5s to the millisecond,
// 12.345ms to the microsecond, 150.123µs to the nanosecond — vegeta's report's precision.
func vegetaRound(d time.Duration) string {
	for _, u := range []struct{ unit, to time.Duration }{
		{time.Hour, time.Minute}, {time.Minute, time.Second}, {time.Second, time.Millisecond},
		{time.Millisecond, time.Microsecond},
	} {
		if d >= u.unit {
			return d.Round(u.to).String()
		}
	}
	return d.String() // below a millisecond: to the nanosecond, as it is
}
