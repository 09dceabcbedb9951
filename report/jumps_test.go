package report

import (
	"strings"
	"testing"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/summary"
)

// The text report lists each jump with what coincided, or says nothing moved; none when nothing
// jumped.
func TestJumpsText(t *testing.T) {
	s := &summary.Summary{}
	for i := range 5 {
		p := summary.Point{Start: float64(i) + 0.0004, End: float64(i+1) + 0.0004, OK: 10, P99: 2}
		if i == 2 {
			p.P99 = 30
		}
		s.Timeline = append(s.Timeline, p)
	}
	s.Resources = []result.Resources{{Target: "pid 7", Samples: []result.ResourceSample{{At: 3e9, Interval: 1e9, CPUPercent: 5}}}}
	var b strings.Builder
	jumpsText(&b, s)
	want := "\nJumps on the timeline (what coincided among the watched signals: a coincidence, not a cause)\n" +
		"  2s–3s  p99 latency up to 30.0ms (median interval 2.00ms)\n" +
		"         coincided: none of the watched signals moved\n"
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
	s.Timeline[2].P99 = 2
	b.Reset()
	if jumpsText(&b, s); b.Len() != 0 {
		t.Errorf("a run without jumps: %q", b.String())
	}
}
