// Package bench runs a plan file (plan.Bench): every scenario against every target, the targets
// taking turns step by step (step 1 on A, step 1 on B, step 2 on A, …) so that the drift of a shared
// machine falls on each alike. It starts the targets' commands and waits until they answer, stops
// them afterwards — also when the context is cancelled — runs command scenarios (an end-to-end
// suite with the target's URL in its environment, its `go test -json` output counted; its build
// first, timed apart, and its rounds each in the reverse order of the one before) and capacity
// searches (package capacity, against each target in turn), watches each target's resources during
// every load run against it (monitor.Watch over what the target's monitor: names, its started
// command by default, and the generator itself), and renders the comparison: per scenario and
// step, the targets side by side through report.Render, their resources compared in words ("11×
// less memory"), the capacity searches side by side — in text, Markdown, JSON and HTML.
//
// It sits above engine in the flow plan → schedule → engine → … → report: it turns a plan file
// into engine runs and their summaries into one report. It has no signal handler and writes no
// file of its own beyond the logs of the commands it starts (Options.LogDir); the result files are
// the caller's, through Options.Observe.
package bench
