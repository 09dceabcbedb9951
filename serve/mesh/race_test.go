//go:build race

package mesh

// raceEnabled: the race detector slows every goroutine hand-off several times, so the deep chains
// of the unit tests are shorter under it.
const raceEnabled = true
