//go:build !race

package faults_test

// raceSlack is added to slack under the race detector, which slows every goroutine several times.
const raceSlack = 0
