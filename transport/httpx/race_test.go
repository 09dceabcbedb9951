//go:build race

package httpx

// raceEnabled is true when the race detector is on: it allocates, so allocation counts are skipped.
const raceEnabled = true
