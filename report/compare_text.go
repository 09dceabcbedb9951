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
// when it is the same (to two digits), has no ratio or is not judged (an input).
func verdict(m compare.Metric, i int) string {
	r := m.Ratios[i]
	switch {
	case m.Better == compare.NotJudged || math.IsNaN(r) || compare.SameRatio(r):
		return ""
	case m.Improved(i):
		return "better"
	}
	return "worse"
}

// settingValues are the cells of an input: each run's value, "—" for a run without it.
func settingValues(st compare.Setting) []string {
	out := make([]string, len(st.Values))
	for i, v := range st.Values {
		if v == "" {
			v = "—"
		}
		out[i] = v
	}
	return out
}

// notJudged says why the throughput of runs of the open model is not judged.
const notJudged = "In the open model the rate is the input: throughput is shown, not judged; achieved/intended (successful answers/s over the intended rate) is what the target made of it."

// judgedNote is notJudged when the runs' throughput is not judged (some run is of the open model),
// "" otherwise.
func judgedNote(ms []compare.Metric) string {
	if m, ok := compare.Find(ms, "throughput"); !ok || m.Better != compare.NotJudged {
		return ""
	}
	return notJudged
}

// inputsLine says whether the runs' inputs differ, and that they are not judged.
func inputsLine(note string) string {
	if note == "" {
		note = "the same inputs"
	}
	return note + "; inputs are the setting, not judged"
}

// textInputs writes the runs' inputs, the setting of the comparison (not judged), and whether they
// differ.
func textInputs(b *strings.Builder, labels []string, settings []compare.Setting, note string) {
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  input\t%s\n", strings.Join(labels, "\t"))
	for _, st := range settings {
		fmt.Fprintf(tw, "  %s\t%s\n", st.Name, strings.Join(settingValues(st), "\t"))
	}
	tw.Flush()
	fmt.Fprintf(b, "  (%s)\n\n", inputsLine(note))
}

// textCompare writes the comparison of several runs for the text report: their inputs, then the
// totals, then each endpoint's figures when the runs have several, every run after the first with
// its ratio to the first and, for an outcome, whether that is better or worse.
func textCompare(b *strings.Builder, c *compare.Comparison) {
	base := c.Labels[0]
	fmt.Fprintf(b, "\n══ compared with %s ══\n", base)
	textInputs(b, c.Labels, c.Settings, c.InputsNote)
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
	if n := judgedNote(c.Metrics); n != "" {
		fmt.Fprintf(b, "  %s\n", n)
	}
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
