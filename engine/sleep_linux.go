package engine

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// preciseSleeper paces with a timerfd(2) read through the runtime's network poller. The runtime's
// own timers wake up to a millisecond late on Linux (the poller's wait is in whole milliseconds),
// which would add a millisecond of send lag — and of latency, counted from the intended time — to
// every request. A timerfd fires on a high-resolution kernel timer with no slack, and because the
// pacer waits for it in the poller, like for a socket, it holds no thread and no P while it waits:
// the same epoll wait that wakes the pacer also delivers the answers that arrived meanwhile.
//
// A blocking sleep (nanosleep on a locked thread, what this replaced) is precise too, but it holds
// the only P when GOMAXPROCS is 1 — one CPU, as in a container with a one-CPU limit or under
// taskset — so answers sat unread until the runtime's monitor took the P back, 10–20 ms later, and
// every latency was inflated by that much.
//
// Waits longer than a few milliseconds use a runtime timer, so that a stop is seen at once; the
// timerfd takes the last stretch. Where a timerfd cannot be made, the pacer falls back to the
// runtime's timers.
type preciseSleeper struct{}

type precisePacer struct {
	timer timerPacer
	f     *os.File // the timerfd, in the poller; nil: runtime timers only
	fd    int
	buf   [8]byte
	spec  unix.ItimerSpec
}

func (preciseSleeper) begin() pacer {
	p := &precisePacer{}
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return &p.timer
	}
	p.f, p.fd = os.NewFile(uintptr(fd), "timerfd"), fd
	return p
}

func (p *precisePacer) end() {
	p.timer.end()
	if p.f != nil {
		_ = p.f.Close()
	}
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
		if !p.wait(d) {
			// The timerfd failed (it should not): finish with the runtime's timers.
			return p.timer.sleepUntil(t, stop)
		}
	}
}

// wait arms the timerfd to fire after d and reads it: the goroutine parks in the poller until then.
func (p *precisePacer) wait(d time.Duration) bool {
	p.spec.Value = unix.NsecToTimespec(int64(d))
	if err := unix.TimerfdSettime(p.fd, 0, &p.spec, nil); err != nil {
		return false
	}
	_, err := p.f.Read(p.buf[:]) // EAGAIN parks in the poller; EINTR is retried by os
	return err == nil
}
