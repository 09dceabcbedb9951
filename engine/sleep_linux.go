package engine

import (
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// preciseSleeper paces with nanosleep(2) on a thread of its own whose timer slack is 1 µs: the
// runtime's timers wake about 1 ms late on Linux, which would add a millisecond of send lag — and of
// latency, counted from the intended time — to every request. Waits longer than a few milliseconds
// still use a runtime timer, so that a stop is seen at once and no core is spun.
type preciseSleeper struct{}

type precisePacer struct{ timer timerPacer }

func (preciseSleeper) begin() pacer {
	runtime.LockOSThread()
	_ = unix.Prctl(unix.PR_SET_TIMERSLACK, 1000, 0, 0, 0) // best effort: without it, 50 µs slack
	return &precisePacer{}
}

func (p *precisePacer) end() {
	p.timer.end()
	// The thread stays locked: when the pacing goroutine exits, the runtime ends the thread, whose
	// timer slack we changed, instead of reusing it.
}

func (p *precisePacer) sleepUntil(t time.Time, stop <-chan struct{}) bool {
	for {
		d := time.Until(t)
		if d > coarse {
			if !p.timer.sleepUntil(t.Add(-coarse/2), stop) {
				return false
			}
			continue
		}
		if d <= 0 {
			return !stopped(stop)
		}
		ts := unix.NsecToTimespec(int64(d))
		_ = unix.Nanosleep(&ts, nil) // EINTR: the loop sleeps again for what is left
	}
}
