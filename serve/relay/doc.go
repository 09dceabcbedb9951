// Package relay is an RPC daemon in front of a node: an HTTP reverse proxy that forwards every
// request (a JSON-RPC call, a REST call) to one upstream and relays its answer, keeping a pool of
// connections to it. It is the second process of "the node alone against the node behind a daemon"
// comparisons: what the extra hop, its parsing and its scheduling cost, with each process's CPU
// measured apart.
//
// In the flow of rpcbench (plan → schedule → engine → transport → result → summary → report) it
// is not a stage but a target: like net/http/httptest it binds 127.0.0.1:0 unless told otherwise,
// tells its URL, and waits for requests in flight on Close. It imports nothing from the rest of
// rpcbench, so any test can use it.
package relay
