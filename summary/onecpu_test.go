package summary

import (
	"strings"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/result"
)

// A generator on one CPU whose send lag p99 passes 1 ms (beyond the send slack it was given) gets
// a note; with two CPUs, or on one CPU keeping up, it does not.
func TestOneCPUNote(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		procs int
		lagUs int64 // the send lag of 99 of 100 requests; the last one is 0
		slack time.Duration
		want  bool
	}{
		{"one CPU, 2 ms late", 1, 2000, 0, true},
		{"one CPU, 0.2 ms late", 1, 200, 0, false},
		{"two CPUs, 2 ms late", 2, 2000, 0, false},
		{"CPUs unknown (an old file), 2 ms late", 0, 2000, 0, false},
		{"one CPU, 2 ms late with a 1.5 ms slack", 1, 2000, 1500 * time.Microsecond, false},
		{"one CPU, 3 ms late with a 1.5 ms slack", 1, 3000, 1500 * time.Microsecond, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			total := result.NewInterval(1)
			for i := range 100 {
				lag := c.lagUs
				if i == 99 {
					lag = 0
				}
				if err := total.SendLag.RecordValue(lag); err != nil {
					t.Fatal(err)
				}
			}
			total.Endpoints[0].Sent, total.Endpoints[0].Completed, total.Endpoints[0].OK = 100, 100, 100
			p := plan.Plan{Endpoints: []plan.Endpoint{{URL: "http://127.0.0.1:1/"}}, Load: plan.Load{Model: plan.Open, Rate: 100, Duration: time.Second, SendSlack: c.slack}}
			s := New(Run{Plan: p, Trailer: result.Trailer{Sending: time.Second, Elapsed: time.Second, Intended: 100, Procs: c.procs}}, total)
			got := false
			for _, n := range s.Notes {
				got = got || strings.Contains(n, "one CPU")
			}
			if got != c.want {
				t.Errorf("a note on one CPU: %v; want %v (notes %q)", got, c.want, s.Notes)
			}
			if s.GeneratorCPUs != c.procs {
				t.Errorf("GeneratorCPUs %d; want %d", s.GeneratorCPUs, c.procs)
			}
		})
	}
}
