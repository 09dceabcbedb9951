// Package output holds the sinks a run's figures flow into while it runs: the result file, the
// JSON lines of --live, the per-request CSV log, the progress line on a terminal, and the reports
// saved when the run ends. It sits after the engine in the flow: a runner (package runner) starts
// each Output before the first request, hands it every interval as the engine ticks, and stops it
// with the run's result and summary. A Go user adds an output by writing the three methods of
// Output and passing it in runner.Options.Outputs — the engine does not change.
package output
