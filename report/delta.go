package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/rpcbench/rpcbench/compare"
)

// DeltaFormats are the formats RenderDelta writes.
var DeltaFormats = []string{"text", "markdown", "json"}

// DeltaSchema names the JSON of RenderDelta and its version.
const DeltaSchema = "rpcbench.delta/v1"

// RenderDelta writes d, two runs compared figure by figure with each difference tested against the
// runs' noise (see compare.NewDelta), and gates, the verdicts of --fail-on limits (may be nil), in
// format, one of DeltaFormats ("" is text): the figures side by side, the change, the test's P and
// a verdict, then each endpoint's when the runs have several, then the gates.
func RenderDelta(w io.Writer, d *compare.Delta, gates []compare.GateResult, format string) error {
	b := &strings.Builder{}
	switch format {
	case "text", "":
		for _, m := range d.Warnings {
			fmt.Fprintf(b, "WARNING: %s\n", m)
		}
		if len(d.Warnings) > 0 {
			b.WriteString("\n")
		}
		textDelta(b, d, gates)
	case "markdown":
		for _, m := range d.Warnings {
			fmt.Fprintf(b, "> **WARNING**: %s\n\n", mdCell(m))
		}
		markdownDelta(b, d, gates)
	case "json":
		enc := json.NewEncoder(b)
		enc.SetIndent("", "  ")
		if err := enc.Encode(struct {
			Schema string               `json:"schema"`
			Delta  *compare.Delta       `json:"delta"`
			Gates  []compare.GateResult `json:"gates"`
			Failed bool                 `json:"failed"`
		}{DeltaSchema, d, nonNil(gates), anyFailed(gates)}); err != nil {
			return err
		}
	default:
		return &FormatError{format, "unknown; want one of " + strings.Join(DeltaFormats, ", ")}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func nonNil(g []compare.GateResult) []compare.GateResult {
	if g == nil {
		return []compare.GateResult{}
	}
	return g
}

func anyFailed(gates []compare.GateResult) bool {
	for _, g := range gates {
		if g.Failed {
			return true
		}
	}
	return false
}

// deltaValue formats a run's value of c: "900.0 req/s", "0.50%", "12.0ms".
func deltaValue(c compare.Change, v float64) string { return mdValue(v, c.Unit) }

// deltaChange formats the difference of c, signed, with its relative change: "-100.0 req/s
// (-10.0%)", "+0.50pp", "+2.00ms (+20.0%)"; "0" when there is none.
func deltaChange(c compare.Change) string {
	if c.Diff == 0 {
		return "0"
	}
	sign := "+"
	if c.Diff < 0 {
		sign = "-"
	}
	abs := math.Abs(c.Diff)
	if c.Unit == "%" {
		return fmt.Sprintf("%s%.2fpp", sign, abs)
	}
	s := sign + mdValue(abs, c.Unit)
	if !math.IsNaN(c.Rel) {
		s += fmt.Sprintf(" (%+.1f%%)", c.Rel*100)
	}
	return s
}

// deltaP formats the test's P: "1.1e-05", "0.74"; "—" when not tested.
func deltaP(c compare.Change) string {
	if c.Test == nil {
		return "—"
	}
	return compare.FormatP(c.Test.P)
}

// deltaCells are the cells of one change after its name: each run's value, the change, P and the
// verdict.
func deltaCells(c compare.Change) []string {
	return []string{deltaValue(c, c.Base), deltaValue(c, c.New), deltaChange(c), deltaP(c), c.Verdict()}
}

// deltaMethod says in a sentence how the differences were tested, and when the throughput is not
// judged, why.
func deltaMethod(d *compare.Delta) string {
	s := fmt.Sprintf("Each difference is tested against the runs' own noise: a two-sided Mann–Whitney U test of the figure's per-interval values in the two runs, beyond the noise when P < %s.", compare.FormatP(d.Alpha))
	if c, ok := d.Find("throughput"); ok && c.Better == compare.NotJudged {
		s += " " + notJudged + " A gate on rps reads achieved/intended when the throughput is not judged."
	}
	return s
}

func textDelta(b *strings.Builder, d *compare.Delta, gates []compare.GateResult) {
	fmt.Fprintf(b, "%s compared with %s\n\n", d.Labels[1], d.Labels[0])
	textInputs(b, d.Labels[:], d.Settings, d.InputsNote)
	head := []string{"figure", d.Labels[0], d.Labels[1], "change", "P", "verdict"}
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  %s\n", strings.Join(head, "\t"))
	for _, c := range d.Changes {
		fmt.Fprintf(tw, "  %s\n", strings.Join(append([]string{c.Name}, deltaCells(c)...), "\t"))
	}
	tw.Flush()
	if len(d.Endpoints) > 0 {
		b.WriteString("\nEndpoints compared\n")
		tw = tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "  %s\n", strings.Join(append([]string{"endpoint"}, head...), "\t"))
		for _, e := range d.Endpoints {
			for k, c := range e.Changes {
				name := e.Name
				if k > 0 {
					name = ""
				}
				fmt.Fprintf(tw, "  %s\n", strings.Join(append([]string{name, c.Name}, deltaCells(c)...), "\t"))
			}
		}
		tw.Flush()
	}
	fmt.Fprintf(b, "\n%s\n", deltaMethod(d))
	if len(gates) == 0 {
		return
	}
	b.WriteString("\nGates (--fail-on")
	if len(gates) > 1 {
		fmt.Fprintf(b, ", sharing the level %s by Holm's method", compare.FormatP(d.Alpha))
	}
	b.WriteString(")\n")
	tw = tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	for _, g := range gates {
		verdict := "pass"
		if g.Failed {
			verdict = "FAIL"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", verdict, g.Gate.Spec, g.Why)
	}
	tw.Flush()
	if anyFailed(gates) {
		fmt.Fprintf(b, "\n%s regressed beyond a limit and beyond the noise.\n", d.Labels[1])
	}
}

func markdownDelta(b *strings.Builder, d *compare.Delta, gates []compare.GateResult) {
	mdInputs(b, d.Labels[:], d.Settings, d.InputsNote)
	head := []string{"figure", mdCell(d.Labels[0]), mdCell(d.Labels[1]), "change", "P", "verdict"}
	mdHeader(b, head...)
	row := func(first []string, c compare.Change) {
		cells := deltaCells(c)
		if v := cells[4]; v == "worse" || v == "better" {
			cells[4] = "**" + v + "**"
		}
		mdRow(b, append(first, cells...)...)
	}
	for _, c := range d.Changes {
		row([]string{c.Name}, c)
	}
	if len(d.Endpoints) > 0 {
		b.WriteString("\nEndpoints:\n\n")
		mdHeader(b, append([]string{"endpoint"}, head...)...)
		for _, e := range d.Endpoints {
			for k, c := range e.Changes {
				name := mdCell(e.Name)
				if k > 0 {
					name = ""
				}
				row([]string{name, c.Name}, c)
			}
		}
	}
	fmt.Fprintf(b, "\n%s\n", deltaMethod(d))
	if len(gates) == 0 {
		return
	}
	b.WriteString("\n")
	mdHeader(b, "gate", "verdict", "why")
	for _, g := range gates {
		verdict := "pass"
		if g.Failed {
			verdict = "**FAIL**"
		}
		mdRow(b, "`"+mdCell(g.Gate.Spec)+"`", verdict, mdCell(g.Why))
	}
}
