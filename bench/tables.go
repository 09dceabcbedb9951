package bench

import (
	"fmt"
	"html"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/rpcbench/rpcbench/capacity"
	"github.com/rpcbench/rpcbench/compare"
	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/summary"
)

// table is one table of the comparison report, written as text, Markdown or HTML alike.
type table struct {
	title string
	head  []string
	rows  [][]string
	// right says which columns hold figures (aligned right in Markdown).
	right []bool
}

func (t *table) write(w io.Writer, format string) {
	switch format {
	case "markdown":
		fmt.Fprintf(w, "\n%s:\n\n| %s |\n|", t.title, strings.Join(mdCells(t.head), " | "))
		for i := range t.head {
			if i < len(t.right) && t.right[i] {
				io.WriteString(w, "---:|")
			} else {
				io.WriteString(w, "---|")
			}
		}
		io.WriteString(w, "\n")
		for _, r := range t.rows {
			fmt.Fprintf(w, "| %s |\n", strings.Join(mdCells(r), " | "))
		}
	case "html":
		fmt.Fprintf(w, "<h3>%s</h3>\n<table>\n<tr>", html.EscapeString(t.title))
		for _, h := range t.head {
			fmt.Fprintf(w, "<th>%s</th>", html.EscapeString(h))
		}
		io.WriteString(w, "</tr>\n")
		for _, r := range t.rows {
			io.WriteString(w, "<tr>")
			for i, c := range r {
				class := ""
				if i < len(t.right) && t.right[i] {
					class = ` class="n"`
				}
				fmt.Fprintf(w, "<td%s>%s</td>", class, html.EscapeString(c))
			}
			io.WriteString(w, "</tr>\n")
		}
		io.WriteString(w, "</table>\n")
	default:
		fmt.Fprintf(w, "\n%s\n", t.title)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "  %s\n", strings.Join(t.head, "\t"))
		for _, r := range t.rows {
			fmt.Fprintf(tw, "  %s\n", strings.TrimRight(strings.Join(r, "\t"), "\t"))
		}
		tw.Flush()
	}
}

func mdCells(cs []string) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = strings.ReplaceAll(c, "|", `\|`)
	}
	return out
}

// primary returns the first of rs that are not the generator's own: the target's command, or the
// first thing its monitor: names. ok is false when rs hold nothing of the target.
func primary(rs []result.Resources) (result.Resources, bool) {
	for _, r := range rs {
		if !r.Self {
			return r, true
		}
	}
	return result.Resources{}, false
}

// resourcesTable compares what was watched of each target during a group's runs: the processes
// counted (how many, their PIDs, when they changed), CPU, memory, disk read and write, average and
// peak, each target's first watched process against the first target's in words ("11× less
// memory"); nil when no run watched its target.
func resourcesTable(g Group) *table {
	sums, labels := g.Summaries()
	return resourcesCompared("Resources compared (avg / peak over each measured part; CPU in % of one core; ratios of the averages)",
		labels, resourcesOf(sums), summary.ProcessesText)
}

// resourcesOf returns what each run of sums watched.
func resourcesOf(sums []*summary.Summary) [][]result.Resources {
	res := make([][]result.Resources, len(sums))
	for i, s := range sums {
		res[i] = s.Resources
	}
	return res
}

// resourcesCompared is the table of resourcesTable over res, what was watched of each target
// (labels), procs writing a row's processes cell; nil when nothing of any target was watched.
func resourcesCompared(title string, labels []string, res [][]result.Resources, procs func(result.Resources) string) *table {
	baseOK, vs := false, resourcesVs(labels, res)
	t := &table{
		title: title,
		head:  []string{"target", "watched", "processes", "CPU", "memory (RSS)", "disk read/s", "disk write/s", ""},
		right: []bool{false, false, false, true, true, true, true, false},
	}
	any := false
	for i, rs := range res {
		p, ok := primary(rs)
		if !ok {
			continue
		}
		any = true
		baseOK = baseOK || i == 0
		for _, r := range rs {
			if r.Self {
				continue
			}
			sm := &r.Summary
			row := []string{labels[i], r.Target, procs(r), avgPeak(sm.CPUPercent, pct), avgPeak(sm.RSS, bytesText),
				avgPeak(sm.DiskRead, bytesText), avgPeak(sm.DiskWrite, bytesText), ""}
			if r.Target == p.Target {
				row[7] = vs[labels[i]]
			}
			t.rows = append(t.rows, row)
		}
	}
	if !any {
		return nil
	}
	if len(res) > 1 && baseOK {
		t.head[7] = "vs " + labels[0]
	} else {
		t.head = t.head[:7]
		for i := range t.rows {
			t.rows[i] = t.rows[i][:7]
		}
	}
	return t
}

// resourcesVs says, per target after the first (labels), how its first watched process in res
// compares with the first target's, in words ("1.5× less CPU, 11× less memory"); nil when the
// first target was not watched.
func resourcesVs(labels []string, res [][]result.Resources) map[string]string {
	if len(res) == 0 {
		return nil
	}
	base, ok := primary(res[0])
	if !ok {
		return nil
	}
	out := map[string]string{}
	for i := 1; i < len(res); i++ {
		if p, ok := primary(res[i]); ok {
			out[labels[i]] = resourceWords(p.Summary, base.Summary)
		}
	}
	return out
}

// resourceWords says how a target's averages compare with the base's: "1.5× less CPU, 11× less
// memory"; disk figures only when either wrote or read something.
func resourceWords(x, base result.ResourceSummary) string {
	var parts []string
	add := func(v, b result.ResourceStat, noun string, always bool) {
		if v.Samples == 0 || b.Samples == 0 || !always && v.Avg == 0 && b.Avg == 0 {
			return
		}
		parts = append(parts, RatioWords(v.Avg, b.Avg, noun))
	}
	add(x.CPUPercent, base.CPUPercent, "CPU", true)
	add(x.RSS, base.RSS, "memory", true)
	add(x.DiskRead, base.DiskRead, "disk reads", false)
	add(x.DiskWrite, base.DiskWrite, "disk writes", false)
	return strings.Join(parts, ", ")
}

// RatioWords says how v compares with base in words: "11× less memory", "2.7× more requests/s",
// "same CPU"; "n/a (base 0)" when base is 0 and v is not.
func RatioWords(v, base float64, noun string) string {
	r := compare.Ratio(v, base)
	switch {
	case math.IsNaN(r):
		return "n/a (" + noun + ": base 0)"
	case compare.FormatRatio(r) == "1.0" || r < 1 && r > 0 && compare.FormatRatio(1/r) == "1.0":
		return "same " + noun
	case r == 0:
		return "no " + noun
	}
	return compare.Times(r, compare.SpokenRatio, "more "+noun, "less "+noun)
}

func avgPeak(st result.ResourceStat, f func(float64) string) string {
	if st.Samples == 0 {
		return "—"
	}
	return f(st.Avg) + " / " + f(st.Peak)
}

func pct(v float64) string { return strconv.FormatFloat(v, 'f', 0, 64) + "%" }

// bytesText writes a byte count in binary units: "512 B", "12.3 MiB".
func bytesText(n float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	i := 0
	for n >= 1024 && i < len(units)-1 {
		n /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%.0f %s", n, units[i])
	}
	return fmt.Sprintf("%.1f %s", n, units[i])
}

// capacityTable puts the searches of one capacity scenario side by side: each target's range —
// the highest rate whose runs all met the objective (its p99 and CPU there) and the lowest whose
// runs all failed — and the capacity against the first target's in words.
func capacityTable(rs []CapacityResult) *table {
	t := &table{
		title: "Capacity compared (the highest rate at which every run met " + rs[0].SLO.String() + ")",
		head:  []string{"target", "max sustainable/s", "p99 there", "CPU there", "every run failed at/s", "steps", "vs " + rs[0].Target},
		right: []bool{false, true, true, true, true, true, false},
	}
	best := func(r CapacityResult) (float64, bool) {
		if r.Result == nil || r.Result.Best == nil {
			return 0, false
		}
		return r.Result.Best.Rate, true
	}
	base, baseOK := best(rs[0])
	for i, r := range rs {
		row := []string{r.Target, "—", "—", "—", "—", "0", ""}
		if r.Err != nil {
			row[1] = "could not run: " + r.Err.Error()
			t.rows = append(t.rows, row)
			continue
		}
		res := r.Result
		row[5] = strconv.Itoa(len(res.Steps))
		if b, ok := best(r); ok {
			row[1] = rateText(b)
			row[2] = strconv.FormatFloat(res.Best.Summary.Latency.P99, 'f', 2, 64) + " ms"
			if p, ok := primary(res.Best.Summary.Resources); ok {
				row[3] = avgPeak(p.Summary.CPUPercent, pct)
			}
			if i > 0 && baseOK {
				row[6] = RatioWords(b, base, "requests/s")
			}
		}
		switch {
		case res.AtMax:
			row[4] = "none up to the max"
		case res.High > 0:
			row[4] = rateText(res.High)
		}
		t.rows = append(t.rows, row)
	}
	if len(rs) == 1 {
		t.head, t.rows[0] = t.head[:6], t.rows[0][:6]
	}
	return t
}

// capacitySteps is one target's search, step by step: the figures `rpcbench capacity` shows, and
// the CPU and memory of the target's first watched process in each step when it was watched.
func capacitySteps(r CapacityResult) *table {
	of := r.Target
	if r.Level != "" {
		of += ", " + r.Level + ","
	}
	t := &table{
		title: fmt.Sprintf("Capacity of %s against %s", of, r.SLO),
		head:  []string{"rate/s", "achieved/s", "p50 ms", "p99 ms", "errors", "verdict"},
		right: []bool{true, true, true, true, true, false},
	}
	watched := ""
	for _, st := range r.Result.Steps {
		if p, ok := primary(st.Summary.Resources); ok {
			watched = p.Target
		}
	}
	if watched != "" {
		t.head = append(t.head, "CPU ("+watched+")", "memory")
		t.right = append(t.right, true, true)
	}
	for _, st := range r.Result.Steps {
		s := st.Summary
		row := []string{rateText(st.Rate), rateText(s.Achieved()),
			strconv.FormatFloat(s.Latency.P50, 'f', 2, 64), strconv.FormatFloat(s.Latency.P99, 'f', 2, 64),
			strconv.FormatFloat(100*s.ErrorShare(), 'f', 2, 64) + "%", verdictOf(st)}
		if watched != "" {
			p, _ := primary(s.Resources)
			row = append(row, avgPeak(p.Summary.CPUPercent, pct), avgPeak(p.Summary.RSS, bytesText))
		}
		t.rows = append(t.rows, row)
	}
	return t
}

func verdictOf(st capacity.Step) string {
	line := st.Line() // "…, errors 0.00%: pass"
	if i := strings.Index(line, "%: "); i >= 0 {
		return line[i+3:]
	}
	return line
}

// rateText writes a rate per second: whole above 100, else 3 significant digits.
func rateText(v float64) string {
	if v >= 100 {
		return strconv.FormatFloat(math.Round(v), 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}
