// Package summary folds what a run measured into a Summary: counts, status codes, error classes,
// latency and service-time percentiles from HDR histograms, in total and per endpoint, plus the
// notes a reader must see (a generator that fell behind, an interrupted run). A Summary is plain
// data that encodes to the JSON report (schema "rpcbench.report/v1") and keeps its histograms for
// the renderers.
//
// It sits after result in the flow plan → schedule → engine → transport → result → summary →
// report.
package summary
