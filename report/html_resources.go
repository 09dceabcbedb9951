package report

import (
	_ "embed"
	"sort"

	"github.com/rpcbench/rpcbench/summary"
)

//go:embed assets/html_resources.js
var resourcesJS string

// resourceChart is what the page's resource charts draw: every monitored target of every run, and
// every followed metric series, on one shared x axis (seconds from the measured start, the end of
// each sample's interval). Arrays hold null where a series has no value at that x.
type resourceChart struct {
	X       []float64        `json:"x"`
	Targets []resourceSeries `json:"targets"`
	Metrics []resourceSeries `json:"metrics,omitempty"`
}

type resourceSeries struct {
	Label string     `json:"label"`
	Color string     `json:"color"`
	CPU   []*float64 `json:"cpu,omitempty"`    // % of one core
	RSS   []*float64 `json:"rss,omitempty"`    // MiB
	Value []*float64 `json:"values,omitempty"` // a metric series
}

// resourceRow is one target's avg / peak figures in the page's Resources table.
type resourceRow struct {
	Run, Color, Target string
	Cells              []string
}

// resourceView is the Resources part of the page; nil when no run was monitored.
type resourceView struct {
	Head     []string
	Rows     []resourceRow
	Metrics  []resourceRow // Target is the series, Cells its avg / peak
	Charted  bool          // some sample has a CPU figure: the CPU and memory charts are drawn
	Changes  []string      // when the processes of a target changed (pidChangeLines)
	NetWords string        // what the network columns count
}

func buildResources(runs []*summary.Summary) (*resourceView, *resourceChart) {
	t := newResourceTable(allResources(runs...))
	v := &resourceView{Head: t.head, NetWords: resourcesNetWords}
	labels := []string(nil)
	if len(runs) > 1 {
		for i := range runs {
			labels = append(labels, runLetter(i))
		}
	}
	v.Changes = pidChangeLines(runs, labels)
	var xs []float64
	seen := map[float64]bool{}
	addX := func(x float64) {
		if !seen[x] {
			seen[x] = true
			xs = append(xs, x)
		}
	}
	for i, s := range runs {
		for j := range s.Resources {
			r := &s.Resources[j]
			v.Rows = append(v.Rows, resourceRow{Run: runLetter(i), Color: runColor(i), Target: r.Target, Cells: t.cells(r)})
			for _, x := range r.Samples {
				if x.Interval > 0 {
					addX(x.At.Seconds())
				}
			}
		}
		if m := s.Metrics; m != nil {
			for j, name := range m.Series {
				v.Metrics = append(v.Metrics, resourceRow{Run: runLetter(i), Color: runColor(i), Target: name, Cells: []string{metricCell(m, j)}})
			}
			for _, x := range m.Samples {
				addX(x.At.Seconds())
			}
		}
	}
	if len(v.Rows) == 0 && len(v.Metrics) == 0 {
		return nil, nil
	}
	sort.Float64s(xs)
	idx := make(map[float64]int, len(xs))
	for i, x := range xs {
		idx[x] = i
	}
	ch := &resourceChart{X: xs, Targets: []resourceSeries{}}
	label := func(i int, what string) string {
		if len(runs) > 1 {
			return runLetter(i) + " " + what
		}
		return what
	}
	for i, s := range runs {
		for _, r := range s.Resources {
			rs := resourceSeries{Label: label(i, r.Target), Color: palette[len(ch.Targets)%len(palette)],
				CPU: make([]*float64, len(xs)), RSS: make([]*float64, len(xs))}
			for _, x := range r.Samples {
				if x.Interval <= 0 {
					continue // the baseline: no interval to measure CPU over
				}
				k := idx[x.At.Seconds()]
				cpu, rss := x.CPUPercent, float64(x.RSS)/(1<<20)
				rs.CPU[k], rs.RSS[k] = &cpu, &rss
				v.Charted = true
			}
			ch.Targets = append(ch.Targets, rs)
		}
		if m := s.Metrics; m != nil {
			for j, name := range m.Series {
				unit := ""
				if m.Types[j] == "counter" {
					unit = " (/s)"
				}
				rs := resourceSeries{Label: label(i, name+unit), Color: palette[len(ch.Metrics)%len(palette)], Value: make([]*float64, len(xs))}
				for _, x := range m.Samples {
					rs.Value[idx[x.At.Seconds()]] = x.Values[j]
				}
				ch.Metrics = append(ch.Metrics, rs)
			}
		}
	}
	return v, ch
}
