package report

import (
	"encoding/csv"
	"fmt"
	"strconv"
	"strings"

	"github.com/rpcbench/rpcbench/summary"
)

// answerMetricsNote says what the answer metrics are, under their title in text and Markdown.
const answerMetricsNote = "numbers read from each successful answer, in the answer's own unit; missing: answers without a number at the path"

// answerMetricsHeader is the header of the answer metrics table.
var answerMetricsHeader = []string{"metric", "endpoint", "answers", "missing", "min", "mean", "p50", "p90", "p99", "max"}

// answerMetricsRows are the rows of the answer metrics table: each metric of the run, then, with several
// endpoints, of each endpoint.
func answerMetricsRows(s *summary.Summary) [][]string {
	var rows [][]string
	add := func(endpoint string, ms []summary.AnswerMetric) {
		for _, m := range ms {
			row := []string{m.Name, endpoint, strconv.FormatUint(m.Count, 10), strconv.FormatUint(m.Missing, 10), "-", "-", "-", "-", "-", "-"}
			if v := m.Values; v != nil {
				copy(row[4:], []string{fmtValue(v.Min), fmtValue(v.Mean), fmtValue(v.P50), fmtValue(v.P90), fmtValue(v.P99), fmtValue(v.Max)})
			}
			rows = append(rows, row)
		}
	}
	add("all", s.AnswerMetrics)
	if len(s.Endpoints) > 1 {
		for _, e := range s.Endpoints {
			add(e.Name, e.AnswerMetrics)
		}
	}
	return rows
}

// fmtValue writes a metric's value: whole numbers as such, a mean to one decimal.
func fmtValue(v float64) string {
	if v == float64(int64(v)) {
		return strconv.FormatInt(int64(v), 10)
	}
	return fmt1(v)
}

// answerMetricsText writes the answer metrics table.
func answerMetricsText(b *strings.Builder, s *summary.Summary) {
	if len(s.AnswerMetrics) == 0 {
		return
	}
	titledTable(b, fmt.Sprintf("Answer metrics (%s)", answerMetricsNote), answerMetricsHeader, answerMetricsRows(s))
}

// answerMetricsMarkdown writes the answer metrics table in Markdown; of names the run among several
// ("" for one).
func answerMetricsMarkdown(b *strings.Builder, s *summary.Summary, of string) {
	if len(s.AnswerMetrics) == 0 {
		return
	}
	title := "Answer metrics"
	if of != "" {
		title += " of " + mdCell(of)
	}
	mdTitledTable(b, fmt.Sprintf("%s (%s)", title, answerMetricsNote), answerMetricsHeader, answerMetricsRows(s))
}

// answerMetricsCSV writes a row per answer metric of a run (of the whole run), after its intervals:
// endpoint "metric: NAME", sent the answers judged for it, ok those that held it, errors those
// that did not; its figures are in its own unit, not in the _ms columns, which stay empty, as do
// the others but kind, "metric", when the rows have one (staged).
func answerMetricsCSV(cw *csv.Writer, run string, s *summary.Summary, width int, staged bool) {
	for _, m := range s.AnswerMetrics {
		countsCSV(cw, run, width, staged, "metric", m.Name, m.Count, m.Missing)
	}
}
