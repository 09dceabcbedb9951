// Package diff sends each request of a corpus to several servers and compares their answers
// with jsondiff: the answers of every server against the first's, or, for fixtures that carry
// their expected answers (the .io format of Ethereum's execution-apis: ">> request",
// "<< answer"), every server's answer against the expected one. It keeps, per request, the
// answers, their status and latency, and the differences; per method, how many requests were
// equal, different or failed on each side; per server, the latency of its answers, overall and
// per method.
//
// Answers that differ by nature (timestamps, peer counts, "latest" moving between two requests)
// are told from real differences as Twitter's Diffy does: Config.Reference is a second instance
// of the first server, and a path (array indexes as [*]) where the two differ in a share of a
// method's requests is noise for that method, reported apart (Report.Noise) and not counted
// against the others. PinBlock sends every server one block number in place of "latest",
// "pending" or an omitted block, the first server's head; SkipAboveHead skips the requests whose
// block some server has not reached. ErrorRules compare a method's JSON-RPC errors by code or by
// presence only, and jsondiff's tolerances let numbers differ within a bound.
//
// A diff is a run like any other: Prepare makes a plan of the corpus (its endpoints under the
// first server's URL, its load the caller's) and Run runs it through runner.Run, the engine drawing
// each request from the corpus's source on its schedule (rate, stages, connections, duration,
// warm-up) and a transport of its own (fanout) sending it to every server at once and comparing
// the answers; the outputs of the run (its result file, live lines) receive it as any run's.
// internal/cli maps the diff command's flags, or a plan file's diff: section, onto a Config, a
// Corpus and a load, and writes the Report.
package diff
