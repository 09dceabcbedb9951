// Package lab is a calibration service: an HTTP/1.1 server whose behaviour is set by knobs and
// whose timing is known in advance, so that a load generator's figures can be checked against the
// truth.
//
// Each request waits a service time (fixed, drawn from a distribution, or both added), is frozen
// by periodic stalls like a process in a stop-the-world pause, and then is answered 200 with a body
// of a set size, answered 500, or has its connection reset, in proportions set by the config. The
// random draws of the n-th request depend only on the seed and n (see Server.Draw), and the stall
// schedule is a pure function of the start time (see Schedule), so a test can compute when every
// request should have been answered.
//
// In the flow of rpcbench (plan → schedule → engine → transport → result → summary → report) it
// is not a stage but a target: like net/http/httptest it binds 127.0.0.1:0, tells its URL, and
// waits for requests in flight on Close. It imports nothing from the rest of rpcbench, so any
// test can use it.
package lab
