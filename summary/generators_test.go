package summary

import (
	"strings"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/result"
)

// Each generator of a merged run keeps its own rates and send lag, and one that fell behind marks
// the merged run even when the others' figures would hide it.
func TestGeneratorsOfMergedRun(t *testing.T) {
	t.Parallel()
	at := time.Date(2030, 1, 2, 15, 4, 5, 0, time.UTC)
	parts := []result.Part{
		// 500 intended in 1 s, all sent on time
		{Path: "seg-1.rb", Host: "a", Segment: "0:1/2", Intended: 500, Attempted: 500, Sent: 500, Sending: time.Second, SendSpan: time.Second, LagP99: time.Millisecond, StartAt: at},
		// 500 intended, 450 sent: 50 never sent
		{Path: "seg-2.rb", Host: "b", Segment: "1/2:1", Intended: 500, Attempted: 450, Sent: 450, Sending: time.Second, SendSpan: time.Second, StartAt: at},
	}
	p := plan.Plan{Endpoints: []plan.Endpoint{{URL: "http://127.0.0.1:1/"}}, Load: plan.Load{Rate: 1000, Duration: time.Second}}.Normalized()
	s := New(Run{Plan: p, Trailer: result.Trailer{Intended: 1000, Sending: time.Second}, Parts: parts}, result.NewInterval(1))
	if len(s.Generators) != 2 {
		t.Fatalf("%d generators; want 2", len(s.Generators))
	}
	g0, g1 := s.Generators[0], s.Generators[1]
	if g0.FellBehind || g0.IntendedRate != 500 || g0.SendRate != 500 || g0.SendLagP99 != 1 {
		t.Errorf("first generator: %+v; want on time, 500/s intended and sent, lag p99 1 ms", g0)
	}
	if !g1.FellBehind || g1.Dropped != 50 || g1.SendRate != 450 {
		t.Errorf("second generator: %+v; want fallen behind, 50 dropped, 450/s sent", g1)
	}
	notes := strings.Join(s.Notes, "\n")
	if !strings.Contains(notes, "generator segment 1/2:1 on b fell behind: 50 of its 500 intended requests were never sent") {
		t.Errorf("notes %q; want one naming the generator that fell behind", notes)
	}
	if strings.Contains(notes, "did not share one start instant") {
		t.Errorf("notes %q; want none on the start: both were given the same", notes)
	}
}
