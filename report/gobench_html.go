package report

import (
	_ "embed"
	"html/template"
	"io"
	"strings"

	"github.com/rpcbench/rpcbench/report/style"
	"github.com/rpcbench/rpcbench/tools/gobench"
)

//go:embed assets/gobench.tmpl
var goBenchTmpl string

// goBenchTemplate renders Go benchmark tables with the report page's styles; html/template escapes
// every name and label from the files.
var goBenchTemplate = template.Must(template.New("gobench").Parse(goBenchTmpl))

type goBenchPage struct {
	Title    string
	Labels   []string
	Config   []struct{ Key, Value string }
	Legend   string
	Sections []goBenchSection
	Notes    []string
	PageCSS  template.CSS
}

type goBenchSection struct {
	Pkg   string
	Units []goBenchUnit
}

type goBenchUnit struct {
	Unit, Summary, Better string
	Head                  []string
	Rows                  []goBenchRow
}

type goBenchRow struct {
	Total bool
	Cells []goBenchCell
}

type goBenchCell struct{ Text, Class string }

// goBenchHTML writes t as one self-contained page in the style of the load report: a table per
// package and unit, significant changes coloured as better or worse.
func goBenchHTML(w io.Writer, t *gobench.Table) error {
	p := goBenchPage{Title: "Go benchmarks: " + strings.Join(t.Labels, " vs "), Labels: t.Labels, Legend: goBenchLegend(t), Notes: t.Notes, PageCSS: template.CSS(style.CSS)}
	for _, l := range goBenchConfig(t) {
		k, v, _ := strings.Cut(l, ": ")
		p.Config = append(p.Config, struct{ Key, Value string }{k, v})
	}
	for _, s := range t.Sections {
		gs := goBenchSection{Pkg: s.Pkg}
		for _, u := range s.Units {
			gu := goBenchUnit{Unit: u.Unit, Summary: u.Summary, Head: goBenchHead(t, u)}
			gu.Head[0] = "benchmark"
			switch u.Better {
			case -1:
				gu.Better = "lower"
			case 1:
				gu.Better = "higher"
			}
			rows := u.Rows
			if u.Geomean != nil {
				rows = append(rows[:len(rows):len(rows)], *u.Geomean)
			}
			for k, r := range rows {
				total := u.Geomean != nil && k == len(rows)-1
				cells, verdicts := goBenchCells(r, total)
				gr := goBenchRow{Total: total}
				for i, c := range cells {
					gr.Cells = append(gr.Cells, goBenchCell{c, verdicts[i]})
				}
				gu.Rows = append(gu.Rows, gr)
			}
			gs.Units = append(gs.Units, gu)
		}
		p.Sections = append(p.Sections, gs)
	}
	return goBenchTemplate.Execute(w, p)
}
