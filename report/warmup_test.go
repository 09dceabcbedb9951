package report

import (
	"strings"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/summary"
)

// A warm-up that ramped from a level says so, in connections or per second; one that held the
// run's level does not.
func TestWarmupRampInText(t *testing.T) {
	t.Parallel()
	from, one := 50.0, 1.0
	for _, c := range []struct {
		load plan.Load
		want string
	}{
		{plan.Load{Model: plan.Closed, Connections: 100, WarmupFrom: &from}, "  warm-up     1m0s rising from 50 connections, 1234 requests, not counted\n"},
		{plan.Load{Model: plan.Closed, Connections: 100, WarmupFrom: &one}, "  warm-up     1m0s rising from 1 connection, 1234 requests, not counted\n"},
		{plan.Load{Model: plan.Open, Rate: 300, WarmupFrom: &from}, "  warm-up     1m0s rising from 50/s, 1234 requests, not counted\n"},
		{plan.Load{Model: plan.Closed, Connections: 100}, "  warm-up     1m0s, 1234 requests, not counted\n"},
	} {
		s := &summary.Summary{Warmup: &summary.Warmup{DurationS: 60, Sent: 1234}}
		s.Config.Load = c.load
		var b strings.Builder
		if err := Text(&b, s); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), c.want) {
			t.Errorf("text lacks %q:\n%s", c.want, b.String())
		}
	}
	// the HTML page's settings say it too
	s := &summary.Summary{Warmup: &summary.Warmup{DurationS: 60, Sent: 1234}}
	s.Config.Load = plan.Load{Model: plan.Closed, Connections: 100, Warmup: time.Minute, WarmupFrom: &from}
	var b strings.Builder
	if err := Render(&b, []*summary.Summary{s}, "html", Options{}); err != nil {
		t.Fatal(err)
	}
	if w := "1m0s rising from 50 connections"; !strings.Contains(b.String(), w) {
		t.Errorf("HTML lacks %q", w)
	}
}
