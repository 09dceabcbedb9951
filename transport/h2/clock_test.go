package h2

import (
	"testing"
	"time"
)

// A stream's timer is set once and left set between requests (streamClock). The next request on
// the stream still runs out of time at its own deadline: not at the earlier deadline the timer
// was set for, and not never. A timer that fires while no request runs tells nobody, and the
// next request sets it again.
func TestStreamClockAcrossRequests(t *testing.T) {
	t.Parallel()
	const timeout = 200 * time.Millisecond
	const bound = timeout + 5*time.Second // the test waits no longer than this for an expiry

	// waitExpired returns how long after since the timer told the stream, or fails.
	waitExpired := func(t *testing.T, st *stream, since time.Time, what string) time.Duration {
		t.Helper()
		select {
		case <-st.expired:
			return time.Since(since)
		case <-time.After(bound):
			t.Fatalf("%s: no expiry within %v of a %v timeout", what, bound, timeout)
			return 0
		}
	}

	t.Run("a later request keeps its own deadline", func(t *testing.T) {
		t.Parallel()
		st := newStream().(*stream)
		defer st.timer.Stop()
		st.begin(false, nil, timeout) // sets the timer for this request's deadline
		if !st.end() {
			t.Fatal("the first request ended after its deadline, at once")
		}
		time.Sleep(timeout / 2) // the second request begins half a timeout later
		begun := time.Now()
		st.begin(false, nil, timeout) // finds the timer set, for the first deadline
		if took := waitExpired(t, st, begun, "second request"); took < timeout {
			t.Errorf("the second request ran out of time %v after it began; want at least its timeout, %v", took, timeout)
		}
		if st.end() {
			t.Error("end reported the second request in time after its timer fired")
		}
	})

	t.Run("a timer firing between requests", func(t *testing.T) {
		t.Parallel()
		st := newStream().(*stream)
		defer st.timer.Stop()
		st.begin(false, nil, timeout)
		if !st.end() {
			t.Fatal("the first request ended after its deadline, at once")
		}
		select {
		case <-st.expired:
			t.Fatal("the timer told a stream that carries no request")
		case <-time.After(timeout + timeout/2): // the timer, set for the first deadline, has fired
		}
		begun := time.Now()
		st.begin(false, nil, timeout) // the timer is unset now: set again
		if took := waitExpired(t, st, begun, "next request"); took < timeout {
			t.Errorf("the next request ran out of time %v after it began; want at least %v", took, timeout)
		}
	})
}
