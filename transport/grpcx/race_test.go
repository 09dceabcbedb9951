//go:build race

package grpcx_test

// raceEnabled is true when the race detector is on: it allocates, so allocation counts are skipped.
const raceEnabled = true
