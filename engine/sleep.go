package engine

import "time"

// sleeper makes the pacer that waits for due times. The pacer runs on one goroutine.
type sleeper interface{ begin() pacer }

type pacer interface {
	// sleepUntil waits until t, or until stop is closed (then it returns false).
	sleepUntil(t time.Time, stop <-chan struct{}) bool
	end()
}

// coarse is how far ahead of a due time the pacer hands over from the runtime's timers, which on
// Linux wake up to a millisecond late, to a precise sleep.
const coarse = 2 * time.Millisecond

// timerPacer waits with the runtime's timers only. It is the fallback where no precise sleep exists,
// and what tests use under testing/synctest, whose fake clock drives timers.
type timerPacer struct{ t *time.Timer }

type timerSleeper struct{}

func (timerSleeper) begin() pacer { return &timerPacer{} }

func (p *timerPacer) sleepUntil(t time.Time, stop <-chan struct{}) bool {
	d := time.Until(t)
	if d <= 0 {
		return !stopped(stop)
	}
	if p.t == nil {
		p.t = time.NewTimer(d)
	} else {
		p.t.Reset(d)
	}
	select {
	case <-p.t.C:
		return !stopped(stop) // both ready: select may pick either, and a stop wins
	case <-stop:
		return false
	}
}

func (p *timerPacer) end() {
	if p.t != nil {
		p.t.Stop()
	}
}

// stopped says whether stop is closed, without waiting.
func stopped(stop <-chan struct{}) bool {
	select {
	case <-stop:
		return true
	default:
		return false
	}
}
