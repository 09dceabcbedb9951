package capacity

import (
	"fmt"
	"html/template"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/report/style"
)

// The chart's size and margins, in SVG units.
const (
	chartW, chartH             = 760.0, 360.0
	marginL, marginR, marginT  = 64.0, 20.0, 16.0
	marginB                    = 44.0
	plotW, plotH               = chartW - marginL - marginR, chartH - marginT - marginB
	minLatencyMs, minRateShown = 0.01, 0.01
)

// point is one step on the chart.
type point struct {
	rate, achieved, p50, p99 float64
	pass                     bool
}

// scale maps a value to a position on a log axis from lo to hi over length px.
type scale struct{ lo, hi, px float64 }

func newScale(lo, hi, px float64) scale {
	if hi <= lo {
		hi = lo * 10
	}
	return scale{math.Log10(lo), math.Log10(hi), px}
}

func (s scale) at(v float64) float64 { return (math.Log10(v) - s.lo) / (s.hi - s.lo) * s.px }

// ticks returns the powers of ten (and their halves' 2 and 5) within the scale, as values.
func (s scale) ticks() []float64 {
	var out []float64
	for e := math.Floor(s.lo); e <= math.Ceil(s.hi); e++ {
		for _, m := range []float64{1, 2, 5} {
			v := m * math.Pow(10, e)
			if l := math.Log10(v); l >= s.lo-1e-9 && l <= s.hi+1e-9 {
				out = append(out, v)
			}
		}
	}
	return out
}

// Chart draws latency against rate — p50 and p99 of each step, passing steps filled, failing
// ones hollow, each point's title with the step's achieved rate, the SLO's latency thresholds as
// dashed lines — on log scales: the knee where the latency leaves its floor is what a capacity
// search looks for. It is an SVG element, "" for a search without a step that ran to its end.
func Chart(r *Result, slo plan.SLO) template.HTML {
	var pts []point
	for _, st := range r.Steps {
		if st.Interrupted || st.Summary == nil {
			continue
		}
		l := st.Summary.Latency
		pts = append(pts, point{rate: st.Rate, achieved: st.Summary.Achieved(), p50: math.Max(l.P50, minLatencyMs), p99: math.Max(l.P99, minLatencyMs), pass: st.Pass})
	}
	if len(pts) == 0 {
		return ""
	}
	sort.Slice(pts, func(i, j int) bool { return pts[i].rate < pts[j].rate })
	loR, hiR := pts[0].rate, pts[len(pts)-1].rate
	loL, hiL := math.Inf(1), 0.0
	for _, p := range pts {
		loL, hiL = math.Min(loL, p.p50), math.Max(hiL, p.p99)
	}
	var lines []float64
	for _, o := range slo {
		if o.IsLatency() {
			lines = append(lines, o.Threshold)
			loL, hiL = math.Min(loL, o.Threshold), math.Max(hiL, o.Threshold)
		}
	}
	x := newScale(math.Max(loR/1.3, minRateShown), hiR*1.3, plotW)
	y := newScale(loL/1.5, hiL*1.5, plotH)
	px := func(v float64) float64 { return marginL + x.at(v) }
	py := func(v float64) float64 { return marginT + plotH - y.at(v) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg viewBox="0 0 %g %g" width="100%%" role="img" aria-label="latency against rate">`, chartW, chartH)
	fmt.Fprintf(&b, `<rect x="%g" y="%g" width="%g" height="%g" fill="none" stroke="#999"/>`, marginL, marginT, plotW, plotH)
	for _, v := range x.ticks() {
		fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%g" y2="%g" stroke="#eee"/><text x="%.1f" y="%g" font-size="11" text-anchor="middle">%s</text>`,
			px(v), px(v), marginT, marginT+plotH, px(v), marginT+plotH+16, rate(v))
	}
	for _, v := range y.ticks() {
		fmt.Fprintf(&b, `<line x1="%g" x2="%g" y1="%.1f" y2="%.1f" stroke="#eee"/><text x="%g" y="%.1f" font-size="11" text-anchor="end">%s</text>`,
			marginL, marginL+plotW, py(v), py(v), marginL-6, py(v)+4, ms(v))
	}
	fmt.Fprintf(&b, `<text x="%g" y="%g" font-size="12" text-anchor="middle">arrival rate per second</text>`, marginL+plotW/2, chartH-6)
	fmt.Fprintf(&b, `<text x="14" y="%g" font-size="12" text-anchor="middle" transform="rotate(-90 14 %g)">latency, ms</text>`, marginT+plotH/2, marginT+plotH/2)
	for _, t := range lines {
		fmt.Fprintf(&b, `<line x1="%g" x2="%g" y1="%.1f" y2="%.1f" stroke="#c33" stroke-dasharray="6 4"/><text x="%g" y="%.1f" font-size="11" fill="#c33" text-anchor="end">objective %s ms</text>`,
			marginL, marginL+plotW, py(t), py(t), marginL+plotW-4, py(t)-4, ms(t))
	}
	for _, s := range []struct {
		name, color string
		v           func(point) float64
	}{{"p50", "#2a6fdb", func(p point) float64 { return p.p50 }}, {"p99", "#e08a00", func(p point) float64 { return p.p99 }}} {
		var path []string
		for _, p := range pts {
			path = append(path, fmt.Sprintf("%.1f,%.1f", px(p.rate), py(s.v(p))))
		}
		fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="1.5"/>`, strings.Join(path, " "), s.color)
		for _, p := range pts {
			fill := s.color
			if !p.pass {
				fill = "#fff"
			}
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="4" fill="%s" stroke="%s"><title>%s/s: %s %s ms, achieved %s/s (%s)</title></circle>`,
				px(p.rate), py(s.v(p)), fill, s.color, rate(p.rate), s.name, ms(s.v(p)), rate(p.achieved), map[bool]string{true: "pass", false: "fail"}[p.pass])
		}
		fmt.Fprintf(&b, `<text x="%g" y="%g" font-size="12" fill="%s">%s</text>`, marginL+8, marginT+14+map[string]float64{"p50": 0, "p99": 14}[s.name], s.color, s.name)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) // built here from numbers and fixed text only
}

var htmlPage = template.Must(template.New("capacity").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>rpcbench capacity: {{.Target}}</title>
<style>{{.CSS}}</style></head><body><main>
<h1>Capacity of {{.Target}}</h1>
<p>Objective: <code>{{.SLO}}</code></p>
<p><strong>{{.Answer}}</strong></p>
{{range .Warnings}}<p><strong>warning:</strong> {{.}}</p>
{{end}}
{{if .Chart}}<figure class="chart"><figcaption>Latency against rate <small>p50 and p99 of each step, log scales; filled: the step met the objective, hollow: it did not</small></figcaption>{{.Chart}}</figure>{{end}}
<table><thead><tr><th>step</th><th>rate/s</th><th>achieved/s</th><th>p50 ms</th><th>p99 ms</th><th>errors</th>{{if .Watched}}<th>CPU of {{.Watched}} <small>avg, % of one core</small></th>{{end}}<th>verdict</th></tr></thead><tbody>
{{range .Rows}}<tr><td>{{.Step}}</td><td>{{.Rate}}</td><td>{{.Achieved}}</td><td>{{.P50}}</td><td>{{.P99}}</td><td>{{.Errors}}</td>{{if $.Watched}}<td>{{.CPU}}</td>{{end}}<td>{{.Verdict}}</td></tr>
{{end}}</tbody></table>
</main></body></html>
`))

type htmlRow struct {
	Step                                           int
	Rate, Achieved, P50, P99, Errors, CPU, Verdict string
}

func renderHTML(w io.Writer, r *Result, slo plan.SLO, target string) error {
	var rs []htmlRow
	for i, x := range rows(r) {
		rs = append(rs, htmlRow{i + 1, x.rate, x.achieved, x.p50, x.p99, x.errors, x.cpu, x.verdict})
	}
	return htmlPage.Execute(w, struct {
		Target, SLO, Answer, Watched string
		Warnings                     []string
		CSS                          template.CSS
		Chart                        template.HTML
		Rows                         []htmlRow
	}{target, slo.String(), r.Answer(), r.watched(), r.Warnings(), template.CSS(style.CSS), Chart(r, slo), rs})
}
