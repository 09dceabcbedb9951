package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/rpcbench/rpcbench/compare"
	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/summary"
)

// Markdown writes runs as Markdown tables ready to paste into a README. One run gets its summary,
// latency percentiles, endpoints, status codes and failures; several runs get one table with the
// runs side by side and, for each run after the first, its ratio to the first ("3.2× more
// requests/s", "0.5× the p99"), and when some run has several endpoints a table of each endpoint's
// answers/s, error rate, p50 and p99 with ratios. labels name the runs (see compare.New).
func Markdown(w io.Writer, runs []*summary.Summary, labels []string) error {
	return MarkdownWith(w, runs, labels, Options{})
}

// MarkdownWith is Markdown with the tables of one run chosen by o.
func MarkdownWith(w io.Writer, runs []*summary.Summary, labels []string, o Options) error {
	if len(runs) == 0 {
		return fmt.Errorf("report: markdown: no runs")
	}
	b := &strings.Builder{}
	if len(runs) == 1 {
		markdownRun(b, runs[0], o.percentiles())
	} else {
		c := compare.NewStats(runs, labels, o.Stats)
		for i, s := range runs {
			validityMarkdown(b, s, c.Labels[i])
		}
		markdownCompare(b, runs, c)
		resourcesMarkdownRuns(b, runs, c.Labels)
		for i, s := range runs {
			checksMarkdown(b, &s.Stats, c.Labels[i])
			answerMetricsMarkdown(b, s, c.Labels[i])
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// mdCell escapes what would break a table cell.
func mdCell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "\r", "").Replace(s)
}

func mdRow(b *strings.Builder, cells ...string) {
	b.WriteString("|")
	for _, c := range cells {
		b.WriteString(" " + c + " |")
	}
	b.WriteString("\n")
}

func mdHeader(b *strings.Builder, cells ...string) {
	mdRow(b, cells...)
	b.WriteString("|")
	for i := range cells {
		if i == 0 {
			b.WriteString(" --- |")
		} else {
			b.WriteString(" ---: |")
		}
	}
	b.WriteString("\n")
}

func markdownRun(b *strings.Builder, s *summary.Summary, qs []float64) {
	fmt.Fprintf(b, "### rpcbench %s: `%s`\n\n", mdCell(s.Tool.Version), mdCell(s.Target))
	validityMarkdown(b, s, "")
	if s.Config.SubscriptionsOnly() {
		aloneMarkdown(b, s)
		return
	}
	r := s.Requests
	mdHeader(b, "", "")
	mdRow(b, "started", s.StartedAt.Format("2006-01-02 15:04:05 UTC"))
	mdRow(b, "duration", fmtSeconds(s.DurationS))
	if r.Unsent > 0 {
		mdRow(b, "requests", fmt.Sprintf("%d sent, %d ok, %d failed (%d before sending)", r.Sent, r.OK, r.Errors, r.Unsent))
	} else {
		mdRow(b, "requests", fmt.Sprintf("%d sent, %d ok, %d failed", r.Sent, r.OK, r.Errors))
	}
	if m := missesText(s); m != "" {
		mdRow(b, "misses", m)
	}
	if r.RetriedAfterReset > 0 {
		mdRow(b, "retried after reset", fmt.Sprint(r.RetriedAfterReset))
	}
	if r.RetriedAfterGoAway > 0 {
		mdRow(b, "retried after GOAWAY", fmt.Sprint(r.RetriedAfterGoAway))
	}
	mdRow(b, "throughput", throughputText(s))
	if s.Config.Load.Model == plan.Open { // a closed model intends no rate: it sends when answered
		mdRow(b, "intended rate", fmt1(s.IntendedRate)+"/s")
		mdRow(b, "send lag p99", fmtMs(s.SendLag.P99))
	}
	if s.Interrupted {
		mdRow(b, "interrupted", "yes: the figures cover the run up to the interruption")
	}
	b.WriteString("\nLatency, from the intended send time:\n\n")
	l := s.Latency
	mdHeader(b, append(append([]string{"min"}, pctNames(qs)...), "max", "mean")...)
	mdRow(b, append(append([]string{fmtMs(l.Min)}, pctCells(&l, qs)...), fmtMs(l.Mean))...)
	if len(s.Endpoints) > 1 {
		b.WriteString("\nEndpoints:\n\n")
		mdHeader(b, append(append([]string{"endpoint", "sent", "ok", "failed", "answers/s"}, pctNames(qs)...), "max")...)
		for _, e := range s.Endpoints {
			mdRow(b, append([]string{mdCell(e.Name), fmt.Sprint(e.Requests.Sent), fmt.Sprint(e.Requests.OK), fmt.Sprint(e.Requests.Errors),
				fmt1(e.Throughput)}, pctCells(&e.Latency, qs)...)...)
		}
	}
	callsMarkdown(b, &s.Stats)
	checksMarkdown(b, &s.Stats, "")
	answerMetricsMarkdown(b, s, "")
	if overWebSocket(&s.Stats) {
		b.WriteString("\nJSON-RPC outcomes (over WebSocket, where every answer has the upgrade's status 101):\n\n")
		mdHeader(b, "outcome", "count")
		counts, keys := wsOutcomes(&s.Stats)
		for _, k := range keys {
			mdRow(b, k, fmt.Sprint(counts[k]))
		}
	} else if len(s.Status) > 0 {
		title := "Status codes"
		if grpcStatuses(s.Status) {
			title = "gRPC status codes"
		}
		fmt.Fprintf(b, "\n%s:\n\n", title)
		mdHeader(b, "status", "count")
		for _, c := range statusOrder(s.Status) {
			mdRow(b, c, fmt.Sprint(s.Status[c]))
		}
		mdGRPCByMethod(b, s)
	}
	if len(s.ErrorMessages) > 0 {
		b.WriteString("\nFailures:\n\n")
		mdHeader(b, "message", "class", "count")
		for _, m := range s.ErrorMessages {
			mdRow(b, mdCell(m.Message), m.Class, fmt.Sprint(m.Count))
		}
		for _, m := range s.MoreMessages {
			mdRow(b, fmt.Sprintf("… and %d more distinct messages", m.Distinct), m.Class, fmt.Sprint(m.Count))
		}
	}
	if rows := quicRows(&s.Connections); len(rows) > 0 {
		b.WriteString("\nQUIC connections (HTTP/3):\n\n")
		mdHeader(b, "", "")
		for _, r := range rows {
			mdRow(b, r[0], r[1])
		}
	}
	subscriptionsMarkdown(b, s)
	stagesMarkdown(b, s)
	sloMarkdown(b, s)
	resourcesMarkdown(b, s)
	for _, n := range s.Notes {
		fmt.Fprintf(b, "\n> %s\n", mdCell(n))
	}
}

func markdownCompare(b *strings.Builder, runs []*summary.Summary, c *compare.Comparison) {
	head := []string{""}
	for i, l := range c.Labels {
		head = append(head, mdCell(l))
		if i > 0 {
			head = append(head, mdCell(l)+" vs "+mdCell(c.Labels[0]))
		}
	}
	mdInputs(b, c.Labels, c.Settings, c.InputsNote)
	mdHeader(b, head...)
	for _, m := range c.Metrics {
		mdRow(b, mdCompareRow(m, m.Name)...)
	}
	if n := judgedNote(c.Metrics); n != "" {
		fmt.Fprintf(b, "\n%s\n", n)
	}
	if len(c.Endpoints) > 0 {
		b.WriteString("\nEndpoints:\n\n")
		mdHeader(b, append([]string{"endpoint", "figure"}, head[1:]...)...)
		for _, e := range c.Endpoints {
			for k, m := range e.Metrics {
				name := mdCell(e.Name)
				if k > 0 {
					name = ""
				}
				mdRow(b, mdCompareRow(m, name, m.Name)...)
			}
		}
	}
	b.WriteString("\n")
	for i, s := range runs {
		fmt.Fprintf(b, "- %s: `%s`, %s, %d requests, started %s%s\n", mdCell(c.Labels[i]), mdCell(s.Target), loadLine(s),
			s.Requests.Sent, s.StartedAt.Format("2006-01-02 15:04:05 UTC"), sloSuffix(s))
	}
}

// mdInputs writes the runs' inputs as a table, and whether they differ.
func mdInputs(b *strings.Builder, labels []string, settings []compare.Setting, note string) {
	head := []string{"input"}
	for _, l := range labels {
		head = append(head, mdCell(l))
	}
	mdHeader(b, head...)
	for _, st := range settings {
		cells := settingValues(st)
		for i := range cells {
			cells[i] = mdCell(cells[i])
		}
		mdRow(b, append([]string{st.Name}, cells...)...)
	}
	fmt.Fprintf(b, "\n%s.\n\n", mdCell(inputsLine(note)))
}

// mdCompareRow is the cells of one compared figure: first, then each run's value and, after the
// first run, its ratio to it, in bold when better (never for a figure that is not judged).
func mdCompareRow(m compare.Metric, first ...string) []string {
	row := append([]string{}, first...)
	for i := range m.Values {
		row = append(row, cmpValue(m, i))
		if i > 0 {
			p := m.Phrase(i)
			if m.Improved(i) {
				p = "**" + p + "**"
			}
			row = append(row, p)
		}
	}
	return row
}

func mdValue(v float64, unit string) string {
	switch unit {
	case "ms":
		return fmtMs(v)
	case "%":
		return fmt.Sprintf("%.2f%%", v)
	case "count":
		return strconv.FormatFloat(v, 'f', 0, 64)
	case "B/s":
		return fmtBytes(v) + "/s"
	}
	return fmt1(v) + " " + unit
}

// loadLine says in a few words how a run loaded its target: "open model at 1000/s".
func loadLine(s *summary.Summary) string {
	l := s.Config.Load
	switch {
	case len(l.Stages) > 0:
		return fmt.Sprintf("%s model, %d stages", l.Model, len(l.Stages))
	case l.Rate > 0:
		return fmt.Sprintf("open model at %s/s", trimFloat(l.Rate))
	}
	return fmt.Sprintf("closed model, %d connections", l.Connections)
}
