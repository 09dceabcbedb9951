package result

import (
	"fmt"
	"math/bits"
	"strings"
)

// The identities every result file the Recorder and the engine write holds, and which the Reader
// checks (a file that breaks one was edited, damaged or made by something else, and its figures
// cannot all be true). Each request the Recorder counts is either sent or failed before sending,
// and either ok or failed in one class, in the interval it finished in; so for every endpoint of
// every interval:
//
//   - ok + failed = sent + unsent (failed: every class of Errors added up);
//   - completed ≤ sent (an answer comes only to a request sent; unsent requests have none);
//   - ok ≤ completed (a request counts as ok only once its answer arrived);
//   - the status codes add up to at most completed (only answers have one);
//   - the latency histogram counts sent + unsent values, the service-time histogram sent ones.
//
// Requests count where they finished, and the arrivals due in an interval where they fell due, so
// an interval may well finish more requests than fell due in it. What holds is that every request
// made had fallen due: the requests finished by the end of an interval had fallen due by the end of
// the next (the interval is closed a moment after the tick its arrivals are counted at), and all
// the requests of a finished run had fallen due by its end — at most the trailer's intended. A file
// cut short has no trailer, and its last interval nothing after it to check against.

// maxContradictions bounds the contradictions a Reader keeps: a damaged file breaks them on every
// line, and a reader needs the first few.
const maxContradictions = 20

// checker follows a file's intervals as they are read, for the identities above.
type checker struct {
	found   []string
	more    int    // contradictions beyond maxContradictions, counted only
	made    uint64 // requests made (sent or not) by the end of the intervals read
	due     uint64 // arrivals due by the end of the intervals read
	overrun bool   // made or due no longer fit in a uint64
}

func (c *checker) addf(format string, a ...any) {
	if len(c.found) >= maxContradictions {
		c.more++
		return
	}
	c.found = append(c.found, fmt.Sprintf(format, a...))
}

// interval checks iv, the n-th interval (from 1), read at line of file name with the header's
// endpoint names. It formats nothing unless it finds a contradiction: it runs on every line read.
func (c *checker) interval(name string, line, n int, names []string, iv *Interval) {
	where := func() string { return fmt.Sprintf("%s:%d: interval %d (%v–%v)", name, line, n, iv.Start, iv.End) }
	var made uint64
	overflow := false
	add := func(a, b uint64) uint64 {
		s, carry := bits.Add64(a, b, 0)
		overflow = overflow || carry != 0
		return s
	}
	for i, e := range iv.Endpoints {
		at := func() string {
			if i < len(names) {
				return fmt.Sprintf("%s, endpoint %q", where(), names[i])
			}
			return fmt.Sprintf("%s, endpoint %d", where(), i)
		}
		overflow = false
		failed := uint64(0)
		for _, v := range e.Errors {
			failed = add(failed, v)
		}
		judged, attempted := add(e.OK, failed), add(e.Sent, e.Unsent)
		made = add(made, attempted)
		if overflow {
			c.addf("%s: the counts add up past %d", at(), uint64(1<<64-1))
			c.overrun = true
			continue
		}
		if judged != attempted {
			c.addf("%s: ok %d + failed %d = %d, but sent %d + failed before sending %d = %d: every request made is either ok or failed",
				at(), e.OK, failed, judged, e.Sent, e.Unsent, attempted)
		}
		if e.Completed > e.Sent {
			c.addf("%s: completed %d > sent %d: only a request sent gets an answer", at(), e.Completed, e.Sent)
		}
		if e.OK > e.Completed {
			c.addf("%s: ok %d > completed %d: a request is ok only once answered", at(), e.OK, e.Completed)
		}
		var status uint64
		for _, v := range e.Status {
			status = add(status, v)
		}
		if overflow || status > e.Completed {
			c.addf("%s: answers counted %d times by status > completed %d: only an answer has a status", at(), status, e.Completed)
		}
		if n := uint64(e.Latency.TotalCount()); n != attempted {
			c.addf("%s: %d latencies for %d requests made (sent %d + failed before sending %d): each has one", at(), n, attempted, e.Sent, e.Unsent)
		}
		if n := uint64(e.Service.TotalCount()); n != e.Sent {
			c.addf("%s: %d service times for %d requests sent: each has one", at(), n, e.Sent)
		}
	}
	if c.overrun {
		return
	}
	overflow = false
	due := add(c.due, iv.Intended)
	total := add(c.made, made)
	if overflow {
		c.addf("%s: the run's counts add up past %d", where(), uint64(1<<64-1))
		c.overrun = true
		return
	}
	if c.made > due {
		c.addf("%s: %d requests made by the end of interval %d, but %d arrivals due by the end of this one: a request is made only once due",
			where(), c.made, n-1, due)
	}
	c.made, c.due = total, due
}

// trailer checks the trailer t, read at line of file name, against the intervals read.
func (c *checker) trailer(name string, line int, t *Trailer) {
	if !c.overrun && c.made > t.Intended {
		c.addf("%s:%d: trailer: intended %d, but the intervals made %d requests: a request is made only once due", name, line, t.Intended, c.made)
	}
}

// Contradictions returns what the file read so far says that no run can have done: its counts
// break an identity every file written by a run holds (see the list above checker), each with the
// file, line, interval and endpoint; the first maxContradictions of them, and how many there are.
// None for a file as a run wrote it.
func (fr *Reader) Contradictions() (first []string, all int) {
	return fr.check.found, len(fr.check.found) + fr.check.more
}

// ContradictionError says that a result file's figures contradict each other.
type ContradictionError struct {
	Found []string // the first contradictions found, File.Contradictions
	All   int      // how many there are, File.ContradictionCount
}

func (e *ContradictionError) Error() string {
	const shown = 3
	var b strings.Builder
	fmt.Fprintf(&b, "a result file contradicts itself: no run can have written its figures (the file was edited, damaged, or not written by rpcbench): %s",
		strings.Join(e.Found[:min(shown, len(e.Found))], "; "))
	if n := e.All - min(shown, len(e.Found)); n > 0 {
		fmt.Fprintf(&b, "; and %d more", n)
	}
	return b.String()
}

// Consistent returns a *ContradictionError when the file's figures contradict each other (see
// File.Contradictions), nil otherwise.
func (f *File) Consistent() error {
	if f.ContradictionCount == 0 {
		return nil
	}
	return &ContradictionError{Found: f.Contradictions, All: f.ContradictionCount}
}
