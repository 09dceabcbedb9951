package report

// The HTML report inlines uPlot (https://github.com/leeoniya/uPlot), a small canvas chart library
// by Leon Sorokin, under the MIT licence; its licence ships next to it in assets/uPlot.LICENSE and
// is repeated in a comment above the library in every page.

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/rpcbench/rpcbench/compare"
	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/report/style"
	"github.com/rpcbench/rpcbench/summary"
)

var (
	//go:embed assets/uPlot.iife.min.js
	uplotJS string
	//go:embed assets/uPlot.min.css
	uplotCSS string
	//go:embed assets/uPlot.LICENSE
	uplotLicense string
	//go:embed assets/html_report.js
	pageJS string
	//go:embed assets/html_report.tmpl
	pageTmpl string
)

// pageTemplate is parsed once; html/template escapes every string from the summaries for its
// context, so a URL or an error message cannot break out of the page's markup or scripts.
var pageTemplate = template.Must(template.New("report").Parse(pageTmpl))

// HTML writes runs as one self-contained HTML page: the charts (latency, throughput and errors over
// time, the percentile spectrum, the latency histogram), the status codes, error classes, endpoints
// and configuration of each run, and the notes. The chart library, styles and data are all inlined,
// so the page loads nothing from the network. Several runs overlay each other on every chart, in
// the order given, lettered A, B, C … and labelled by their target and start time.
func HTML(w io.Writer, runs []*summary.Summary) error {
	return HTMLWithNames(w, runs, nil)
}

// HTMLWithNames is HTML with a name for each run (a file name, a host) shown beside its letter;
// a missing or empty name shows none.
func HTMLWithNames(w io.Writer, runs []*summary.Summary, names []string) error {
	return HTMLWith(w, runs, names, Options{})
}

// HTMLWith is HTMLWithNames with the tables chosen by o.
func HTMLWith(w io.Writer, runs []*summary.Summary, names []string, o Options) error {
	if len(runs) == 0 {
		return errors.New("report: html: no runs to render")
	}
	for i, s := range runs {
		if s == nil {
			return fmt.Errorf("report: html: run %d is nil", i+1)
		}
	}
	names = append(slices.Clone(names), make([]string, max(0, len(runs)-len(names)))...)
	cd := buildChartData(runs, names)
	if cd.Subscriptions = subscriptionsChart(runs); len(cd.Subscriptions) > 0 {
		cd.SubsPcts = subsChartPcts
	}
	rv, rc := buildResources(runs)
	cd.Resources = rc
	data, err := json.Marshal(cd) // escapes <, > and & as \u003c …
	if err != nil {
		return fmt.Errorf("report: html: encoding the chart data: %w", err)
	}
	p := buildPage(runs, names, o.percentiles())
	p.Resources = rv
	p.SubscriptionsChart = len(cd.Subscriptions) > 0
	if et := cd.Time.Endpoints; et != nil {
		p.EndpointCharts = fmt.Sprintf("each of the %d endpoints", len(et.Names))
		if len(et.Names) < et.Of {
			p.EndpointCharts = fmt.Sprintf("the %d busiest of the %d endpoints", len(et.Names), et.Of)
		}
	}
	p.Data = template.JS(data)
	p.LibJS = template.JS("/*! uPlot, inlined; its licence:\n\n" + uplotLicense + "*/\n" + uplotJS)
	p.LibCSS = template.CSS(uplotCSS)
	p.PageJS = template.JS(pageJS + "\n" + resourcesJS)
	p.PageCSS = template.CSS(style.CSS)
	return pageTemplate.Execute(w, p)
}

type page struct {
	Title     string
	Version   string
	Runs      []runView
	Multi     bool
	Endpoints bool // some run has more than one endpoint
	// PctNames name the latency columns of the endpoint tables: p50, p90 …
	PctNames []string
	// EndpointCharts names the endpoints charted one by one ("each of the 3 endpoints"), or is ""
	// when there are no such charts (several runs, or one endpoint).
	EndpointCharts string
	// Compared is the runs' comparison with run A, when there are several.
	Compared  *compareTable
	Status    []countRow
	Classes   []countRow
	Config    []configRow
	Data      template.JS
	LibJS     template.JS
	LibCSS    template.CSS
	PageJS    template.JS
	PageCSS   template.CSS
	Resources *resourceView // nil when no run was monitored
	// Alone is set for the page of a run of subscriptions alone (plan.Plan.SubscriptionsOnly):
	// it has no calls, so the page shows its subscriptions in place of the calls' charts and tables.
	Alone bool
	// SubscriptionsChart is set when a run had subscriptions with a figure to chart.
	SubscriptionsChart bool
}

type runView struct {
	Letter, Color, Label, Target, Started, Load, Duration string
	Name                                                  string
	Version                                               string
	Requests, Throughput, P50, P99, Max, Errors, ErrPct   string
	// Against run A, from compare (empty for A itself, or without a ratio): "1.9× A".
	VsThroughput, VsP50, VsP99, VsMax, VsErrors string
	Failing                                     bool
	Interrupted                                 bool
	Notes                                       []string
	Warnings                                    []string          // summary.Summary.Warnings
	Validity                                    *summary.Validity // nil: not judged
	Generators                                  []string          // a merged run's, one line each
	Endpoints                                   []endpointRow
	Messages                                    []summary.ErrorMessage
	MoreMessages, MoreRequests                  uint64
	Checks                                      []checkView
	AnswerMetrics                               [][]string // answerMetricsRows
	// AloneLine says what a run of subscriptions alone was (aloneLine); "" for a run of calls.
	AloneLine string
	// Subscriptions are the run's JSON-RPC subscriptions (nil without): their request, the rows
	// of subscriptionRows, the note under them and the parts' table (partRows, header first).
	Subscriptions  *subscriptionsView
	ConfigJSON     string
	SLO            *sloView
	StagesTitle    string
	StageResources [][8]string // per stage and watched target
	Stages         []stageRow

	// Times are the whole run's latency and service time side by side, figure by figure; SendLag
	// the send lag's p50, p99 and max in the open model ("" in the closed, which has no schedule).
	Times   [][3]string
	SendLag string
	// QUIC are the facts of the run's QUIC connections (HTTP/3), a name and a value each (quicRows).
	QUIC [][2]string
	// Jumps are the stretches where latency or errors jumped, with what coincided (summary.Jumps),
	// listed under the latency chart, which marks them.
	Jumps []jumpView
}

type subscriptionsView struct {
	Request string
	Rows    [][2]string
	Note    string
	Parts   [][]string
	// Figures are the run card's headline figures of a run of subscriptions alone, a value and
	// its name each.
	Figures [][2]string
}

type endpointRow struct {
	Name, Sent, OK, Errors, RPS, BytesIn, BytesOut string
	Pcts                                           []string // the percentiles of page.PctNames, then the max
	Total, Failing                                 bool
}

// countRow is one status code or error class with a cell per run.
type countRow struct {
	Key   string
	Bad   bool
	Cells []countCell
}

type countCell struct {
	Count string
	Pct   string
	Width string // the bar's width, a CSS percentage
}

type configRow struct {
	Key    string
	Values []string
}

// runLabel names a run: its name if it has one, its target and start time.
func runLabel(s *summary.Summary, name string) string {
	if name != "" {
		name += ": "
	}
	t := name + s.Target
	if t == "" {
		t = "(no target)"
	}
	if s.StartedAt.IsZero() {
		return t
	}
	return t + " @ " + s.StartedAt.UTC().Format("2006-01-02 15:04:05Z")
}

func buildPage(runs []*summary.Summary, names []string, qs []float64) *page {
	p := &page{Multi: len(runs) > 1, PctNames: pctNames(qs)}
	c := compare.New(runs, names)
	versions := map[string]bool{}
	for i, s := range runs {
		v := s.Tool.Version
		if v == "" {
			v = "dev"
		}
		if !versions[v] {
			versions[v] = true
			p.Version += map[bool]string{true: ", ", false: ""}[p.Version != ""] + v
		}
		if len(s.Endpoints) > 1 {
			p.Endpoints = true
		}
		r := buildRun(i, s, names[i], qs)
		if i > 0 {
			r.VsThroughput = htmlRatio(c.Metrics, "throughput", i)
			r.VsP50 = htmlRatio(c.Metrics, "p50", i)
			r.VsP99 = htmlRatio(c.Metrics, "p99", i)
			r.VsMax = htmlRatio(c.Metrics, "max", i)
			r.VsErrors = htmlRatio(c.Metrics, "error rate", i)
		}
		p.Runs = append(p.Runs, r)
	}
	if p.Multi {
		p.Compared = htmlCompare(c)
	}
	p.Alone = len(runs) == 1 && runs[0].Config.SubscriptionsOnly()
	p.Title = "rpcbench report: " + runs[0].Target
	if p.Multi {
		p.Title = fmt.Sprintf("rpcbench report: %d runs compared", len(runs))
	}
	// over WebSocket every answer has the upgrade's 101: each call's JSON-RPC outcome says more
	p.Status = countRows(runs, func(s *summary.Summary) (map[string]uint64, uint64) {
		if overWebSocket(&s.Stats) {
			m, _ := wsOutcomes(&s.Stats)
			return m, s.Requests.Completed
		}
		return s.Status, s.Requests.Completed
	}, func(k string) bool {
		c, err := strconv.Atoi(k)
		return k != "result" && (err != nil || c < 200 || c >= 400)
	})
	p.Classes = countRows(runs, func(s *summary.Summary) (map[string]uint64, uint64) { return s.Errors, s.Requests.Attempted() },
		func(string) bool { return true })
	p.Config = configRows(runs)
	return p
}

func buildRun(i int, s *summary.Summary, name string, qs []float64) runView {
	r := runView{
		Letter: runLetter(i), Color: runColor(i), Label: runLabel(s, name), Target: s.Target, Name: name,
		Jumps:       viewJumps(s),
		Version:     s.Tool.Version,
		Started:     "—",
		Load:        runLoadText(s.Config),
		Duration:    fmtSeconds(s.DurationS),
		Requests:    strconv.FormatUint(s.Requests.Sent, 10),
		Throughput:  fmt1(s.Throughput),
		P50:         fmtMs(s.Latency.P50),
		P99:         fmtMs(s.Latency.P99),
		Max:         fmtMs(s.Latency.Max),
		Errors:      strconv.FormatUint(s.Requests.Errors, 10),
		ErrPct:      fmt.Sprintf("%.2f%%", pct(s.Requests.Errors, s.Requests.Attempted())),
		Failing:     s.Requests.Errors > 0,
		Interrupted: s.Interrupted,
		Notes:       s.Notes,
		Warnings:    s.Warnings,
		SLO:         sloHTML(s),
		Generators:  generatorLines(s),
		QUIC:        quicRows(&s.Connections),
	}
	if judged(s.Validity) {
		r.Validity = &s.Validity
	}
	r.StagesTitle, r.Stages = stagesHTML(s)
	r.StageResources = stageResourceRows(s)
	if !s.StartedAt.IsZero() {
		r.Started = s.StartedAt.UTC().Format("2006-01-02 15:04:05 UTC")
	}
	for _, e := range s.Endpoints {
		r.Endpoints = append(r.Endpoints, endpointOf(e.Name, &e.Stats, false, qs))
	}
	if len(s.Endpoints) != 1 {
		r.Endpoints = append(r.Endpoints, endpointOf("all endpoints", &s.Stats, true, qs))
	}
	r.Messages = s.ErrorMessages[:min(len(s.ErrorMessages), 10)]
	r.MoreMessages, r.MoreRequests = s.Unlisted(10)
	r.Checks = checksHTML(&s.Stats)
	r.AnswerMetrics = answerMetricsRows(s)
	if u := s.Subscriptions; u != nil {
		r.Subscriptions = &subscriptionsView{Request: u.Request, Rows: subscriptionRows(u), Note: subscriptionsNote(u)}
		if len(u.Parts) > 0 {
			r.Subscriptions.Parts = partRows(s)
		}
		if s.Config.SubscriptionsOnly() {
			r.Subscriptions.Figures = aloneFigures(u)
		}
	}
	if s.Config.SubscriptionsOnly() {
		r.AloneLine = aloneLine(s)
	}
	if s.Requests.Sent > 0 {
		for _, row := range timeRows {
			r.Times = append(r.Times, [3]string{row.name, fmtMs(row.v(&s.Latency)), fmtMs(row.v(&s.Service))})
		}
	}
	if s.Config.Load.Model == plan.Open {
		r.SendLag = sendLagText(s)
	}
	if b, err := json.MarshalIndent(configJSON(s.Config), "", "  "); err == nil {
		r.ConfigJSON = string(b)
	}
	return r
}

func endpointOf(name string, st *summary.Stats, total bool, qs []float64) endpointRow {
	return endpointRow{
		Name: name, Total: total, Failing: st.Requests.Errors > 0,
		Sent: strconv.FormatUint(st.Requests.Sent, 10), OK: strconv.FormatUint(st.Requests.OK, 10),
		Errors: strconv.FormatUint(st.Requests.Errors, 10), RPS: fmt1(st.Throughput),
		Pcts:    pctCells(&st.Latency, qs),
		BytesIn: fmtBytes(float64(st.Bytes.In)), BytesOut: fmtBytes(float64(st.Bytes.Out)),
	}
}

// runLoadText is the load of plan p: its calls' (loadText), or the schedule of its
// subscriptions when it has no calls.
func runLoadText(p plan.Plan) string {
	if u := p.Subscribe; u != nil && p.SubscriptionsOnly() {
		if u.Rate > 0 {
			return fmt.Sprintf("%d subscriptions opened at %s/s (open model), no calls", u.Count, trimFloat(u.Rate))
		}
		return fmt.Sprintf("%d subscriptions opened at once and held (closed model), no calls", u.Count)
	}
	return loadText(p.Load)
}

func loadText(l plan.Load) string {
	switch {
	case l.Model == plan.Open && len(l.Stages) > 0:
		return fmt.Sprintf("open model, %d stages, up to %d connections", len(l.Stages), l.Connections)
	case l.Model == plan.Open:
		return fmt.Sprintf("open model at %s req/s, up to %d connections", trimFloat(l.Rate), l.Connections)
	case len(l.Stages) > 0:
		return fmt.Sprintf("closed model, %d stages of connections", len(l.Stages))
	}
	return fmt.Sprintf("closed model, %d connections", l.Connections)
}

// countRows lists the keys of every run's counts (status codes or error classes), most frequent
// first, with each run's count and its share of of.
func countRows(runs []*summary.Summary, get func(*summary.Summary) (map[string]uint64, uint64), bad func(string) bool) []countRow {
	sum := map[string]uint64{}
	for _, s := range runs {
		m, _ := get(s)
		for k, n := range m {
			sum[k] += n
		}
	}
	keys := make([]string, 0, len(sum))
	for k := range sum {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if sum[keys[i]] != sum[keys[j]] {
			return sum[keys[i]] > sum[keys[j]]
		}
		return keys[i] < keys[j]
	})
	var rows []countRow
	for _, k := range keys {
		row := countRow{Key: k, Bad: bad(k)}
		for _, s := range runs {
			m, of := get(s)
			n, ok := m[k]
			if !ok {
				row.Cells = append(row.Cells, countCell{Count: "—", Width: "0%"})
				continue
			}
			p := pct(n, of)
			row.Cells = append(row.Cells, countCell{Count: strconv.FormatUint(n, 10), Pct: fmt.Sprintf("%.2f%%", p), Width: fmt.Sprintf("%.1f%%", min(p, 100))})
		}
		rows = append(rows, row)
	}
	return rows
}

// configRows is the runs' configurations side by side, one setting a row.
func configRows(runs []*summary.Summary) []configRow {
	get := []struct {
		key string
		f   func(s *summary.Summary) string
	}{
		{"tool", func(s *summary.Summary) string { return strings.TrimSpace(s.Tool.Name + " " + s.Tool.Version) }},
		{"target", func(s *summary.Summary) string { return s.Target }},
		{"started", func(s *summary.Summary) string { return timeText(s.StartedAt) }},
		{"load", func(s *summary.Summary) string { return runLoadText(s.Config) }},
		{"rate", func(s *summary.Summary) string { return optF(s.Config.Load.Rate, " req/s") }},
		{"stages", func(s *summary.Summary) string { return stagesText(s.Config.Load) }},
		{"duration", func(s *summary.Summary) string { return optD(s.Config.Load.Duration) }},
		{"request limit", func(s *summary.Summary) string { return optU(s.Config.Load.Requests) }},
		{"warm-up", func(s *summary.Summary) string {
			return strings.TrimSpace(optD(s.Config.Load.Warmup) + " " + warmupFrom(s.Config.Load))
		}},
		{"send slack", func(s *summary.Summary) string { return optD(s.Config.Load.SendSlack) }},
		{"interval", func(s *summary.Summary) string { return optD(s.Config.Load.Interval) }},
		{"timeout", func(s *summary.Summary) string { return optD(s.Config.HTTP.Timeout) }},
		{"connect timeout", func(s *summary.Summary) string { return optD(s.Config.HTTP.ConnectTimeout) }},
		{"keep-alive", func(s *summary.Summary) string { return onOff(!s.Config.HTTP.DisableKeepAlive) }},
		{"TLS verification", func(s *summary.Summary) string { return onOff(!s.Config.HTTP.Insecure) }},
		{"measured for", func(s *summary.Summary) string {
			if s.Config.SubscriptionsOnly() {
				return fmtSeconds(s.DurationS) + " (subscriptions, no calls)"
			}
			return fmtSeconds(s.DurationS) + " (sending " + fmtSeconds(s.SendingS) + ")"
		}},
		{"stopped", func(s *summary.Summary) string { return s.StopReason }},
	}
	var rows []configRow
	for _, g := range get {
		row := configRow{Key: g.key}
		any := false
		for _, s := range runs {
			v := g.f(s)
			any = any || v != ""
			if v == "" {
				v = "—"
			}
			row.Values = append(row.Values, v)
		}
		if any {
			rows = append(rows, row)
		}
	}
	n := 0
	for _, s := range runs {
		n = max(n, len(s.Config.Endpoints))
	}
	for i := range n {
		row := configRow{Key: fmt.Sprintf("endpoint %d", i+1)}
		for _, s := range runs {
			v := "—"
			if i < len(s.Config.Endpoints) {
				v = endpointText(s.Config.Endpoints[i])
			}
			row.Values = append(row.Values, v)
		}
		rows = append(rows, row)
	}
	return rows
}

func endpointText(e plan.Endpoint) string {
	m := e.Method
	if m == "" {
		m = "GET"
	}
	t := m + " " + e.URL
	if e.Name != "" && e.Name != m+" "+e.URL {
		t = e.Name + ": " + t
	}
	var extra []string
	if len(e.Header) > 0 {
		extra = append(extra, fmt.Sprintf("%d headers", len(e.Header)))
	}
	if len(e.Body) > 0 {
		extra = append(extra, fmtBytes(float64(len(e.Body)))+" body")
	}
	if len(extra) > 0 {
		t += " (" + strings.Join(extra, ", ") + ")"
	}
	return t
}

func stagesText(l plan.Load) string {
	var parts []string
	for _, st := range l.Stages {
		parts = append(parts, fmt.Sprintf("%v→%s", st.Duration, trimFloat(st.Target)))
	}
	return strings.Join(parts, ", ")
}

func timeText(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

func optF(v float64, unit string) string {
	if v == 0 {
		return ""
	}
	return trimFloat(v) + unit
}

func optD(d time.Duration) string {
	if d == 0 {
		return ""
	}
	return d.String()
}

func optU(v uint64) string {
	if v == 0 {
		return ""
	}
	return strconv.FormatUint(v, 10)
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// configJSON is the plan as readable JSON: durations as "1.5s" rather than nanoseconds.
func configJSON(p plan.Plan) any {
	b, err := json.Marshal(p)
	if err != nil {
		return p
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return p
	}
	for _, sect := range []string{"load", "http"} {
		sm, _ := m[sect].(map[string]any)
		for k, v := range sm {
			if f, ok := v.(float64); ok && isDurationKey(k) {
				sm[k] = time.Duration(f).String()
			}
		}
	}
	return m
}

func isDurationKey(k string) bool {
	switch k {
	case "duration", "warmup", "grace", "interval", "send_slack", "timeout", "connect_timeout":
		return true
	}
	return false
}
