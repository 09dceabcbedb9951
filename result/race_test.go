//go:build race

package result

// raceEnabled is true when the race detector is on.
const raceEnabled = true
