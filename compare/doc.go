// Package compare sets several runs side by side: their inputs (load model, rate, connections,
// stages, length) as the setting, never judged, with a note when they differ; and for each figure a
// reader compares (throughput, error rate, latency percentiles, send lag) every run's value, its
// ratio to the first run and whether that is better or worse, phrased the way published
// comparisons do ("3.2× more requests/s", "0.5× the p99"). Only outcomes are judged: in the open
// model the rate is asked for, so throughput is shown but not judged, and achieved/intended (the
// share of its own intended rate a run achieved) is. When some run has several endpoints it compares them one by one
// too, matched by name: each endpoint's answers/s, error rate, p50 and p99.
//
// It sits at the end of the flow plan → schedule → engine → transport → result → summary → report:
// it reads Summaries and is consumed by report, which renders the comparison in every format that
// shows several runs.
package compare
