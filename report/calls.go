package report

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/rpcbench/rpcbench/summary"
)

// callsNote says what the per-call figures are, under their table in text and Markdown.
const callsNote = "each call inside a batch, by method; a call's latency is its batch's, shown above"

// callsHeader is the header of the per-call table.
var callsHeader = []string{"method", "calls", "ok", "errors", "unanswered", "calls/s"}

// callsRows are the rows of the per-call table: one per method, its errors by JSON-RPC code such as
// "3 (-32601: 3)".
func callsRows(calls []summary.MethodCalls) [][]string {
	var rows [][]string
	for _, m := range calls {
		errs := strconv.FormatUint(m.Failed(), 10)
		if len(m.Errors) > 0 {
			codes := make([]string, 0, len(m.Errors))
			for c := range m.Errors {
				codes = append(codes, c)
			}
			sort.Slice(codes, func(i, j int) bool {
				a, _ := strconv.ParseInt(codes[i], 10, 64)
				b, _ := strconv.ParseInt(codes[j], 10, 64)
				return a < b
			})
			for i, c := range codes {
				codes[i] = fmt.Sprintf("%s: %d", c, m.Errors[c])
			}
			errs += " (" + strings.Join(codes, ", ") + ")"
		}
		rows = append(rows, []string{m.Method, strconv.FormatUint(m.Calls, 10), strconv.FormatUint(m.OK, 10), errs,
			strconv.FormatUint(m.Unanswered, 10), fmt1(m.Throughput)})
	}
	return rows
}

// callsText writes the per-call table of a run whose requests were JSON-RPC batches.
func callsText(b *strings.Builder, st *summary.Stats) {
	if len(st.Calls) == 0 {
		return
	}
	titledTable(b, fmt.Sprintf("JSON-RPC calls (%s)", callsNote), callsHeader, callsRows(st.Calls))
}

// titledTable writes title, then header and rows as columns aligned, indented by two spaces.
func titledTable(b *strings.Builder, title string, header []string, rows [][]string) {
	fmt.Fprintf(b, "\n%s\n", title)
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  %s\t\n", strings.Join(header, "\t"))
	for _, r := range rows {
		fmt.Fprintf(tw, "  %s\t\n", strings.Join(r, "\t"))
	}
	tw.Flush()
}

// callsMarkdown writes the per-call table in Markdown.
func callsMarkdown(b *strings.Builder, st *summary.Stats) {
	if len(st.Calls) == 0 {
		return
	}
	mdTitledTable(b, fmt.Sprintf("JSON-RPC calls (%s)", callsNote), callsHeader, callsRows(st.Calls))
}

// mdTitledTable writes title, then a Markdown table of header and rows, the first cell of each row
// escaped (a name the user chose).
func mdTitledTable(b *strings.Builder, title string, header []string, rows [][]string) {
	fmt.Fprintf(b, "\n%s:\n\n", title)
	mdHeader(b, header...)
	for _, r := range rows {
		r[0] = mdCell(r[0])
		mdRow(b, r...)
	}
}
