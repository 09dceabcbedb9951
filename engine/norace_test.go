//go:build !race

package engine

// raceEnabled is true when the race detector is on.
const raceEnabled = false
