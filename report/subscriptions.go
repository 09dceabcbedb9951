package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rpcbench/rpcbench/summary"
)

// subscriptionRows are the lines of the subscriptions section: a label and its figures.
func subscriptionRows(u *summary.Subscriptions) [][2]string {
	pcts := func(p *summary.Percentiles, what string) string {
		if p == nil {
			return "none " + what
		}
		return fmt.Sprintf("p50 %s, p90 %s, p99 %s, p99.9 %s, max %s", fmtMs(p.P50), fmtMs(p.P90), fmtMs(p.P99), fmtMs(p.P999), fmtMs(p.Max))
	}
	rows := [][2]string{
		{"subscriptions", fmt.Sprintf("%d asked, %d opened, %d failed", u.Asked, u.Opened, u.Failed)},
		{"time to id", pcts(u.TimeToID, "(no subscription opened)")},
		{"time to first", pcts(u.TimeToFirst, "(no notification)")},
		{"notifications", fmt.Sprintf("%d; per subscription mean %s, min %d, max %d", u.Messages, fmt1(u.MeanPerSubscription), u.MinPerSubscription, u.MaxPerSubscription)},
	}
	switch {
	case u.GapsBy != "":
		line := fmt.Sprintf("%d missing (by %s)", u.Gaps, u.GapsBy)
		if n := u.GappedSubscriptions; n > 0 { // a file from before it was counted has 0 with its gaps
			line += fmt.Sprintf(", in %d of %d subscriptions", n, u.Opened)
		}
		rows = append(rows, [2]string{"gaps", line})
	case u.Messages > 0:
		rows = append(rows, [2]string{"gaps", "not known: the notifications carry no sequence or block number"})
	}
	rows = append(rows,
		[2]string{"delivery latency", pcts(u.Delivery, "(the notifications carry no rpcbenchStampNs)")},
		[2]string{"fan-out spread", pcts(u.Spread, "(no event reached two subscriptions)")},
	)
	if ref := u.Reference; ref != nil {
		rows = append(rows, [2]string{"reference lag", pcts(ref.Lag, "(no head timed)")})
		line := fmt.Sprintf("%d heads timed against %d received on %s; %d received before the reference (lag 0)", ref.Timed, ref.Heads, ref.URL, ref.Ahead)
		if ref.Unmatched > 0 {
			line += fmt.Sprintf("; %d never reached the reference, not timed", ref.Unmatched)
		}
		if w := ref.Slowest; w != nil {
			line += fmt.Sprintf("; slowest subscriber mean %s, max %s over %d heads", fmtMs(w.MeanMs), fmtMs(w.MaxMs), w.Heads)
		}
		if ref.Error != "" {
			line += "; the reference ended early: " + ref.Error
		}
		rows = append(rows, [2]string{"behind reference", line})
	}
	rows = append(rows,
		[2]string{"unsubscribes", fmt.Sprintf("%d sent, %d answered true", u.UnsubscribeSent, u.Unsubscribed)},
	)
	for _, e := range u.Errors {
		rows = append(rows, [2]string{"failure", fmt.Sprintf("%d× %s", e.Count, e.Message)})
	}
	return rows
}

// subscriptionsText writes the subscriptions section of the text report, if the run had some.
func subscriptionsText(b *strings.Builder, s *summary.Summary) {
	u := s.Subscriptions
	if u == nil {
		return
	}
	fmt.Fprintf(b, "\nSubscriptions: %s\n", u.Request)
	for _, r := range subscriptionRows(u) {
		fmt.Fprintf(b, "  %-17s %s\n", r[0], r[1])
	}
	if n := subscriptionsNote(u); n != "" {
		fmt.Fprintf(b, "  (%s)\n", n)
	}
	if len(u.Parts) > 0 {
		b.WriteString("  by the calls' stage: their load, and the notifications received in it\n")
		rows := partRows(s)
		w := make([]int, len(rows[0]))
		for _, r := range rows {
			for i, c := range r {
				w[i] = max(w[i], len([]rune(c)))
			}
		}
		for _, r := range rows {
			line := "   "
			for i, c := range r {
				line += fmt.Sprintf("  %-*s", w[i], c)
			}
			b.WriteString(strings.TrimRight(line, " ") + "\n")
		}
	}
}

// subscriptionsNote says from when to when the figures of u run; "" when no event reached two
// subscriptions.
func subscriptionsNote(u *summary.Subscriptions) string {
	if u.Spread == nil {
		return ""
	}
	return fmt.Sprintf("time to id and to first from the subscribe call's send; delivery from each event's stamp; spread from an event's first to its last receipt, %d events", u.SpreadEvents)
}

// partRows are the table of the subscriptions' parts, its header first: for each, the calls' load
// in its stage (answers per second and latency p99, from the Summary's Stages; none for the
// warm-up, or for a ramp left out of them) beside the notifications received, the gaps they
// revealed and their delivery latency, so that push delivery reads against call load.
func partRows(s *summary.Summary) [][]string {
	u := s.Subscriptions
	rows := [][]string{{"part", "time", "calls/s", "calls p99", "notifications", "gaps", "delivery p50", "p99", "max"}}
	for _, p := range u.Parts {
		from := "0s"
		if p.FromS > 0 {
			from = fmtSeconds(p.FromS)
		}
		r := []string{p.Label, from + " – " + fmtSeconds(p.ToS), "", "", fmt.Sprint(p.Messages), "", "", "", ""}
		for _, st := range s.Stages {
			if p.Stage > 0 && st.Index == p.Stage {
				r[2], r[3] = fmt1(st.RPS), fmtMs(st.Latency.P99)
			}
		}
		if p.Gaps != nil {
			r[5] = fmt.Sprint(*p.Gaps)
		}
		if d := p.Delivery; d != nil {
			r[6], r[7], r[8] = fmtMs(d.P50), fmtMs(d.P99), fmtMs(d.Max)
		}
		rows = append(rows, r)
	}
	return rows
}

// subscriptionsMarkdown writes the subscriptions section of the Markdown report, if any.
func subscriptionsMarkdown(b *strings.Builder, s *summary.Summary) {
	u := s.Subscriptions
	if u == nil {
		return
	}
	fmt.Fprintf(b, "\nSubscriptions: `%s`\n\n", mdCell(u.Request))
	mdHeader(b, "", "")
	for _, r := range subscriptionRows(u) {
		mdRow(b, r[0], mdCell(r[1]))
	}
	if len(u.Parts) > 0 {
		b.WriteString("\nBy the calls' stage: their load, and the notifications received in it:\n\n")
		rows := partRows(s)
		mdHeader(b, rows[0]...)
		for _, r := range rows[1:] {
			for i := range r {
				r[i] = mdCell(r[i])
			}
			mdRow(b, r...)
		}
	}
}

// aloneLine says what a run of subscriptions and no calls (plan.Plan.SubscriptionsOnly) was: how
// long it lasted, and when it started.
func aloneLine(s *summary.Summary) string {
	return fmt.Sprintf("subscriptions alone (no calls) for %s; started %s", fmtSeconds(s.DurationS), s.StartedAt.Format("2006-01-02 15:04:05 UTC"))
}

// aloneText writes the header and the subscriptions of a run of subscriptions and no calls, in
// place of the calls' sections.
func aloneText(b *strings.Builder, s *summary.Summary) {
	fmt.Fprintf(b, "rpcbench %s  %s\n%s\n", s.Tool.Version, s.Target, aloneLine(s))
	if s.Interrupted {
		b.WriteString("INTERRUPTED: what follows covers the run up to the interruption\n")
	}
	subscriptionsText(b, s)
}

// aloneMarkdown writes the rest of a run of subscriptions and no calls, after its title and
// verdict: what it was, its subscriptions, what was watched and the notes.
func aloneMarkdown(b *strings.Builder, s *summary.Summary) {
	b.WriteString(aloneLine(s) + "\n")
	if s.Interrupted {
		b.WriteString("\n**interrupted**: the figures cover the run up to the interruption\n")
	}
	subscriptionsMarkdown(b, s)
	resourcesMarkdown(b, s)
	for _, n := range s.Notes {
		fmt.Fprintf(b, "\n> %s\n", mdCell(n))
	}
}

// AloneFormats are the formats a run of subscriptions and no calls (plan.Plan.SubscriptionsOnly)
// is rendered in: the others show calls.
var AloneFormats = []string{"text", "json", "markdown", "html"}

// aloneFormat refuses to render a run of subscriptions alone in a format of calls, or beside other
// runs, whose comparison is of calls.
func aloneFormat(runs []*summary.Summary, format string) error {
	for _, s := range runs {
		if !s.Config.SubscriptionsOnly() {
			continue
		}
		if format == "" {
			format = "text"
		}
		if !slices.Contains(AloneFormats, format) {
			return &FormatError{Format: format, Reason: "a run of subscriptions alone (no calls) is rendered as text, json, markdown or html"}
		}
		if len(runs) > 1 {
			return &FormatError{Format: format, Reason: fmt.Sprintf("a run of subscriptions alone (no calls) is rendered on its own: several runs are compared by their calls, and it has none; got %d runs (report each on its own)", len(runs))}
		}
	}
	return nil
}

// aloneFigures are the headline figures of a run of subscriptions alone, for the HTML page's run
// card: a value and its name each.
func aloneFigures(u *summary.Subscriptions) [][2]string {
	p99 := func(p *summary.Percentiles) string {
		if p == nil {
			return "—"
		}
		return fmtMs(p.P99)
	}
	gaps := "not known"
	if u.GapsBy != "" {
		gaps = fmt.Sprint(u.Gaps)
	}
	return [][2]string{
		{fmt.Sprintf("%d of %d", u.Opened, u.Asked), "subscriptions opened"},
		{fmt.Sprint(u.Messages), "notifications"},
		{gaps, "gaps"},
		{p99(u.TimeToFirst), "time to first p99"},
		{p99(u.Delivery), "delivery latency p99"},
		{p99(u.Spread), "fan-out spread p99"},
	}
}

// subsChart is one run's subscription figures by percentile for the HTML page's chart: each
// measure's p50, p90, p99, p99.9 and max in ms (a measure with no figure is left out).
type subsChart struct {
	Run      int           `json:"run"` // index into chartData.Runs
	Measures []subsMeasure `json:"measures"`
}

type subsMeasure struct {
	Name string     `json:"name"`
	Ms   [5]float64 `json:"ms"`
}

// subsChartPcts name the x of the subscriptions' chart, in the order of subsMeasure.Ms.
var subsChartPcts = []string{"p50", "p90", "p99", "p99.9", "max"}

// subscriptionsChart is the subscriptions' chart data of the runs that had subscriptions with a
// figure; none when no run had one.
func subscriptionsChart(runs []*summary.Summary) []subsChart {
	var out []subsChart
	for i, s := range runs {
		u := s.Subscriptions
		if u == nil {
			continue
		}
		c := subsChart{Run: i}
		for _, m := range []struct {
			name string
			p    *summary.Percentiles
		}{{"time to id", u.TimeToID}, {"time to first", u.TimeToFirst}, {"delivery latency", u.Delivery}, {"fan-out spread", u.Spread}, {"reference lag", refLag(u)}} {
			if m.p != nil {
				c.Measures = append(c.Measures, subsMeasure{Name: m.name, Ms: [5]float64{m.p.P50, m.p.P90, m.p.P99, m.p.P999, m.p.Max}})
			}
		}
		if len(c.Measures) > 0 {
			out = append(out, c)
		}
	}
	return out
}

// refLag is the lag behind the reference connection, nil without one or without a head timed.
func refLag(u *summary.Subscriptions) *summary.Percentiles {
	if u.Reference == nil {
		return nil
	}
	return u.Reference.Lag
}
