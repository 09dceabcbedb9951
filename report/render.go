package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/rpcbench/rpcbench/compare"
	"github.com/rpcbench/rpcbench/summary"
)

// Formats are the formats Render writes. (hlog, HdrHistogram's interval log, needs a result
// file's intervals rather than a Summary: see NewHLog.)
var Formats = []string{"text", "json", "csv", "markdown", "hgrm", "html", "vegeta"}

// FormatError says a format cannot render what it was given: a format Render does not know, or
// one that renders one run given several.
type FormatError struct {
	Format string
	Reason string // "renders one run, got 2"
}

func (e *FormatError) Error() string { return "report: format " + e.Format + ": " + e.Reason }

// Render writes runs in format, one of Formats ("" is text). It is the one place that decides
// what a format shows. One run gets its report; several runs get each run's figures and, in every
// format that shows several (text, json, csv, markdown, html), their comparison with the first
// run (see compare.New): the totals and, when a run has several endpoints, each endpoint's
// answers/s, error rate, p50 and p99, with ratios. o.Labels name the runs; hgrm and vegeta (vegeta's
// text report's layout, see Vegeta) render one run.
func Render(w io.Writer, runs []*summary.Summary, format string, o Options) error {
	if len(runs) == 0 {
		return errors.New("report: no runs to render")
	}
	for i, s := range runs {
		if s == nil {
			return fmt.Errorf("report: run %d is nil", i+1)
		}
	}
	if err := aloneFormat(runs, format); err != nil {
		return err
	}
	warn := runWarnings(runs, o.Labels)
	switch format {
	case "text", "":
		for _, s := range warn {
			fmt.Fprintf(w, "WARNING: %s\n", s)
		}
		if len(warn) > 0 {
			io.WriteString(w, "\n")
		}
		return textRuns(w, runs, o)
	case "json":
		return jsonRuns(w, runs, o) // each run's warnings are in its report
	case "csv":
		if len(warn) > 0 {
			return csvWarned(w, runs, o.Labels)
		}
		return CSV(w, runs, o.Labels)
	case "markdown":
		for _, s := range warn {
			fmt.Fprintf(w, "> **WARNING**: %s\n\n", mdCell(s))
		}
		return MarkdownWith(w, runs, o.Labels, o)
	case "hgrm":
		if len(runs) != 1 {
			return &FormatError{format, fmt.Sprintf("renders one run, got %d", len(runs))}
		}
		if err := HGRM(w, runs[0]); err != nil {
			return err
		}
		for _, s := range warn { // after the footer, in its #[…] form, where readers of the table look no further
			if _, err := fmt.Fprintf(w, "#[WARNING: %s]\n", oneLine(s)); err != nil {
				return err
			}
		}
		return nil
	case "html":
		return HTMLWith(w, runs, o.Labels, o)
	case "vegeta":
		if len(runs) != 1 {
			return &FormatError{format, fmt.Sprintf("renders one run, got %d", len(runs))}
		}
		for _, s := range warn { // before the layout, whose lines readers parse
			if _, err := fmt.Fprintf(w, "WARNING: %s\n", oneLine(s)); err != nil {
				return err
			}
		}
		return Vegeta(w, runs[0])
	case "hlog":
		return &FormatError{format, "needs a result file's intervals, not a summary (see NewHLog)"}
	}
	return &FormatError{format, "unknown; want one of " + strings.Join(Formats, ", ")}
}

// FormatForPath picks the format a file's extension names: .json, .csv, .md or .markdown, .hgrm,
// .html or .htm; text when it names none of them.
func FormatForPath(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".json":
		return "json"
	case ".csv":
		return "csv"
	case ".md", ".markdown":
		return "markdown"
	case ".hgrm":
		return "hgrm"
	case ".html", ".htm":
		return "html"
	}
	return "text"
}

// CompareSchema names the JSON of several runs and its version.
const CompareSchema = "rpcbench.comparison/v1"

// jsonRuns writes one run as its JSON report (schema rpcbench.report/v1), several as one object:
// the schema, each run's report and their comparison.
func jsonRuns(w io.Writer, runs []*summary.Summary, o Options) error {
	if len(runs) == 1 {
		return JSON(w, runs[0])
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		Schema     string              `json:"schema"`
		Runs       []*summary.Summary  `json:"runs"`
		Comparison *compare.Comparison `json:"comparison"`
	}{CompareSchema, runs, compare.NewStats(runs, o.Labels, o.Stats)})
}

// textRuns writes each run's text report, under its label when there are several, then their
// comparison.
func textRuns(w io.Writer, runs []*summary.Summary, o Options) error {
	if len(runs) == 1 {
		return TextWith(w, runs[0], o)
	}
	c := compare.NewStats(runs, o.Labels, o.Stats)
	for i, s := range runs {
		if i > 0 {
			io.WriteString(w, "\n")
		}
		fmt.Fprintf(w, "══ %s ══\n", c.Labels[i])
		if err := TextWith(w, s, o); err != nil {
			return err
		}
	}
	b := &strings.Builder{}
	textCompare(b, c)
	_, err := io.WriteString(w, b.String())
	return err
}

// runWarnings returns the warnings of the runs (summary.Summary.Warnings), each after its run's
// label when there are several.
func runWarnings(runs []*summary.Summary, labels []string) []string {
	var out []string
	for i, s := range runs {
		for _, m := range s.Warnings {
			if len(runs) > 1 {
				m = compare.New(runs, labels).Labels[i] + ": " + m
			}
			out = append(out, m)
		}
	}
	return out
}

// oneLine returns s with its line breaks made spaces, for formats of one line per item.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// csvWarned writes CSV with one more column, warning, last: on each row, the warnings of the row's
// run (summary.Summary.Warnings) joined by " | ", so that a program reading the rows cannot miss that
// their figures cannot all be true.
func csvWarned(w io.Writer, runs []*summary.Summary, labels []string) error {
	var b bytes.Buffer
	if err := CSV(&b, runs, labels); err != nil {
		return err
	}
	names := compare.New(runs, labels).Labels
	byRun := map[string]string{}
	for i, s := range runs {
		byRun[names[i]] = strings.Join(s.Warnings, " | ")
	}
	r := csv.NewReader(&b)
	r.FieldsPerRecord = -1
	rows, err := r.ReadAll()
	if err != nil {
		return err
	}
	cw := csv.NewWriter(w)
	for i, row := range rows {
		if i == 0 {
			row = append(row, "warning")
		} else {
			row = append(row, byRun[row[0]])
		}
		cw.Write(row)
	}
	cw.Flush()
	return cw.Error()
}
