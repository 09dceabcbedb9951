//go:build race

package replay

// raceEnabled is true when the race detector is on.
const raceEnabled = true
