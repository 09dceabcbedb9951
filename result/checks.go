package result

import (
	"strconv"
	"unicode/utf8"
)

// CheckResult is what one of the user's checks made of one answer: passed or not and, when it
// failed, what it received (the value at its JSON path, or the body). Name and Got are read by
// Record, which keeps neither: Got may point into an answer's body.
type CheckResult struct {
	Name   string
	Failed bool
	Got    []byte
}

// Detail is what a Verifier tells of an answer beyond its class: the calls of a JSON-RPC batch and
// the outcome of each check. A sender reuses one, request after request.
type Detail struct {
	Calls   []Call
	Checks  []CheckResult
	Metrics []MetricValue
}

// Reset empties d, keeping its memory.
func (d *Detail) Reset() { d.Calls, d.Checks, d.Metrics = d.Calls[:0], d.Checks[:0], d.Metrics[:0] }

// CheckCounts counts the answers one check judged: Passed + Failed are the answers that reached
// the checks (an answer that failed before, by its status or its JSON-RPC error, is judged by no
// check). Samples are distinct values it received when it failed, as Sample shows them: every one
// when there were fewer than MaxCheckSamples, else MaxCheckSamples of them (the first a shard
// saw in an interval, merged in the order of shards and intervals).
type CheckCounts struct {
	Passed, Failed uint64
	Samples        []string
}

// MaxCheckSamples is how many distinct failing values a check keeps; MaxSampleBytes is how much
// of each (before the note of its length).
const (
	MaxCheckSamples = 5
	MaxSampleBytes  = 80
)

// Sample is got as a check's failing value is shown: at most MaxSampleBytes of it, cut before a
// character, then "… (N bytes)" when it was longer; bytes that are not printable UTF-8 (a newline,
// a NUL, invalid UTF-8) are written as Go escapes (\n, \x00), so that a sample stays on one line
// and says which bytes arrived. An empty value is "(empty)".
func Sample(got []byte) string { return string(appendSample(nil, got)) }

func appendSample(b, got []byte) []byte {
	if len(got) == 0 {
		return append(b, "(empty)"...)
	}
	cut := got
	if len(got) > MaxSampleBytes {
		cut = got[:MaxSampleBytes]
		for i := MaxSampleBytes; i > MaxSampleBytes-utf8.UTFMax; i-- {
			if utf8.RuneStart(got[i]) {
				cut = got[:i] // do not split a character
				break
			}
		}
	}
	for i := 0; i < len(cut); {
		r, n := utf8.DecodeRune(cut[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b = append(b, '\\', 'x', "0123456789abcdef"[cut[i]>>4], "0123456789abcdef"[cut[i]&15])
		case r == ' ' || strconv.IsPrint(r):
			b = append(b, cut[i:i+n]...)
		default:
			q := strconv.QuoteRune(r) // '\n', '\x00', '\u2028'
			b = append(b, q[1:len(q)-1]...)
		}
		i += n
	}
	if len(cut) < len(got) {
		b = append(b, "… ("...)
		b = strconv.AppendInt(b, int64(len(got)), 10)
		b = append(b, " bytes)"...)
	}
	return b
}

// recordCheck counts one check's outcome in c. A failing value is made a sample only when it is
// new and there is room, so that a check failing on the same value again and again allocates
// nothing.
func (c *Counts) recordCheck(r *CheckResult) {
	cc := c.Checks[r.Name]
	if !r.Failed {
		cc.Passed++
	} else {
		cc.Failed++
		if len(cc.Samples) < MaxCheckSamples {
			c.sample = appendSample(c.sample[:0], r.Got)
			if !hasSample(cc.Samples, c.sample) {
				cc.Samples = append(cc.Samples, string(c.sample))
			}
		}
	}
	c.Checks[r.Name] = cc
}

func hasSample(samples []string, s []byte) bool {
	for _, x := range samples {
		if x == string(s) {
			return true
		}
	}
	return false
}

// addSample appends s to samples unless they hold it or MaxCheckSamples already.
func addSample(samples []string, s string) []string {
	if len(samples) >= MaxCheckSamples {
		return samples
	}
	for _, x := range samples {
		if x == s {
			return samples
		}
	}
	return append(samples, s)
}

// mergeChecks adds the check counts of o into c, keeping at most MaxCheckSamples samples.
func (c *Counts) mergeChecks(o *Counts) {
	for name, oc := range o.Checks {
		cc := c.Checks[name]
		cc.Passed += oc.Passed
		cc.Failed += oc.Failed
		for _, s := range oc.Samples {
			cc.Samples = addSample(cc.Samples, s)
		}
		c.Checks[name] = cc
	}
}
