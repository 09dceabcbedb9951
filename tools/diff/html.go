package diff

import (
	_ "embed"
	"html/template"
	"io"
	"strings"

	"github.com/rpcbench/rpcbench/report/style"
	"github.com/rpcbench/rpcbench/tools/jsondiff"
)

//go:embed assets/report.tmpl
var htmlTmpl string

// htmlTemplate is parsed once; html/template escapes every URL, method and answer for its
// context, so an answer cannot break out of the page.
var htmlTemplate = template.Must(template.New("diff").Parse(htmlTmpl))

// maxHTMLValue is how many bytes of each differing value the page shows.
const maxHTMLValue = 300

type htmlPage struct {
	Report
	Verdict       string
	Bad           bool
	CSS           template.CSS
	Latency       []htmlLatency
	AllMismatches int
	NoiseNote     string
	// MethodCols and MethodRows are the table of methods; LatencyCols and LatencyRows each
	// method's latency on each server, a row each.
	MethodCols, LatencyCols []string
	MethodRows              []htmlRow
	LatencyRows             []htmlLatencyRow
	NoiseLines              []htmlNoise
}

type htmlRow struct {
	Name  string
	Cells []htmlCell
}

// htmlCell is a count, bad when it is of differences or errors and not 0.
type htmlCell struct {
	N   int
	Bad bool
}

type htmlLatencyRow struct {
	Name, Server string
	Cells        []string
	// First is the method's first row; Slower says the server's p99 is 2× the first's or more.
	First, Slower bool
}

type htmlNoise struct {
	Noise
	Pct string
}

type htmlLatency struct {
	Letter, URL                     string
	Answers, Errors                 int
	Mean, P50, P90, P99, Max, Ratio string
}

// WriteHTML writes the report as one self-contained page in the style of rpcbench's HTML
// reports: the verdict and counts, each server's latency, the table of methods, and the first
// mismatches with each difference's path, kind and both values (clipped to 300 bytes).
func WriteHTML(w io.Writer, r Report) error {
	p := htmlPage{Report: r, Verdict: r.Verdict(), Bad: r.Different > 0 || r.Failed > 0 || r.Requests == 0,
		CSS: template.CSS(style.CSS), AllMismatches: len(r.Mismatches) + r.More, NoiseNote: r.NoiseNote(),
		MethodCols: r.methodColumns(), LatencyCols: latencyColumns}
	for _, m := range r.Methods {
		row := htmlRow{Name: m.Name}
		for i, n := range r.methodRow(m) {
			col := p.MethodCols[i]
			row.Cells = append(row.Cells, htmlCell{n, n > 0 && (col == "different" || strings.HasPrefix(col, "errors "))})
		}
		p.MethodRows = append(p.MethodRows, row)
		for k, l := range m.Latency {
			p.LatencyRows = append(p.LatencyRows, htmlLatencyRow{Name: m.Name, Server: serverLetter(k), Cells: latencyRow(l), First: k == 0, Slower: l.P99Ratio >= 2})
		}
	}
	for _, n := range r.Noise {
		p.NoiseLines = append(p.NoiseLines, htmlNoise{n, pct(n.Share)})
	}
	for k, l := range r.Latency {
		f := serverFigures(l)
		p.Latency = append(p.Latency, htmlLatency{serverLetter(k), l.URL, l.Answers, l.Errors, f[0], f[1], f[2], f[3], f[4], f[5]})
	}
	p.Mismatches = make([]Mismatch, len(r.Mismatches))
	for i, m := range r.Mismatches {
		m.Servers = append([]ServerDiff(nil), m.Servers...)
		for k := range m.Servers {
			ds := make([]jsondiff.Difference, len(m.Servers[k].Diffs))
			for j, d := range m.Servers[k].Diffs {
				d.A, d.B = jsondiff.Clip(d.A, maxHTMLValue), jsondiff.Clip(d.B, maxHTMLValue)
				ds[j] = d
			}
			m.Servers[k].Diffs = ds
		}
		p.Mismatches[i] = m
	}
	return htmlTemplate.Execute(w, p)
}
