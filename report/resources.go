package report

import (
	"encoding/csv"
	"fmt"
	"strconv"
	"strings"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/summary"
)

// resourceCols are the figures of a monitored target, as the text, Markdown and HTML tables show
// them: the average and the peak over the measured part. The network ones are headed, or
// followed, by whose bytes they are (resourceHead).
var resourceCols = []struct {
	name string
	net  bool
	cell func(sm *result.ResourceSummary) string
}{
	{"CPU", false, func(sm *result.ResourceSummary) string { return avgPeak(sm.CPUPercent, fmtPct) }},
	{"memory (RSS)", false, func(sm *result.ResourceSummary) string { return avgPeak(sm.RSS, fmtBytes) }},
	{"disk read/s", false, func(sm *result.ResourceSummary) string { return avgPeak(sm.DiskRead, fmtBytes) }},
	{"disk write/s", false, func(sm *result.ResourceSummary) string { return avgPeak(sm.DiskWrite, fmtBytes) }},
	{"net in/s", true, func(sm *result.ResourceSummary) string { return avgPeak(sm.NetRx, fmtBytes) }},
	{"net out/s", true, func(sm *result.ResourceSummary) string { return avgPeak(sm.NetTx, fmtBytes) }},
	{"threads", false, func(sm *result.ResourceSummary) string { return avgPeak(sm.Threads, fmtCount) }},
	{"open files", false, func(sm *result.ResourceSummary) string { return avgPeak(sm.FDs, fmtCount) }},
}

// resourceTable is the head and rows (after the target) of a Resources table of rs: the
// processes counted, then resourceCols. The network columns are headed "net in/s (host-wide)"
// when every target with network figures has the same scope; otherwise each cell says its own.
type resourceTable struct {
	head         []string
	scopeInCells bool
}

func newResourceTable(rs []*result.Resources) resourceTable {
	scopes := map[string]bool{}
	for _, r := range rs {
		if sc := summary.NetScopeOf(*r); sc != "" {
			scopes[sc] = true
		}
	}
	t := resourceTable{head: []string{"processes"}, scopeInCells: len(scopes) > 1}
	for _, c := range resourceCols {
		name := c.name
		if c.net && len(scopes) == 1 {
			for sc := range scopes {
				name += " (" + sc + ")"
			}
		}
		t.head = append(t.head, name)
	}
	return t
}

func (t resourceTable) cells(r *result.Resources) []string {
	out := []string{summary.ProcessesText(*r)}
	for _, c := range resourceCols {
		v := c.cell(&r.Summary)
		if c.net && t.scopeInCells && v != "—" {
			v += " (" + summary.NetScopeOf(*r) + ")"
		}
		out = append(out, v)
	}
	return out
}

// allResources returns the resources of every run, in order.
func allResources(runs ...*summary.Summary) []*result.Resources {
	var out []*result.Resources
	for _, s := range runs {
		for i := range s.Resources {
			out = append(out, &s.Resources[i])
		}
	}
	return out
}

// pidChangeLines says, for each target whose processes changed during the run, when and how.
func pidChangeLines(runs []*summary.Summary, labels []string) []string {
	var out []string
	for i, s := range runs {
		for _, r := range s.Resources {
			if line := summary.PIDChangesText(r); line != "" {
				if labels != nil {
					line = labels[i] + ": " + line
				}
				out = append(out, line)
			}
		}
	}
	return out
}

func fmtPct(v float64) string   { return strconv.FormatFloat(v, 'f', 0, 64) + "%" }
func fmtCount(v float64) string { return strconv.FormatFloat(v, 'f', 0, 64) }

// avgPeak writes "avg / peak", or "—" for a figure no sample had.
func avgPeak(st result.ResourceStat, f func(float64) string) string {
	if st.Samples == 0 {
		return "—"
	}
	return f(st.Avg) + " / " + f(st.Peak)
}

const resourcesTitle = "avg / peak over the measured part; CPU in % of one core, 200% is two cores busy; " + resourcesNetWords

// resourcesNetWords says what the network columns count, whose scope heads them or follows each
// figure.
const resourcesNetWords = "network: own TCP sockets = the TCP payload of the connections the target held open at each sample " +
	"(one opened and closed between two samples is missed); netns-wide = every process in its network namespace, " +
	"host-wide = every process on the machine, where its own sockets cannot be read"

// resourcesText writes the Resources section of the text report: one row per monitored target.
func resourcesText(b *strings.Builder, s *summary.Summary) {
	if len(s.Resources) == 0 {
		return
	}
	fmt.Fprintf(b, "\nResources (%s)\n", resourcesTitle)
	t := newResourceTable(allResources(s))
	rows := [][]string{append([]string{"target"}, t.head...)}
	for i := range s.Resources {
		rows = append(rows, append([]string{s.Resources[i].Target}, t.cells(&s.Resources[i])...))
	}
	widths := make([]int, len(rows[0]))
	for _, row := range rows {
		for i, c := range row {
			widths[i] = max(widths[i], len([]rune(c)))
		}
	}
	for _, row := range rows {
		b.WriteString(" ")
		for i, c := range row {
			pad := strings.Repeat(" ", widths[i]-len([]rune(c)))
			if i == 0 {
				b.WriteString(" " + c + pad)
			} else {
				b.WriteString("  " + pad + c)
			}
		}
		b.WriteString("\n")
	}
	for _, line := range pidChangeLines([]*summary.Summary{s}, nil) {
		b.WriteString("  " + line + "\n")
	}
	metricsText(b, s.Metrics)
}

// metricsText lists the target's own series: their average and peak over the scrapes.
func metricsText(b *strings.Builder, m *result.Metrics) {
	if m == nil || len(m.Series) == 0 {
		return
	}
	fmt.Fprintf(b, "\nTarget metrics (%s; counters as a rate per second; avg / peak over %d scrapes)\n", m.URL, len(m.Samples))
	w := 0
	for _, name := range m.Series {
		w = max(w, len(name))
	}
	for i, name := range m.Series {
		fmt.Fprintf(b, "  %-*s  %s\n", w, name, metricCell(m, i))
	}
}

// metricStat is the average and peak of series i over the scrapes that had it.
func metricStat(m *result.Metrics, i int) result.ResourceStat {
	var st result.ResourceStat
	sum := 0.0
	for _, x := range m.Samples {
		v := x.Values[i]
		if v == nil {
			continue
		}
		if st.Samples == 0 || *v > st.Peak {
			st.Peak = *v
		}
		sum += *v
		st.Samples++
	}
	if st.Samples > 0 {
		st.Avg = sum / float64(st.Samples)
	}
	return st
}

func metricCell(m *result.Metrics, i int) string {
	st := metricStat(m, i)
	if st.Samples == 0 {
		return "— (no series matched)"
	}
	unit := ""
	if m.Types[i] == "counter" {
		unit = "/s"
	}
	return fmtMetric(st.Avg) + unit + " / " + fmtMetric(st.Peak) + unit
}

// fmtMetric writes a metric's value plainly: whole above 1000, else to 4 significant digits.
func fmtMetric(v float64) string {
	if v >= 1000 || v <= -1000 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// resourcesMarkdown writes the Resources table of one run.
func resourcesMarkdown(b *strings.Builder, s *summary.Summary) {
	resourcesMarkdownRuns(b, []*summary.Summary{s}, nil)
}

// resourcesMarkdownRuns writes one Resources table for several runs, a column naming the run when
// there are labels.
func resourcesMarkdownRuns(b *strings.Builder, runs []*summary.Summary, labels []string) {
	res, metrics := false, false
	for _, s := range runs {
		res = res || len(s.Resources) > 0
		metrics = metrics || s.Metrics != nil && len(s.Metrics.Series) > 0
	}
	if !res && !metrics {
		return
	}
	if res {
		fmt.Fprintf(b, "\nResources (%s):\n\n", resourcesTitle)
		t := newResourceTable(allResources(runs...))
		head := []string{"target"}
		if labels != nil {
			head = []string{"run", "target"}
		}
		mdHeader(b, append(head, t.head...)...)
		for i, s := range runs {
			for j := range s.Resources {
				r := &s.Resources[j]
				row := []string{mdCell(r.Target)}
				if labels != nil {
					row = []string{mdCell(labels[i]), mdCell(r.Target)}
				}
				for _, c := range t.cells(r) {
					row = append(row, mdCell(c))
				}
				mdRow(b, row...)
			}
		}
		if lines := pidChangeLines(runs, labels); len(lines) > 0 {
			b.WriteString("\n")
			for _, line := range lines {
				b.WriteString("- " + mdCell(line) + "\n")
			}
		}
	}
	if metrics {
		b.WriteString("\nTarget metrics (counters as a rate per second; avg / peak over the scrapes):\n\n")
		head := []string{"series", "avg / peak"}
		if labels != nil {
			head = []string{"run", "series", "avg / peak"}
		}
		mdHeader(b, head...)
		for i, s := range runs {
			if s.Metrics == nil {
				continue
			}
			for j, name := range s.Metrics.Series {
				row := []string{"`" + mdCell(name) + "`", metricCell(s.Metrics, j)}
				if labels != nil {
					row = append([]string{mdCell(labels[i])}, row...)
				}
				mdRow(b, row...)
			}
		}
	}
}

// resourceCSVCols are the columns the CSV report adds when a run was monitored: each sample of
// each target is a row of its own, its interval in start_s and end_s, the target in "target"; a
// scrape of a target's metric series fills "target" with "metric NAME" and "value".
// procs and pids are the processes the sample counted (pids space-separated; empty for a cgroup
// read as a whole), net_scope whose bytes net_rx_bytes and net_tx_bytes are: host-wide or
// netns-wide.
var resourceCSVCols = []string{"target", "procs", "pids", "cpu_pct", "rss_bytes", "threads", "open_files",
	"disk_read_bytes", "disk_write_bytes", "net_rx_bytes", "net_tx_bytes", "net_scope", "value"}

// stageResourceCSVCols are the columns the CSV report adds after resourceCSVCols when a monitored
// run has stages. Each stage and target has a row of kind "stage" (its stage in "stage", the
// stage's span in start_s and end_s, the target in "target"): cpu_pct and rss_bytes hold the
// average over the samples whose interval ended in the stage, these columns their count, the
// peaks and the disk rates (empty when no disk figure moved). Sample rows leave them empty.
var stageResourceCSVCols = []string{"samples", "cpu_peak_pct", "rss_peak_bytes", "disk_read_bytes_per_s", "disk_write_bytes_per_s"}

// csvResourceCols returns the columns to add for runs: none unless a run watched a target beside
// the generator itself (which every run watches), so that the CSV of a run without --monitor-*
// keeps its columns and rows; the per-stage ones too when a run has stages.
func csvResourceCols(runs []*summary.Summary) []string {
	for _, s := range runs {
		watched := s.Metrics != nil && len(s.Metrics.Series) > 0
		for _, r := range s.Resources {
			watched = watched || !r.Self
		}
		if !watched {
			continue
		}
		if anyStages(runs) {
			return append(resourceCSVCols[:len(resourceCSVCols):len(resourceCSVCols)], stageResourceCSVCols...)
		}
		return resourceCSVCols
	}
	return nil
}

// csvResourceRows writes the per-stage resources and the samples of run name as rows of lead
// columns (run, start, end, endpoint, the request figures and those that follow them, filled only
// with the run, the times and, for a stage, its kind and number) and width more.
func csvResourceRows(cw *csv.Writer, s *summary.Summary, name string, lead, width int) {
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	row := func(start, end float64, stage string, cells ...string) {
		r := make([]string, lead, lead+width)
		r[0], r[1], r[2] = name, f(start), f(end)
		if stage != "" {
			k := len(csvHead) // the stage columns follow the head
			r[k], r[k+1] = "stage", stage
		}
		r = append(r, cells...)
		cw.Write(append(r, make([]string, lead+width-len(r))...))
	}
	optU := func(p *uint64) string {
		if p == nil {
			return ""
		}
		return strconv.FormatUint(*p, 10)
	}
	whole := func(v float64) string { return strconv.FormatFloat(v, 'f', 0, 64) }
	for _, st := range s.Stages {
		for _, r := range st.Resources {
			disk := [2]string{}
			if r.DiskReadS > 0 || r.DiskWriteS > 0 {
				disk = [2]string{whole(r.DiskReadS), whole(r.DiskWriteS)}
			}
			row(st.StartS, st.EndS, strconv.Itoa(st.Index), r.Target, "", "", strconv.FormatFloat(r.CPUAvg, 'f', 1, 64), whole(r.RSSAvg),
				"", "", "", "", "", "", "", "", // threads, open files, disk and network bytes, scope, value: a sample's
				strconv.Itoa(r.Samples), strconv.FormatFloat(r.CPUPeak, 'f', 1, 64), strconv.FormatUint(r.RSSPeak, 10), disk[0], disk[1])
		}
	}
	for _, r := range s.Resources {
		for _, x := range r.Samples {
			fds := ""
			if x.FDs != nil {
				fds = strconv.Itoa(*x.FDs)
			}
			end := x.At.Seconds()
			cpu := ""
			if x.Interval > 0 {
				cpu = strconv.FormatFloat(x.CPUPercent, 'f', 1, 64)
			}
			pids := ""
			if ps, ok := summary.PIDsAt(r, x.At); ok {
				pids = strings.Trim(fmt.Sprint(ps), "[]") // space-separated
			}
			scope := ""
			if x.NetRx != nil || x.NetTx != nil {
				scope = summary.NetScopeOf(r)
			}
			row((x.At - x.Interval).Seconds(), end, "", r.Target, strconv.Itoa(x.Procs), pids, cpu, strconv.FormatUint(x.RSS, 10), strconv.Itoa(x.Threads), fds,
				optU(x.DiskRead), optU(x.DiskWrite), optU(x.NetRx), optU(x.NetTx), scope, "")
		}
	}
	if m := s.Metrics; m != nil {
		for _, x := range m.Samples {
			for j, v := range x.Values {
				if v == nil {
					continue
				}
				at := x.At.Seconds()
				row(at, at, "", "metric "+m.Series[j], "", "", "", "", "", "", "", "", "", "", "", f(*v))
			}
		}
	}
}
