package report

import (
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
var Formats = []string{"text", "json", "csv", "markdown", "hgrm", "html"}

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
// answers/s, error rate, p50 and p99, with ratios. o.Labels name the runs; hgrm renders one run.
func Render(w io.Writer, runs []*summary.Summary, format string, o Options) error {
	if len(runs) == 0 {
		return errors.New("report: no runs to render")
	}
	for i, s := range runs {
		if s == nil {
			return fmt.Errorf("report: run %d is nil", i+1)
		}
	}
	switch format {
	case "text", "":
		return textRuns(w, runs, o)
	case "json":
		return jsonRuns(w, runs, o.Labels)
	case "csv":
		return CSV(w, runs, o.Labels)
	case "markdown":
		return MarkdownWith(w, runs, o.Labels, o)
	case "hgrm":
		if len(runs) != 1 {
			return &FormatError{format, fmt.Sprintf("renders one run, got %d", len(runs))}
		}
		return HGRM(w, runs[0])
	case "html":
		return HTMLWith(w, runs, o.Labels, o)
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
func jsonRuns(w io.Writer, runs []*summary.Summary, labels []string) error {
	if len(runs) == 1 {
		return JSON(w, runs[0])
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		Schema     string              `json:"schema"`
		Runs       []*summary.Summary  `json:"runs"`
		Comparison *compare.Comparison `json:"comparison"`
	}{CompareSchema, runs, compare.New(runs, labels)})
}

// textRuns writes each run's text report, under its label when there are several, then their
// comparison.
func textRuns(w io.Writer, runs []*summary.Summary, o Options) error {
	if len(runs) == 1 {
		return TextWith(w, runs[0], o)
	}
	c := compare.New(runs, o.Labels)
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
