package report

import (
	"strings"
	"testing"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/summary"
)

// The headline throughput is the rate over the sending window; the drain is said apart.
func TestTextThroughputWhileSending(t *testing.T) {
	t.Parallel()
	s := &summary.Summary{DurationS: 3.19, SendingS: 3, SendSpanS: 3, IntendedRate: 500, SendRate: 500, SendingThroughput: 500}
	s.Config.Load.Model = plan.Open
	s.Throughput = 1501 / 3.19 // 470.5
	b := &strings.Builder{}
	requests(b, s)
	for _, want := range []string{
		"rate        intended 500.0/s, sent 500.0/s; throughput 500.0 answers/s while sending\n",
		"drain       190.0ms after the last send (470.5 answers/s over the whole run)\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("got:\n%s\nwant a line %q", b, want)
		}
	}
}

// A drain of a few ms that changes the figure by less than 1% is not worth a line.
func TestTextShortDrainUnsaid(t *testing.T) {
	t.Parallel()
	s := &summary.Summary{DurationS: 3.002, SendingS: 3, SendSpanS: 3, SendingThroughput: 500}
	s.Throughput = 1500 / 3.002 // 499.7
	b := &strings.Builder{}
	requests(b, s)
	if strings.Contains(b.String(), "drain") {
		t.Errorf("got:\n%s\nwant no drain line", b)
	}
}
