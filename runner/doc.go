// Package runner runs one prepared plan end to end: its setup phase, then the load with its
// outputs (package output) and its watchers (the target's resources, its profiles) around it, then
// the run's summary with everything watched folded in. Every command that sends load goes through
// Run — `rpcbench run`, each run of a plan file (`bench`), each step of a capacity search, the
// Kubernetes pods (which are `run`) — so that stages, resources, redaction and result files happen
// once, the same way for all. It sits after the engine and the outputs in the flow, and is the one
// package that imports both.
package runner
