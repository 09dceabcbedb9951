package result

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// ivCounts are the counts of one endpoint of a hand-made interval.
type ivCounts struct {
	sent, unsent, completed, ok uint64
	timeouts, refused           uint64 // failed: sent and timed out, and refused before sending
	status200                   uint64
	latencies, services         int // values in the histograms; -1: one per request made, per request sent
}

// handInterval returns interval n (from 0) of 1 s with intended arrivals due and one endpoint with
// the counts of c.
func handInterval(n int, intended uint64, c ivCounts) *Interval {
	iv := NewInterval(1)
	iv.Start, iv.End, iv.Intended = time.Duration(n)*time.Second, time.Duration(n+1)*time.Second, intended
	e := iv.Endpoints[0]
	e.Sent, e.Unsent, e.Completed, e.OK = c.sent, c.unsent, c.completed, c.ok
	e.Errors[Timeout], e.Errors[Refused] = c.timeouts, c.refused
	if c.status200 > 0 {
		e.Status[200] = c.status200
	}
	if c.latencies < 0 {
		c.latencies = int(c.sent + c.unsent)
	}
	if c.services < 0 {
		c.services = int(c.sent)
	}
	for range c.latencies {
		RecordDuration(e.Latency, 3*time.Millisecond)
	}
	for range c.services {
		RecordDuration(e.Service, 2*time.Millisecond)
	}
	return iv
}

// handFile writes the intervals and, unless t is nil, the trailer, and reads the file back as hand.rb.
func handFile(tb testing.TB, t *Trailer, ivs ...*Interval) *File {
	tb.Helper()
	return handFileNamed(tb, "hand.rb", t, ivs...)
}

// handFileNamed is handFile reading the file as name.
func handFileNamed(tb testing.TB, name string, t *Trailer, ivs ...*Interval) *File {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), name)
	writeFile(tb, path, Header{Endpoints: []string{"GET /"}}, ivs, t)
	fh, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer fh.Close()
	f, err := Read(fh, name, nil)
	if err != nil {
		tb.Fatalf("the reader refused the file: %v", err)
	}
	return f
}

// TestContradictions: each identity a run's file holds, broken by hand, is found and named with the
// file, its line, the interval and the endpoint; files that hold them all are found consistent.
func TestContradictions(t *testing.T) {
	t.Parallel()
	// a consistent interval: 8 sent (6 answered ok with status 200, 2 timed out) and 2 refused
	// before sending
	good := ivCounts{sent: 8, unsent: 2, completed: 6, ok: 6, timeouts: 2, refused: 2, status200: 6, latencies: -1, services: -1}
	bad := func(edit func(*ivCounts)) ivCounts { c := good; edit(&c); return c }
	cases := []struct {
		name    string
		trailer *Trailer
		ivs     []*Interval
		want    []string // each contradiction found, in order; none: consistent
	}{
		{"consistent, with its trailer", &Trailer{Intended: 20}, []*Interval{handInterval(0, 10, good), handInterval(1, 10, good)}, nil},
		{"consistent, cut short", nil, []*Interval{handInterval(0, 10, good), handInterval(1, 10, good)}, nil},
		// requests finish in the interval after they fell due: 12 made by the end of the first
		// interval, 10 due by then, 20 by the end of the second
		{"requests made after the interval they fell due in", &Trailer{Intended: 20},
			[]*Interval{handInterval(0, 10, bad(func(c *ivCounts) {
				c.sent, c.ok, c.completed, c.status200, c.latencies, c.services = 10, 8, 8, 8, -1, -1
			})), handInterval(1, 10, bad(func(c *ivCounts) {
				c.sent, c.unsent, c.ok, c.completed, c.status200, c.timeouts, c.refused, c.latencies, c.services = 8, 0, 8, 8, 8, 0, 0, -1, -1
			}))},
			nil},
		{"the brief's: ok 50 > completed 30 > sent 5", &Trailer{Intended: 20},
			[]*Interval{handInterval(0, 10, ivCounts{sent: 5, completed: 30, ok: 50, latencies: -1, services: -1})},
			[]string{
				"hand.rb:2: interval 1 (0s–1s), endpoint \"GET /\": ok 50 + failed 0 = 50, but sent 5 + failed before sending 0 = 5",
				"hand.rb:2: interval 1 (0s–1s), endpoint \"GET /\": completed 30 > sent 5",
				"hand.rb:2: interval 1 (0s–1s), endpoint \"GET /\": ok 50 > completed 30",
			}},
		{"sent 10^18 against intended 20", &Trailer{Intended: 20},
			[]*Interval{handInterval(0, 20, ivCounts{sent: 1e18, completed: 1e18, ok: 1e18, status200: 1e18})},
			[]string{
				"hand.rb:2: interval 1 (0s–1s), endpoint \"GET /\": 0 latencies for 1000000000000000000 requests made",
				"hand.rb:2: interval 1 (0s–1s), endpoint \"GET /\": 0 service times for 1000000000000000000 requests sent",
				"hand.rb:3: trailer: intended 20, but the intervals made 1000000000000000000 requests",
			}},
		{"more made by an interval's end than due by the next one's", nil,
			[]*Interval{handInterval(0, 1, good), handInterval(1, 1, good), handInterval(2, 0, good)},
			[]string{
				"hand.rb:3: interval 2 (1s–2s): 10 requests made by the end of interval 1, but 2 arrivals due by the end of this one",
				"hand.rb:4: interval 3 (2s–3s): 20 requests made by the end of interval 2, but 2 arrivals due by the end of this one",
			}},
		{"more statuses than answers", &Trailer{Intended: 10}, []*Interval{handInterval(0, 10, bad(func(c *ivCounts) { c.status200 = 7 }))},
			[]string{"hand.rb:2: interval 1 (0s–1s), endpoint \"GET /\": answers counted 7 times by status > completed 6"}},
		{"failed before sending left out of the latencies", &Trailer{Intended: 10}, []*Interval{handInterval(0, 10, bad(func(c *ivCounts) { c.latencies = 8 }))},
			[]string{"hand.rb:2: interval 1 (0s–1s), endpoint \"GET /\": 8 latencies for 10 requests made (sent 8 + failed before sending 2)"}},
		{"service times of requests never sent", &Trailer{Intended: 10}, []*Interval{handInterval(0, 10, bad(func(c *ivCounts) { c.services = 10 }))},
			[]string{"hand.rb:2: interval 1 (0s–1s), endpoint \"GET /\": 10 service times for 8 requests sent"}},
		{"counts past 2^64", nil, []*Interval{handInterval(0, 10, bad(func(c *ivCounts) { c.ok = 1<<64 - 1 }))},
			[]string{"hand.rb:2: interval 1 (0s–1s), endpoint \"GET /\": the counts add up past 18446744073709551615"}},
		{"sent + unsent past 2^64", nil, []*Interval{handInterval(0, 10, ivCounts{sent: 1<<64 - 1, unsent: 1, refused: 1})},
			[]string{"hand.rb:2: interval 1 (0s–1s), endpoint \"GET /\": the counts add up past 18446744073709551615"}},
	}
	for _, tc := range cases {
		f := handFile(t, tc.trailer, tc.ivs...)
		if f.ContradictionCount != len(tc.want) || len(f.Contradictions) != len(tc.want) {
			t.Errorf("%s: %d contradictions (%d kept): %q; want %d", tc.name, f.ContradictionCount, len(f.Contradictions), f.Contradictions, len(tc.want))
			continue
		}
		for i, w := range tc.want {
			if !strings.HasPrefix(f.Contradictions[i], w) {
				t.Errorf("%s: contradiction %d is %q; want it to begin %q", tc.name, i+1, f.Contradictions[i], w)
			}
		}
		if err := f.Consistent(); (err == nil) != (len(tc.want) == 0) {
			t.Errorf("%s: Consistent() = %v; want an error just when there are contradictions", tc.name, err)
		}
	}
}

// TestContradictionsBoundedAndMerged: a file broken on every line keeps the first 20 of its
// contradictions and counts them all; a merge keeps each file's, naming its file.
func TestContradictionsBoundedAndMerged(t *testing.T) {
	t.Parallel()
	var ivs []*Interval
	for i := range 30 {
		// one contradiction each: completed 2 > sent 1 (ok 1 = sent 1, no status, a latency and a service time)
		ivs = append(ivs, handInterval(i, 1, ivCounts{sent: 1, completed: 2, ok: 1, latencies: -1, services: -1}))
	}
	a := handFileNamed(t, "a.rb", &Trailer{Intended: 30}, ivs...)
	if a.ContradictionCount != 30 || len(a.Contradictions) != 20 {
		t.Fatalf("%d contradictions, %d kept; want 30, the first 20 kept", a.ContradictionCount, len(a.Contradictions))
	}
	if want := "a.rb:21: interval 20 (19s–20s), endpoint \"GET /\": completed 2 > sent 1"; !strings.HasPrefix(a.Contradictions[19], want) {
		t.Errorf("the 20th kept is %q; want it to begin %q", a.Contradictions[19], want)
	}
	b := handFileNamed(t, "b.rb", &Trailer{Intended: 20}, handInterval(0, 10, ivCounts{sent: 10, completed: 10, ok: 10, status200: 10, latencies: -1, services: -1}),
		handInterval(1, 10, ivCounts{sent: 5, ok: 5, latencies: -1, services: -1})) // ok 5 > completed 0
	m, err := Merge(b, a)
	if err != nil {
		t.Fatal(err)
	}
	if m.ContradictionCount != 31 || len(m.Contradictions) != 21 || !strings.HasPrefix(m.Contradictions[0], "b.rb:3: interval 2 (1s–2s), endpoint \"GET /\": ok 5 > completed 0") ||
		!strings.HasPrefix(m.Contradictions[1], "a.rb:2: interval 1") {
		t.Errorf("merged: %d contradictions, %d kept, the first two %q; want 31, 21 kept: b.rb's then a.rb's", m.ContradictionCount, len(m.Contradictions), m.Contradictions[:min(2, len(m.Contradictions))])
	}
	if err := m.Consistent(); err == nil || !strings.Contains(err.Error(), "b.rb:3: interval 2") || !strings.Contains(err.Error(), "; and 28 more") {
		t.Errorf("merged: Consistent() = %v; want b.rb's first, two of a.rb's and \"and 28 more\"", err)
	}
}
