package report

import (
	"bytes"
	"strings"
	"testing"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/rpcbench/rpcbench/result"
)

// hlogOf renders a fixture as an interval log.
func hlogOf(t *testing.T, path string) []byte {
	t.Helper()
	var b bytes.Buffer
	f, err := result.ReadFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	l, err := NewHLog(&b, f.Run().MeasuredStart, f.Header.Endpoints, "rpcbench test")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := result.ReadFile(path, func(_ *result.File, iv *result.Interval) error { return l.Interval(iv) }); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestHLogGolden(t *testing.T) {
	t.Parallel()
	golden(t, "one.hlog", hlogOf(t, fixtures[0]))
	golden(t, "multi.hlog", hlogOf(t, fixtures[2]))
}

// TestHLogReadBack reads the log with HdrHistogram's own reader: per tag, the counts add up to the
// run's requests and the maximum is the run's, in nanoseconds.
func TestHLogReadBack(t *testing.T) {
	t.Parallel()
	s := load(t, fixtures[2])
	r := hdr.NewHistogramLogReader(bytes.NewReader(hlogOf(t, fixtures[2])))
	counts := map[string]int64{}
	maxes := map[string]int64{}
	for {
		h, err := r.NextIntervalHistogram()
		if err != nil {
			t.Fatal(err)
		}
		if h == nil {
			break
		}
		counts[h.Tag()] += h.TotalCount()
		maxes[h.Tag()] = max(maxes[h.Tag()], h.Max())
	}
	if got, want := counts[""], int64(s.Requests.Sent); got != want {
		t.Errorf("untagged: got %d values; want %d", got, want)
	}
	for _, e := range s.Endpoints {
		if got, want := counts[e.Name], int64(e.Requests.Sent); got != want {
			t.Errorf("tag %s: got %d values; want %d", e.Name, got, want)
		}
	}
	if got, want := float64(maxes[""])/1e6, s.Latency.Max; got < want*0.999 || got > want*1.001 {
		t.Errorf("max: got %.4fms; want %.4fms", got, want)
	}
}

func TestHLogTags(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"GET /items", "GET_/items"}, // spaces would break the line
		{"a,b", "a_b"},               // commas separate fields
		{"get", "get"},
	}
	for _, tc := range tests {
		if got := tag(tc.in); got != tc.want {
			t.Errorf("tag(%q): got %q; want %q", tc.in, got, tc.want)
		}
	}
	if strings.ContainsAny(tag("x\ty\nz"), "\t\n") {
		t.Errorf("tag kept a tab or newline")
	}
}
