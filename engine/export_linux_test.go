//go:build linux

package engine

// What the external tests of this package use of its internal ones.

// StartOnCPU is startOnCPU.
var StartOnCPU = startOnCPU

// RaceEnabled is true when the race detector is on.
const RaceEnabled = raceEnabled
