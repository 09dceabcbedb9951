package bench

import (
	"fmt"
	"html"
	"io"
	"strconv"
	"strings"

	"github.com/rpcbench/rpcbench/capacity"
	"github.com/rpcbench/rpcbench/compare"
	"github.com/rpcbench/rpcbench/report"
	"github.com/rpcbench/rpcbench/summary"
)

const pageHead = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>%s</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.5em}
th,td{border:1px solid #ccc;padding:.25em .6em;text-align:left}
th{background:#f3f3f3}
td.n{text-align:right;font-variant-numeric:tabular-nums}
h2{margin-top:2em;border-bottom:1px solid #ddd}
.note{color:#a40}
</style></head><body>
<h1>%s</h1>
`

// renderHTML writes the comparison as one page: per scenario and step the targets' figures side by
// side with their ratios in words, the resources compared, a link to the step's own page (the
// time series, SCENARIO.html or SCENARIO.stepN.html beside it), the capacity searches and the
// command scenarios.
func renderHTML(w io.Writer, o *Outcome, opt report.Options) error {
	title := html.EscapeString(o.Bench.File)
	fmt.Fprintf(w, pageHead, title, title)
	if t := startedTable(o.Started); t != nil {
		io.WriteString(w, "<h2>targets</h2>\n")
		t.write(w, "html")
	}
	for _, s := range o.Bench.Scenarios {
		switch {
		case s.IsCommand():
			build, cs := o.commandsOf(s.Name)
			if build == nil && len(cs) == 0 {
				continue
			}
			fmt.Fprintf(w, "<h2>%s (command)</h2>\n", html.EscapeString(s.Name))
			if build != nil {
				fmt.Fprintf(w, "<p>%s</p>\n", html.EscapeString(build.buildLine()))
			}
			if len(cs) > 0 {
				commandTable(cs).write(w, "html")
				if line := orderLine(cs); line != "" {
					fmt.Fprintf(w, "<p>%s</p>\n", html.EscapeString(line))
				}
			}
		case s.Capacity != nil:
			for _, cs := range o.capacityParts(s.Name) {
				fmt.Fprintf(w, "<h2>%s</h2>\n", html.EscapeString(capacityHeading(cs[0])))
				capacityTable(cs).write(w, "html")
				for _, c := range cs {
					if c.Result != nil {
						capacitySteps(c).write(w, "html")
						if ch := capacity.Chart(c.Result, c.SLO); ch != "" {
							fmt.Fprintf(w, "<figure><figcaption>%s: latency against rate (p50 and p99 of each step, log scales; filled: the step met the objective, hollow: it did not; a point's title gives the step's achieved rate)</figcaption>%s</figure>\n",
								html.EscapeString(c.String()), ch)
						}
						fmt.Fprintf(w, "<p><b>%s</b></p>\n", html.EscapeString(c.Result.Answer()))
					}
				}
			}
		default:
			for _, g := range o.Groups() {
				if g.Scenario == s.Name {
					groupHTML(w, g, statsOf(o.Bench, s, opt.Stats))
				}
			}
			for _, t := range sideTables(s, o.Bench.Targets, o.Groups(), statsOf(o.Bench, s, opt.Stats)) {
				fmt.Fprintf(w, "<h2>%s</h2>\n", html.EscapeString(t.Section))
				t.table().write(w, "html")
			}
			if t := wholeRunTable(s.Name, o.Groups()); t != nil {
				fmt.Fprintf(w, "<h2>%s: whole scenario</h2>\n", html.EscapeString(s.Name))
				t.write(w, "html")
			}
		}
	}
	for _, f := range o.Failures() {
		fmt.Fprintf(w, "<p class=\"note\">%s</p>\n", html.EscapeString(f))
	}
	if o.Interrupted {
		io.WriteString(w, "<p class=\"note\">interrupted: the report covers what was done until then</p>\n")
	}
	_, err := io.WriteString(w, "</body></html>\n")
	return err
}

// PageName is the name of the HTML page of a group's runs in the run directory: SCENARIO.html,
// or SCENARIO.stepN.html for a scenario with steps.
func (g Group) PageName() string {
	if g.Steps <= 1 {
		return g.Scenario + ".html"
	}
	return fmt.Sprintf("%s.step%d.html", g.Scenario, g.Step+1)
}

func groupHTML(w io.Writer, g Group, stats []string) {
	fmt.Fprintf(w, "<h2>%s</h2>\n", html.EscapeString(g.Title()))
	for _, m := range g.Runs {
		if m.Err != nil {
			fmt.Fprintf(w, "<p class=\"note\">%s: could not run: %s</p>\n", html.EscapeString(m.Target), html.EscapeString(m.Err.Error()))
		}
	}
	sums, labels := g.Summaries()
	if len(sums) == 0 {
		return
	}
	c := compare.NewStats(sums, labels, stats)
	figures(c.Labels, c.Metrics, "Figures").write(w, "html")
	for _, e := range c.Endpoints {
		figures(c.Labels, e.Metrics, "Endpoint "+e.Name).write(w, "html")
	}
	if t := resourcesTable(g); t != nil {
		t.write(w, "html")
	}
	for i, s := range sums {
		for _, n := range s.Notes {
			fmt.Fprintf(w, "<p class=\"note\">%s: %s</p>\n", html.EscapeString(labels[i]), html.EscapeString(n))
		}
	}
	fmt.Fprintf(w, "<p><a href=\"%s\">latency, throughput and resources over time</a></p>\n", html.EscapeString(g.PageName()))
}

// figures is a table of compared metrics: a row per figure, a column per target and, after the
// first, its ratio to the first in words.
func figures(labels []string, ms []compare.Metric, title string) *table {
	t := &table{title: title, head: []string{"figure"}, right: []bool{false}}
	for i, l := range labels {
		t.head, t.right = append(t.head, l), append(t.right, true)
		if i > 0 {
			t.head, t.right = append(t.head, "vs "+labels[0]), append(t.right, false)
		}
	}
	for _, m := range ms {
		row := []string{m.Name}
		for i, v := range m.Values {
			cell := "—"
			if m.Missing == nil || !m.Missing[i] {
				cell = valueText(v, m.Unit)
			}
			row = append(row, cell)
			if i > 0 {
				row = append(row, m.Phrase(i))
			}
		}
		t.rows = append(t.rows, row)
	}
	return t
}

func valueText(v float64, unit string) string {
	switch unit {
	case "ms":
		return summary.FormatMs(v)
	case "%":
		return fmt.Sprintf("%.2f%%", v)
	case "count":
		return strconv.FormatFloat(v, 'f', 0, 64)
	case "B/s":
		return bytesText(v) + "/s"
	}
	return strings.TrimSpace(fmt.Sprintf("%.1f %s", v, unit))
}
