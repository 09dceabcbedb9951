package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/rpcbench/rpcbench/tools/gobench"
)

// GoBenchFormats are the formats GoBench writes.
var GoBenchFormats = []string{"text", "json", "markdown", "html"}

// GoBenchSchema names the JSON of a Go benchmark table and its version.
const GoBenchSchema = "rpcbench.gobench/v1"

// GoBench writes a table of Go benchmark results (see gobench.Compare) in format, one of
// GoBenchFormats ("" is text): per package and unit, a row per benchmark with each file's median
// and confidence interval and, for each file after the first, its change against the first with
// the test's p-value, or "~" when the change is not significant; a geomean row; the statistics'
// warnings as numbered notes.
func GoBench(w io.Writer, t *gobench.Table, format string) error {
	if t == nil {
		return fmt.Errorf("report: no benchmark table to render")
	}
	switch format {
	case "text", "":
		b := &strings.Builder{}
		goBenchText(b, t)
		_, err := io.WriteString(w, b.String())
		return err
	case "markdown":
		b := &strings.Builder{}
		goBenchMarkdown(b, t)
		_, err := io.WriteString(w, b.String())
		return err
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Schema string         `json:"schema"`
			Table  *gobench.Table `json:"table"`
		}{GoBenchSchema, t})
	case "html":
		return goBenchHTML(w, t)
	}
	return &FormatError{format, "does not render Go benchmarks; want one of " + strings.Join(GoBenchFormats, ", ")}
}

// goBenchLegend says what the cells hold.
func goBenchLegend(t *gobench.Table) string {
	s := fmt.Sprintf("cells: median ± %s confidence interval", levelPct(t.Confidence))
	if len(t.Labels) > 1 {
		s += fmt.Sprintf("; changes against %s with the U-test's p-value and sample sizes, ~ when not significant (p > %v)", t.Labels[0], t.Alpha)
	}
	return s
}

func levelPct(f float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", f*100), "0"), ".") + "%"
}

// goBenchConfig is the configuration lines: "goos: linux", or, when the files differ,
// "goos: linux (old.txt), darwin (new.txt)".
func goBenchConfig(t *gobench.Table) []string {
	var out []string
	for _, c := range t.Config {
		same := true
		for _, v := range c.Values {
			same = same && v == c.Values[0]
		}
		if same {
			out = append(out, c.Key+": "+c.Values[0])
			continue
		}
		var parts []string
		for i, v := range c.Values {
			if v == "" {
				v = "—"
			}
			parts = append(parts, fmt.Sprintf("%s (%s)", v, t.Labels[i]))
		}
		out = append(out, c.Key+": "+strings.Join(parts, ", "))
	}
	return out
}

// supNotes is note numbers as superscripts: "¹²".
func supNotes(ns []int) string {
	const digits = "⁰¹²³⁴⁵⁶⁷⁸⁹"
	d := []rune(digits)
	var b strings.Builder
	for i, n := range ns {
		if i > 0 {
			b.WriteString("˒")
		}
		for _, c := range fmt.Sprint(n) {
			b.WriteRune(d[c-'0'])
		}
	}
	return b.String()
}

// goBenchHead is the header of a unit's table: the unit, then each file and, after the first,
// "X vs A".
func goBenchHead(t *gobench.Table, u gobench.UnitTable) []string {
	h := []string{u.Unit}
	for i, l := range t.Labels {
		h = append(h, l)
		if i > 0 {
			h = append(h, "vs "+t.Labels[0])
		}
	}
	return h
}

// goBenchCells is a row's cells in the header's order, with verdicts for the delta columns.
func goBenchCells(r gobench.Row, geomean bool) (cells []string, verdicts []string) {
	cells = []string{r.Name}
	verdicts = []string{""}
	for i, c := range r.Cells {
		s := c.Text
		if c.N > 0 && !geomean {
			s += " " + c.Range
		}
		if c.N == 0 {
			s = "—"
		}
		cells = append(cells, s+supNotes(c.Notes))
		verdicts = append(verdicts, "")
		if i == 0 {
			continue
		}
		d := r.Deltas[i-1]
		s = d.Text
		if d.Test != "" {
			s += " (" + d.Test + ")"
		}
		if s == "" {
			s = "—"
		}
		cells = append(cells, s+supNotes(d.Notes))
		verdicts = append(verdicts, d.Verdict)
	}
	return cells, verdicts
}

func goBenchText(b *strings.Builder, t *gobench.Table) {
	for _, l := range goBenchConfig(t) {
		b.WriteString(l + "\n")
	}
	for si, s := range t.Sections {
		if s.Pkg != "" {
			b.WriteString("pkg: " + s.Pkg + "\n")
		}
		for ui, u := range s.Units {
			if si > 0 || ui > 0 || len(t.Config) > 0 || s.Pkg != "" {
				b.WriteString("\n")
			}
			rows := [][]string{goBenchHead(t, u)}
			for _, r := range u.Rows {
				c, _ := goBenchCells(r, false)
				rows = append(rows, c)
			}
			if u.Geomean != nil {
				c, _ := goBenchCells(*u.Geomean, true)
				rows = append(rows, c)
			}
			textTable(b, rows)
		}
	}
	b.WriteString("\n" + goBenchLegend(t) + "\n")
	for i, n := range t.Notes {
		fmt.Fprintf(b, "%s %s\n", supNotes([]int{i + 1}), n)
	}
}

// textTable writes rows as aligned columns: the first left-aligned, a file's figures right-aligned,
// changes left-aligned.
func textTable(b *strings.Builder, rows [][]string) {
	width := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	isDelta := func(col int) bool { return col >= 3 && (col-3)%2 == 0 }
	for _, r := range rows {
		var line strings.Builder
		for i, c := range r {
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(c))
			switch {
			case i == 0:
				line.WriteString(c + pad)
			case isDelta(i):
				line.WriteString("  " + c + pad)
			default:
				line.WriteString("  " + pad + c)
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
}

func goBenchMarkdown(b *strings.Builder, t *gobench.Table) {
	if cfg := goBenchConfig(t); len(cfg) > 0 {
		b.WriteString(mdCell(strings.Join(cfg, " · ")) + "\n")
	}
	for _, s := range t.Sections {
		for _, u := range s.Units {
			title := u.Unit
			if s.Pkg != "" {
				title = s.Pkg + ": " + u.Unit
			}
			fmt.Fprintf(b, "\n#### %s\n\n", mdCell(title))
			head := goBenchHead(t, u)
			head[0] = "benchmark"
			for i := range head {
				head[i] = mdCell(head[i])
			}
			mdHeader(b, head...)
			rows := u.Rows
			if u.Geomean != nil {
				rows = append(rows[:len(rows):len(rows)], *u.Geomean)
			}
			for k, r := range rows {
				cells, verdicts := goBenchCells(r, u.Geomean != nil && k == len(rows)-1)
				for i := range cells {
					cells[i] = mdCell(cells[i])
					if verdicts[i] != "" {
						cells[i] = "**" + cells[i] + "**"
					}
				}
				mdRow(b, cells...)
			}
		}
	}
	b.WriteString("\n" + mdCell(goBenchLegend(t)) + "; changes in bold are significant.\n")
	for i, n := range t.Notes {
		fmt.Fprintf(b, "\n%s %s\n", supNotes([]int{i + 1}), mdCell(n))
	}
}
