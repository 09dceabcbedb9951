package report

import (
	"fmt"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/rpcbench/rpcbench/compare"
)

// cmpValue formats run i's value of m in its unit: "300.0 req/s", "1.22%", "25.7ms"; "—" for a
// run that lacks the figure.
func cmpValue(m compare.Metric, i int) string {
	if m.Missing != nil && m.Missing[i] {
		return "—"
	}
	return mdValue(m.Values[i], m.Unit)
}

// verdict says whether run i is better or worse than the first on m: "better", "worse", or ""
// when it is the same (to two digits) or has no ratio.
func verdict(m compare.Metric, i int) string {
	r := m.Ratios[i]
	switch {
	case math.IsNaN(r) || compare.FormatRatio(r) == "1.0":
		return ""
	case m.Improved(i):
		return "better"
	}
	return "worse"
}

// textCompare writes the comparison of several runs for the text report: the totals, then each
// endpoint's figures when the runs have several, every run after the first with its ratio to the
// first and whether that is better or worse.
func textCompare(b *strings.Builder, c *compare.Comparison) {
	base := c.Labels[0]
	fmt.Fprintf(b, "\n══ compared with %s ══\n", base)
	head := func(tw *tabwriter.Writer, first ...string) {
		cells := append([]string{}, first...)
		for i, l := range c.Labels {
			cells = append(cells, l)
			if i > 0 {
				cells = append(cells, l+" vs "+base)
			}
		}
		fmt.Fprintf(tw, "  %s\n", strings.Join(cells, "\t"))
	}
	row := func(tw *tabwriter.Writer, m compare.Metric, first ...string) {
		cells := append([]string{}, first...)
		cells = append(cells, m.Name)
		for i := range m.Values {
			cells = append(cells, cmpValue(m, i))
			if i > 0 {
				p := m.Phrase(i)
				if v := verdict(m, i); v != "" {
					p += " (" + v + ")"
				}
				cells = append(cells, p)
			}
		}
		fmt.Fprintf(tw, "  %s\n", strings.Join(cells, "\t"))
	}
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	head(tw, "figure")
	for _, m := range c.Metrics {
		row(tw, m)
	}
	tw.Flush()
	if len(c.Endpoints) == 0 {
		return
	}
	b.WriteString("\nEndpoints compared\n")
	tw = tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	head(tw, "endpoint", "figure")
	for _, e := range c.Endpoints {
		for k, m := range e.Metrics {
			name := e.Name
			if k > 0 {
				name = ""
			}
			row(tw, m, name)
		}
	}
	tw.Flush()
}
