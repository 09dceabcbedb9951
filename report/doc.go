// Package report renders Summaries: a text report for people at a terminal, the JSON report
// (schema "rpcbench.report/v1") for scripts, CSV time series, Markdown tables (several runs side by
// side with ratios), HdrHistogram's percentile distribution (hgrm) and interval log (hlog), and one
// self-contained HTML page with charts. Rendering is kept apart from the data: every renderer takes
// Summaries (or intervals, for hlog) and an io.Writer.
//
// It is the last step of the flow plan → schedule → engine → transport → result → summary →
// report.
package report
