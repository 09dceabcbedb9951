// Package gobench reads the output of `go test -bench` (with or without -benchmem) and summarises
// it as benchstat does, so that micro-benchmarks of the code under load can be reported beside the
// load runs: one table per unit (sec/op, B/op, allocs/op, any custom unit), a row per benchmark,
// a column per file with the median and its confidence interval, and for every file after the
// first its change against the first with the p-value of a significance test, or "~" when the
// change is not significant.
//
// Parsing is golang.org/x/perf's benchfmt (the Go benchmark format, with its configuration lines
// and unit metadata); the statistics are its benchmath (the median, its confidence interval and the
// Mann-Whitney U-test, unless a unit's metadata says assume=exact); numbers are scaled with
// benchunit. Rendering lives in package report (GoBench), so this package only holds data.
//
// It sits beside the flow plan → schedule → engine → transport → result → summary → report as a
// second source for report, and imports nothing from the project.
package gobench
