package report

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"math"
	"strconv"
	"time"

	_ "embed"

	"github.com/rpcbench/rpcbench/report/style"
)

//go:embed assets/plot.tmpl
var plotTmpl string

var plotTemplate = template.Must(template.New("plot").Parse(plotTmpl))

// PlotRun is one run's requests as a per-request log (run --log) holds them, for Plot.
type PlotRun struct {
	// Label names the run in the page (its file's name, say).
	Label string
	// Start is the earliest intended send time of its requests: the origin of its time axis.
	Start time.Time
	// OK and Errors are the requests that succeeded and failed, each sent at At (seconds after
	// Start) with its service time Ms (from the send to the answer's last byte).
	OK, Errors []PlotPoint
	// Unsent counts the requests that failed before sending: they have no service time.
	Unsent int
}

// PlotPoint is one request: when it was sent and its service time.
type PlotPoint struct {
	At, Ms float64
}

// ErrEmptyLog is what ReadRequestLog returns (wrapped, with the log's name) for a log with no
// request: its header only.
var ErrEmptyLog = errors.New("no requests: the log holds its header only")

// ReadRequestLog reads a per-request log (run --log: id, endpoint, intended, sent, latency_ms,
// service_ms, status, class) into a PlotRun labelled name. A bad header or row is an error naming
// name and the row's line; a log without rows is ErrEmptyLog.
func ReadRequestLog(name string, r io.Reader) (PlotRun, error) {
	run := PlotRun{Label: name}
	c := csv.NewReader(r)
	c.ReuseRecord = true
	head, err := c.Read()
	if err != nil || len(head) < 8 || head[2] != "intended" || head[3] != "sent" || head[5] != "service_ms" || head[7] != "class" {
		return run, fmt.Errorf("%s:1: want the header of a per-request log (run --log): id,endpoint,intended,sent,latency_ms,service_ms,status,class", name)
	}
	type row struct {
		sent time.Time
		ms   float64
		ok   bool
	}
	var rows []row
	for {
		rec, err := c.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			return run, fmt.Errorf("%s:%d: %v", name, pe.Line, pe.Err)
		}
		if err != nil {
			return run, fmt.Errorf("%s: %w", name, err)
		}
		line, _ := c.FieldPos(0)
		intended, err := time.Parse(time.RFC3339Nano, rec[2])
		if err != nil {
			return run, fmt.Errorf("%s:%d: intended %q: want an RFC 3339 time", name, line, clipText(rec[2]))
		}
		if run.Start.IsZero() || intended.Before(run.Start) {
			run.Start = intended
		}
		if rec[3] == "" { // failed before sending
			run.Unsent++
			continue
		}
		sent, err := time.Parse(time.RFC3339Nano, rec[3])
		if err != nil {
			return run, fmt.Errorf("%s:%d: sent %q: want an RFC 3339 time, or nothing for a request that failed before sending", name, line, clipText(rec[3]))
		}
		ms, err := strconv.ParseFloat(rec[5], 64)
		if err != nil || !(ms >= 0) || math.IsInf(ms, 0) {
			return run, fmt.Errorf("%s:%d: service_ms %q: want milliseconds, 0 or more", name, line, clipText(rec[5]))
		}
		rows = append(rows, row{sent, ms, rec[7] == "ok"})
	}
	for _, r := range rows {
		p := PlotPoint{At: r.sent.Sub(run.Start).Seconds(), Ms: r.ms}
		if r.ok {
			run.OK = append(run.OK, p)
		} else {
			run.Errors = append(run.Errors, p)
		}
	}
	if len(rows) == 0 && run.Unsent == 0 {
		return run, fmt.Errorf("%s: %w", name, ErrEmptyLog)
	}
	return run, nil
}

// clipText cuts a value quoted in a message to 40 bytes.
func clipText(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// PlotMaxPoints is the most points Plot draws of one series (a run's OK or failed requests); a
// series with more is thinned to the lowest and the highest of each of PlotMaxPoints/2 equal
// slices of its time, so that spikes stay.
const PlotMaxPoints = 4000

// thin returns at most PlotMaxPoints of ps (in time order): all of them when there are no more,
// else the lowest and the highest service time of each slice of time.
func thin(ps []PlotPoint) []PlotPoint {
	if len(ps) <= PlotMaxPoints {
		return ps
	}
	first, last := ps[0].At, ps[0].At
	for _, p := range ps {
		first, last = min(first, p.At), max(last, p.At)
	}
	slices := PlotMaxPoints / 2
	lo, hi := make([]int, slices), make([]int, slices)
	for i := range lo {
		lo[i], hi[i] = -1, -1
	}
	width := (last - first) / float64(slices)
	for i, p := range ps {
		k := slices - 1
		if width > 0 {
			k = min(int((p.At-first)/width), slices-1)
		}
		if lo[k] < 0 || p.Ms < ps[lo[k]].Ms {
			lo[k] = i
		}
		if hi[k] < 0 || p.Ms > ps[hi[k]].Ms {
			hi[k] = i
		}
	}
	var out []PlotPoint
	for k := range slices {
		if lo[k] >= 0 {
			out = append(out, ps[lo[k]])
		}
		if hi[k] >= 0 && hi[k] != lo[k] {
			out = append(out, ps[hi[k]])
		}
	}
	return out
}

type plotSeries struct {
	Label string    `json:"label"`
	Color string    `json:"color"`
	At    []float64 `json:"at"`
	Ms    []float64 `json:"ms"`
}

type plotRunView struct {
	Label, Start         string
	OK, Errors, Unsent   int
	DrawnOK, DrawnErrors int
}

type plotPage struct {
	Title, Version  string
	Runs            []plotRunView
	Thinned         bool
	MaxPoints       int
	Data            template.JS
	LibJS           template.JS
	LibCSS, PageCSS template.CSS
}

// plotColors are the runs' colours: OK, then failed.
var plotColors = [][2]string{{"#1f77b4", "#d62728"}, {"#2ca02c", "#ff7f0e"}, {"#9467bd", "#e377c2"}, {"#17becf", "#8c564b"}}

// Plot writes runs as one self-contained HTML page, as vegeta plot does: the service time of each
// request (from its send to its answer's last byte) at the time it was sent, one series of points
// for each run's requests that succeeded and one for those that failed, each run's time from its
// own start. The chart library (uPlot), styles and data are inlined. A series of more than
// PlotMaxPoints points is thinned (see thin), which the page says.
func Plot(w io.Writer, runs []PlotRun, title, version string) error {
	if len(runs) == 0 {
		return errors.New("report: plot: no runs")
	}
	p := plotPage{Title: title, Version: version, MaxPoints: PlotMaxPoints}
	var series []plotSeries
	for i, r := range runs {
		c := plotColors[i%len(plotColors)]
		ok, bad := thin(r.OK), thin(r.Errors)
		p.Thinned = p.Thinned || len(ok) < len(r.OK) || len(bad) < len(r.Errors)
		p.Runs = append(p.Runs, plotRunView{Label: r.Label, Start: r.Start.UTC().Format("2006-01-02 15:04:05.000 UTC"),
			OK: len(r.OK), Errors: len(r.Errors), Unsent: r.Unsent, DrawnOK: len(ok), DrawnErrors: len(bad)})
		for j, ps := range [][]PlotPoint{ok, bad} {
			s := plotSeries{Label: r.Label + [2]string{": OK", ": errors"}[j], Color: c[j], At: []float64{}, Ms: []float64{}}
			for _, pt := range ps {
				s.At, s.Ms = append(s.At, pt.At), append(s.Ms, pt.Ms)
			}
			series = append(series, s)
		}
	}
	data, err := json.Marshal(series)
	if err != nil {
		return fmt.Errorf("report: plot: %w", err)
	}
	p.Data = template.JS(data)
	p.LibJS = template.JS("/*! uPlot, inlined; its licence:\n\n" + uplotLicense + "*/\n" + uplotJS)
	p.LibCSS, p.PageCSS = template.CSS(uplotCSS), template.CSS(style.CSS)
	return plotTemplate.Execute(w, p)
}
