package report

import (
	"encoding/csv"
	"fmt"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/summary"
)

// stagesNote says what the per-stage figures count, under their tables.
const stagesNote = "each interval counts whole in the stage that holds its midpoint, the drain after the last stage in the last; a request counts in the interval it ended in"

// stageRow is one row of a per-stage table, in the words every format shows.
type stageRow struct {
	Stage, Level, Span, Endpoint           string
	Requests, RPS, Avg, P50, P95, P99, Max string
	Errors                                 string
	Failing, Total                         bool
}

// stageLevel writes a stage's level: "1000/s" or "50 connections", "0→1000/s" for a ramp.
func stageLevel(st summary.Stage, m plan.Model) string {
	v := trimFloat(st.To)
	if st.Ramp {
		v = trimFloat(st.From) + "→" + v
	}
	if m == plan.Closed && !st.Ramp && st.To == 1 {
		return v + " connection"
	}
	if m == plan.Closed {
		return v + " connections"
	}
	return v + "/s"
}

// stageRows lists the stages of s, each followed by its endpoints when there are several.
func stageRows(s *summary.Summary) []stageRow {
	var rows []stageRow
	for _, st := range s.Stages {
		r := figuresRow(st.StageFigures)
		r.Stage, r.Level, r.Total = strconv.Itoa(st.Index), stageLevel(st, s.Config.Load.Model), len(st.Endpoints) > 0
		r.Span = fmtSeconds(st.StartS) + "–" + fmtSeconds(st.EndS)
		if st.StartS == 0 {
			r.Span = "0s–" + fmtSeconds(st.EndS)
		}
		rows = append(rows, r)
		for _, e := range st.Endpoints {
			rows = append(rows, figuresRow(e))
		}
	}
	return rows
}

func figuresRow(f summary.StageFigures) stageRow {
	r := stageRow{Endpoint: f.Endpoint, Requests: strconv.FormatUint(f.Requests, 10), RPS: fmt1(f.RPS),
		Errors:  fmt.Sprintf("%d (%.2f%%)", f.Errors, pct(f.Errors, f.Requests)),
		Failing: f.Errors > 0, Avg: "—", P50: "—", P95: "—", P99: "—", Max: "—"}
	if f.Latency.Max > 0 { // some answer came: the histogram holds at least 1 µs
		l := f.Latency
		r.Avg, r.P50, r.P95, r.P99, r.Max = fmtMs(l.Mean), fmtMs(l.P50), fmtMs(l.P95), fmtMs(l.P99), fmtMs(l.Max)
	}
	return r
}

// stagesTitle heads the per-stage tables: which stages they hold.
func stagesTitle(s *summary.Summary) string {
	for _, st := range s.Stages {
		if st.Ramp {
			return "Stages (ramps included)"
		}
	}
	if summary.HasRamps(s.Config.Load) {
		return "Stages (the steps that hold a level; ramps left out unless --stage-ramps)"
	}
	return "Stages"
}

// stagesTable writes the per-stage table of the text report, when the run had stages.
func stagesTable(b *strings.Builder, s *summary.Summary) {
	if len(s.Stages) == 0 {
		return
	}
	fmt.Fprintf(b, "\n%s\n", stagesTitle(s))
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  stage\tlevel\ttime\tendpoint\trequests\tanswers/s\tavg\tp50\tp95\tp99\terrors\t")
	for _, r := range stageRows(s) {
		ep := r.Endpoint
		if ep == "" {
			ep = "all"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", r.Stage, r.Level, r.Span, ep, r.Requests, r.RPS, r.Avg, r.P50, r.P95, r.P99, r.Errors)
	}
	tw.Flush()
	if rows := stageResourceRows(s); len(rows) > 0 {
		tw = tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  stage\ttarget\tCPU avg\tCPU peak\tRSS avg\tRSS peak\tdisk read/s\tdisk write/s\t")
		for _, r := range rows {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7])
		}
		tw.Flush()
	}
	fmt.Fprintf(b, "  (%s)\n", stagesNote)
}

// stageResourceRows are the cells of the per-stage resources table: stage, target, CPU avg and
// peak (% of one core), RSS avg and peak, disk read and write per second; none when no target was
// watched in a stage.
func stageResourceRows(s *summary.Summary) [][8]string {
	var rows [][8]string
	pct := func(v float64) string { return fmt.Sprintf("%.1f%%", v) }
	for _, st := range s.Stages {
		for _, r := range st.Resources {
			disk := [2]string{"–", "–"}
			if r.DiskReadS > 0 || r.DiskWriteS > 0 {
				disk = [2]string{stageBytes(r.DiskReadS), stageBytes(r.DiskWriteS)}
			}
			rows = append(rows, [8]string{fmt.Sprint(st.Index), r.Target, pct(r.CPUAvg), pct(r.CPUPeak),
				stageBytes(r.RSSAvg), stageBytes(float64(r.RSSPeak)), disk[0], disk[1]})
		}
	}
	return rows
}

// stageBytes writes a byte count in MiB with one decimal.
func stageBytes(v float64) string { return fmt.Sprintf("%.1f MiB", v/(1<<20)) }

// stagesMarkdown writes the per-stage table of the Markdown report, when the run had stages.
func stagesMarkdown(b *strings.Builder, s *summary.Summary) {
	if len(s.Stages) == 0 {
		return
	}
	fmt.Fprintf(b, "\n%s:\n\n", stagesTitle(s))
	mdHeader(b, "stage", "level", "time", "endpoint", "requests", "answers/s", "avg", "p50", "p95", "p99", "errors")
	for _, r := range stageRows(s) {
		ep := r.Endpoint
		if ep == "" {
			ep = "all"
		}
		mdRow(b, r.Stage, r.Level, r.Span, mdCell(ep), r.Requests, r.RPS, r.Avg, r.P50, r.P95, r.P99, r.Errors)
	}
	if rows := stageResourceRows(s); len(rows) > 0 {
		b.WriteString("\nResources per stage:\n\n")
		mdHeader(b, "stage", "target", "CPU avg", "CPU peak", "RSS avg", "RSS peak", "disk read/s", "disk write/s")
		for _, r := range rows {
			mdRow(b, r[0], mdCell(r[1]), r[2], r[3], r[4], r[5], r[6], r[7])
		}
	}
	fmt.Fprintf(b, "\n_%s._\n", stagesNote)
}

// csvStageColumns are the columns the CSV report adds when a run has per-stage figures.
var csvStageColumns = []string{"kind", "stage", "avg_ms", "p95_ms"}

func anyStages(runs []*summary.Summary) bool {
	for _, s := range runs {
		if len(s.Stages) > 0 {
			return true
		}
	}
	return false
}

// csvIntervalStage is the stage columns of an interval's row: the stage it is assigned to.
func csvIntervalStage(s *summary.Summary, p summary.Point) []string {
	stage := ""
	if i, ok := summary.StageOf(s.Config.Load, seconds(p.Start), seconds(p.End)); ok {
		stage = strconv.Itoa(i)
	}
	return []string{"interval", stage, "", ""}
}

// csvStages writes the per-stage rows of run s, labelled name, each ending with tail.
func csvStages(cw *csv.Writer, name string, s *summary.Summary, tail []string) {
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	u := func(v uint64) string { return strconv.FormatUint(v, 10) }
	for _, st := range s.Stages {
		for _, fig := range append([]summary.StageFigures{st.StageFigures}, st.Endpoints...) {
			ep := fig.Endpoint
			if ep == "" {
				ep = "all"
			}
			l := fig.Latency
			cw.Write(append([]string{name, f(st.StartS), f(st.EndS), ep, u(fig.Requests), u(fig.OK), u(fig.Errors),
				strconv.FormatFloat(fig.RPS, 'f', 1, 64), f(l.P50), f(l.P90), f(l.P99), f(l.Max),
				"stage", strconv.Itoa(st.Index), f(l.Mean), f(l.P95)}, tail...))
		}
	}
}

// seconds converts seconds to a Duration, to the nanosecond.
func seconds(s float64) time.Duration { return time.Duration(math.Round(s * 1e9)) }

// stagesHTML is the per-stage table of a run on the HTML page: its title and rows; none when the
// run had no stages.
func stagesHTML(s *summary.Summary) (title string, rows []stageRow) {
	if len(s.Stages) == 0 {
		return "", nil
	}
	return stagesTitle(s), stageRows(s)
}
