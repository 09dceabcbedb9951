// Package report renders Summaries: a text report for people at a terminal and the JSON report
// (schema "rpcbench.report/v1") for scripts. Rendering is kept apart from the data: every renderer
// takes a *summary.Summary and an io.Writer.
//
// It is the last step of the flow plan → schedule → engine → transport → result → summary →
// report.
package report
