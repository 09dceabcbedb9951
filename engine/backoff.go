package engine

import "time"

// The closed model's back-off after a failed connection.
const (
	backoffMin = time.Millisecond // the first wait
	backoffMax = time.Second      // the longest
)

// backoff is one closed-model connection's wait after connection failures: a connection that
// cannot be made (refused, a name that does not resolve, a failed TLS handshake, a connect timeout)
// waits backoffMin before its next request, twice as long after each further failure in a row, up
// to backoffMax; a request that gets a connection resets it. Without it a closed model against a
// server that is down makes tens of thousands of connects (or DNS queries) a second. The zero
// value is ready. Not safe for concurrent use.
type backoff struct {
	next  time.Duration
	timer *time.Timer
}

// reset forgets the failures: the next wait is backoffMin again.
func (b *backoff) reset() { b.next = 0 }

// wait waits for the next back-off, and doubles the one after it, unless stop is closed first:
// then it returns at once. It returns how long it waited and whether that was the whole wait.
func (b *backoff) wait(stop <-chan struct{}) (waited time.Duration, full bool) {
	d := b.delay()
	if stopped(stop) {
		return 0, false
	}
	if b.timer == nil {
		b.timer = time.NewTimer(d)
	} else {
		b.timer.Reset(d)
	}
	start := time.Now()
	select {
	case <-stop:
	case <-b.timer.C:
		full = true
	}
	return time.Since(start), full
}

// delay returns the next back-off, and doubles the one after it.
func (b *backoff) delay() time.Duration {
	d := max(b.next, backoffMin)
	b.next = min(2*d, backoffMax)
	return d
}

// close releases the timer.
func (b *backoff) close() {
	if b.timer != nil {
		b.timer.Stop()
	}
}
