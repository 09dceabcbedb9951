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
// It sits beside engine in the flow: plan says what to send (targets, calls, templates), diff
// sends it through the transports (one per server, by protocol) and judges the answers, the way
// engine sends a plan for load; internal/cli maps the diff command's flags onto a Config and
// writes the Report. A Run is bounded by its corpus and its context.
package diff
