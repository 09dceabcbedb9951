package output

import (
	"io"

	"github.com/rpcbench/rpcbench/engine"
	"github.com/rpcbench/rpcbench/summary"
)

// ReportFile saves a report of the run when it ends (the text, JSON or HTML report, say), through
// WriteFile: a half-written report never replaces a good one.
type ReportFile struct {
	name, path string
	render     func(io.Writer, *summary.Summary) error
}

// NewReportFile returns the output that saves render's report of the run at path when it ends;
// name is its name in messages (--report-file, --html).
func NewReportFile(name, path string, render func(io.Writer, *summary.Summary) error) *ReportFile {
	return &ReportFile{name: name, path: path, render: render}
}

// Name says which output it is.
func (r *ReportFile) Name() string { return r.name }

// Start does nothing: the report is written at the end.
func (r *ReportFile) Start(Run) error { return nil }

// Tick does nothing.
func (r *ReportFile) Tick(*engine.Tick) {}

// Stop writes the report of s; with s nil (the run did not happen) it writes nothing.
func (r *ReportFile) Stop(_ *engine.Result, s *summary.Summary) error {
	if s == nil {
		return nil
	}
	return WriteFile(r.path, func(w io.Writer) error { return r.render(w, s) })
}

var _ Output = (*ReportFile)(nil)
