package report

import (
	"math"

	"github.com/rpcbench/rpcbench/compare"
)

// compareTable is the HTML page's comparison of several runs with run A: the totals, then each
// endpoint's figures when some run has several. Its columns are A, then each later run and its
// ratio to A.
type compareTable struct {
	Heads []compareHead
	Rows  []compareRow
	// Note says whether the runs' inputs differ and, when some run is of the open model, that its
	// throughput is not judged.
	Note string
}

// compareHead is a column: a run's letter and colour, or "B vs A".
type compareHead struct{ Text, Color string }

// compareRow is one figure: its endpoint (on an endpoint's first row only; "" for the totals), its
// name and its cells in the columns' order.
type compareRow struct {
	Endpoint string
	First    bool // the first row of an endpoint's group
	Figure   string
	Cells    []compareCell
}

type compareCell struct {
	Text          string // "300.0 req/s", "1.5× more requests/s"
	Ratio         bool
	Better, Worse bool
}

// htmlRatio is run i's ratio to run A on the metric of ms named name, as a figure's note: "1.9× A";
// "" when it has none.
func htmlRatio(ms []compare.Metric, name string, i int) string {
	m, ok := compare.Find(ms, name)
	if !ok || math.IsNaN(m.Ratios[i]) {
		return ""
	}
	return compare.Times(m.Ratios[i], compare.FormatRatio, "A", "")
}

func htmlCompare(c *compare.Comparison) *compareTable {
	t := &compareTable{}
	for i := range c.Labels {
		t.Heads = append(t.Heads, compareHead{runLetter(i), runColor(i)})
		if i > 0 {
			t.Heads = append(t.Heads, compareHead{runLetter(i) + " vs A", ""})
		}
	}
	add := func(endpoint string, ms []compare.Metric) {
		for k, m := range ms {
			r := compareRow{Figure: m.Name, First: k == 0 && endpoint != ""}
			if k == 0 {
				r.Endpoint = endpoint
			}
			for i := range m.Values {
				r.Cells = append(r.Cells, compareCell{Text: cmpValue(m, i)})
				if i > 0 {
					v := verdict(m, i)
					r.Cells = append(r.Cells, compareCell{Text: m.Phrase(i), Ratio: true, Better: v == "better", Worse: v == "worse"})
				}
			}
			t.Rows = append(t.Rows, r)
		}
	}
	for _, st := range c.Settings { // the inputs: shown, never coloured
		r := compareRow{Figure: st.Name + " (input)"}
		for i, v := range settingValues(st) {
			r.Cells = append(r.Cells, compareCell{Text: v})
			if i > 0 {
				r.Cells = append(r.Cells, compareCell{Text: map[bool]string{true: "same", false: "differs"}[v == st.Values[0] || (v == "—" && st.Values[0] == "")]})
			}
		}
		t.Rows = append(t.Rows, r)
	}
	t.Note = inputsLine(c.InputsNote) + "."
	if n := judgedNote(c.Metrics); n != "" {
		t.Note += " " + n
	}
	add("", c.Metrics)
	for _, e := range c.Endpoints {
		add(e.Name, e.Metrics)
	}
	return t
}
