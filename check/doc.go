// Package check judges the answers that arrive: whether the status code is one that was expected,
// whether a JSON-RPC 2.0 answer is a result or an error and answers the request's id, and the
// user's own checks on the body (it contains a text, a JSON path exists or equals a value), as k6
// checks do. A Verifier gathers them and plugs into the engine (engine.WithVerifier); each failure
// is counted by name in the report.
//
// It sits between transport and result in the flow: it reads the result.Outcome a transport
// reports and returns a result.Class. Nothing in it runs unless a Verifier is given, so a run
// without checks pays nothing for them (the engine keeps answer bodies only for a Verifier).
package check
