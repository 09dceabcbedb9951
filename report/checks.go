package report

import (
	"encoding/csv"
	"fmt"
	"strconv"
	"strings"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/summary"
)

// checksNote says what the check counts are, under their title in text and Markdown.
const checksNote = "each check judges every answer whose status (and JSON-RPC answer) passed; a request that fails several checks counts once among the failures, under the first"

// checksHeader is the header of the checks table.
var checksHeader = []string{"check", "passed", "failed", "failed %"}

// checksRows are the rows of the checks table, one per check.
func checksRows(checks []summary.Check) [][]string {
	rows := make([][]string, 0, len(checks))
	for _, c := range checks {
		rows = append(rows, []string{c.Name, strconv.FormatUint(c.Passed, 10), strconv.FormatUint(c.Failed, 10),
			fmt.Sprintf("%.1f%%", pct(c.Failed, c.Passed+c.Failed))})
	}
	return rows
}

// samplesTitle introduces a check's failing values: all it received when there are fewer than a
// check keeps, else a sample of them.
func samplesTitle(c summary.Check) string {
	if len(c.FailedSamples) < result.MaxCheckSamples {
		return fmt.Sprintf("%s failed %d times, receiving", c.Name, c.Failed)
	}
	return fmt.Sprintf("%s failed %d times; %d of the values it received", c.Name, c.Failed, len(c.FailedSamples))
}

// checksText writes each check's passes and failures, then the values the failing ones received.
func checksText(b *strings.Builder, st *summary.Stats) {
	if len(st.Checks) == 0 {
		return
	}
	titledTable(b, fmt.Sprintf("Checks (%s)", checksNote), checksHeader, checksRows(st.Checks))
	for _, c := range st.Checks {
		if len(c.FailedSamples) == 0 {
			continue
		}
		fmt.Fprintf(b, "  %s:\n", samplesTitle(c))
		for _, s := range c.FailedSamples {
			fmt.Fprintf(b, "    %s\n", s)
		}
	}
}

// checksMarkdown writes the checks table and the failing values in Markdown; of names the run
// among several ("" for one).
func checksMarkdown(b *strings.Builder, st *summary.Stats, of string) {
	if len(st.Checks) == 0 {
		return
	}
	title := "Checks"
	if of != "" {
		title += " of " + mdCell(of)
	}
	mdTitledTable(b, fmt.Sprintf("%s (%s)", title, checksNote), checksHeader, checksRows(st.Checks))
	for _, c := range st.Checks {
		if len(c.FailedSamples) == 0 {
			continue
		}
		fmt.Fprintf(b, "\n%s:\n\n", mdCell(samplesTitle(c)))
		for _, s := range c.FailedSamples {
			fmt.Fprintf(b, "- %s\n", mdCode(s))
		}
	}
}

// mdCode is s as a Markdown code span, fenced with more backticks than s holds in a row.
func mdCode(s string) string {
	run, longest := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	return fence + " " + s + " " + fence
}

// checkView is one check in the HTML page.
type checkView struct {
	Name, Passed, Failed, FailedPct, SamplesTitle string
	Failing                                       bool
	Samples                                       []string
}

// checksHTML lists st's checks for the HTML page.
func checksHTML(st *summary.Stats) []checkView {
	var out []checkView
	for i, r := range checksRows(st.Checks) {
		c := st.Checks[i]
		v := checkView{Name: r[0], Passed: r[1], Failed: r[2], FailedPct: r[3], Failing: c.Failed > 0, Samples: c.FailedSamples}
		if len(c.FailedSamples) > 0 {
			v.SamplesTitle = samplesTitle(c)
		}
		out = append(out, v)
	}
	return out
}

// checksCSV writes a row per check of a run, after its intervals: endpoint "check: NAME", sent
// the answers the check judged, ok those it passed, errors those it failed; the other columns
// empty but kind, "check", when the rows have one (staged).
func checksCSV(cw *csv.Writer, run string, st *summary.Stats, width int, staged bool) {
	for _, c := range st.Checks {
		countsCSV(cw, run, width, staged, "check", c.Name, c.Passed, c.Failed)
	}
}

// countsCSV writes a row of counts after a run's intervals: endpoint "KIND: NAME", sent ok+failed,
// ok, errors failed; the other columns empty but kind, KIND, when the rows have one (staged).
func countsCSV(cw *csv.Writer, run string, width int, staged bool, kind, name string, ok, failed uint64) {
	row := make([]string, width)
	row[0], row[3] = run, kind+": "+name
	row[4], row[5], row[6] = strconv.FormatUint(ok+failed, 10), strconv.FormatUint(ok, 10), strconv.FormatUint(failed, 10)
	if staged {
		row[len(csvHead)] = kind
	}
	cw.Write(row)
}
