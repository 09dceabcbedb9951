package engine

import (
	"os"
	"syscall"
	"time"
	"unsafe"

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
	rc    syscall.RawConn
	armed bool // wait's fired has armed the timer and waits for it to fire
	err   error
	spec  unix.ItimerSpec
	buf   [8]byte
	fired func(fd uintptr) bool // made once: a method value allocates
}

func (preciseSleeper) begin() pacer {
	p := &precisePacer{}
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return &p.timer
	}
	p.f = os.NewFile(uintptr(fd), "timerfd")
	if p.rc, err = p.f.SyscallConn(); err != nil {
		_ = p.f.Close()
		return &p.timer
	}
	p.fired = p.onReadable
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

// wait arms the timerfd to fire after d and parks in the poller until it has: two system calls
// besides the poller's wait (arm, and a read to clear it once it fired).
func (p *precisePacer) wait(d time.Duration) bool {
	p.spec.Value = unix.NsecToTimespec(int64(d))
	p.armed, p.err = false, nil
	if err := p.rc.Read(p.fired); err != nil || p.err != nil {
		return false
	}
	return true
}

// onReadable is called by the poller's read loop: first to arm the timer (after the poller has
// cleared any earlier readiness, so that the firing cannot be missed), then each time the timerfd
// is readable, until a read has cleared it.
func (p *precisePacer) onReadable(fd uintptr) bool {
	if !p.armed {
		p.armed = true
		if _, _, e := unix.RawSyscall6(unix.SYS_TIMERFD_SETTIME, fd, 0, uintptr(unsafe.Pointer(&p.spec)), 0, 0, 0); e != 0 {
			p.err = e
			return true
		}
		return false
	}
	_, _, e := unix.RawSyscall(unix.SYS_READ, fd, uintptr(unsafe.Pointer(&p.buf[0])), uintptr(len(p.buf)))
	switch e {
	case 0:
		return true
	case unix.EAGAIN, unix.EINTR:
		return false // not fired yet: wait again
	}
	p.err = e
	return true
}
