// Package result holds what happened during a run: the vocabulary of outcomes (error classes; the
// protocols and their status words, Proto; a Request and its Outcome, with the RequestHeader and
// TLSFiles they carry, which package transport names by aliases), the per-interval record
// (histograms and counters per endpoint), the Recorder that fills intervals from many senders at
// once and hands out one merged Interval per tick, and the result file: a versioned, streaming,
// crash-safe JSON Lines record of a run (Writer, Reader, ReadFile) whose files merge exactly
// (ReadMerged, Merge).
//
// It sits after transport in the flow plan → schedule → engine → transport → result → summary →
// report, and imports nothing from the project, so every other package can use its types: summary,
// compare and report read protocols and statuses here and import no transport.
//
// Latencies are kept in HDR histograms in microseconds, from 1 µs to 1 h at 3 significant digits;
// their memory is fixed when they are made, so a Recorder's memory does not grow with the run.
package result
