// Package diff sends each request of a corpus to several servers and compares their answers
// with jsondiff: the answers of every server against the first's, or, for fixtures that carry
// their expected answers (the .io format of Ethereum's execution-apis: ">> request",
// "<< answer"), every server's answer against the expected one. It keeps, per request, the
// answers, their status and latency, and the differences; per method, how many requests were
// equal, different or failed on each side; per server, the latency of its answers.
//
// It sits beside engine in the flow: plan says what to send (targets, calls, templates), diff
// sends it through the transports (one per server, by protocol) and judges the answers, the way
// engine sends a plan for load; internal/cli maps the diff command's flags onto a Config and
// writes the Report. A Run is bounded by its corpus and its context.
package diff
