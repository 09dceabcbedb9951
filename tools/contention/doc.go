// Package contention is the counter contention micro-benchmark: many goroutines add to one shared
// count through different counters — a sync.Mutex, an atomic.Int64, a sharded atomic counter, the
// same sharded counter with every shard on its own cache line, and a channel owned by one goroutine —
// and the package times each one and checks the final count.
//
// It sits beside the request flow rather than in it: it is a calibration of the machine, showing what
// contention on shared memory costs before any RPC is measured. All goroutines of a run start together
// from a barrier, so the timing covers contended work only, not goroutine start-up.
//
// Run is the entry point; the `rpcbench contention` command prints its results as a table.
package contention
