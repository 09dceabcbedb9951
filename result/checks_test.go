package result

import (
	"strings"
	"testing"
	"time"
)

// A failing value is shown on one line, cut on a character, saying how long it was.
func TestSample(t *testing.T) {
	t.Parallel()
	a79 := strings.Repeat("a", 79)
	for _, tc := range []struct{ got, want string }{
		{"", "(empty)"},
		{`{"n":11}`, `{"n":11}`},
		{"a\nb\x00c\td", `a\nb\x00c\td`},
		{"ok\xffok", `ok\xffok`},
		{strings.Repeat("b", 80), strings.Repeat("b", 80)},
		{strings.Repeat("b", 81), strings.Repeat("b", 80) + "… (81 bytes)"},
		{strings.Repeat("a", 78) + "é", strings.Repeat("a", 78) + "é"}, // 80 bytes: whole
		{a79 + "é", a79 + "… (81 bytes)"},                              // é would be split at byte 80
		{strings.Repeat("é", 50), strings.Repeat("é", 40) + "… (100 bytes)"},
	} {
		if got := Sample([]byte(tc.got)); got != tc.want {
			t.Errorf("Sample(%q) = %q; want %q", tc.got, got, tc.want)
		}
	}
}

// The Recorder counts each check's passes and failures, over shards and intervals, and keeps
// every distinct failing value while there are fewer than MaxCheckSamples, else that many.
func TestRecordChecks(t *testing.T) {
	t.Parallel()
	r := NewRecorder(1, 4)
	total := NewInterval(1)
	record := func(shard int, failed bool, got string) {
		r.Record(shard, &Event{Class: OK, Checks: []CheckResult{{Name: "c", Failed: failed, Got: []byte(got)}}})
	}
	// interval 1: three values, each failing on every shard; 3 passes
	for shard := range 4 {
		for _, v := range []string{"1", "2", "1", "3"} {
			record(shard, true, v)
		}
	}
	record(0, false, "")
	record(1, false, "")
	record(3, false, "")
	total.Merge(r.Flush(0, time.Second))
	c := total.Endpoints[0].Checks["c"]
	if c.Passed != 3 || c.Failed != 16 || len(c.Samples) != 3 {
		t.Fatalf("after 3 distinct values: %+v; want 3 passed, 16 failed, the 3 values", c)
	}
	// interval 2: four new values on two shards: 7 distinct in all, 5 kept
	for i, v := range []string{"4", "5", "6", "7"} {
		record(i%2, true, v)
	}
	total.Merge(r.Flush(time.Second, 2*time.Second))
	c = total.Endpoints[0].Checks["c"]
	seen := map[string]bool{}
	for _, s := range c.Samples {
		if seen[s] || len(s) != 1 || s < "1" || s > "7" {
			t.Errorf("sample %q: want each of 1 to 7 at most once", s)
		}
		seen[s] = true
	}
	if c.Passed != 3 || c.Failed != 20 || len(c.Samples) != MaxCheckSamples || !seen["1"] || !seen["2"] || !seen["3"] {
		t.Errorf("after 7 distinct values: %+v; want 3 passed, 20 failed, %d samples, those of the first interval among them", c, MaxCheckSamples)
	}
}
