//go:build !linux

package engine

// preciseSleeper falls back to the runtime's timers where no precise sleep is wired up.
type preciseSleeper = timerSleeper
