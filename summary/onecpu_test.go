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
		name   string
		procs  int
		lagUs  int64 // the send lag of 99 of 100 requests; the last one is 0
		slack  time.Duration
		want   bool
		sender string
	}{
		{"one CPU, 2 ms late", 1, 2000, 0, true, ""},
		{"one CPU, 0.2 ms late", 1, 200, 0, false, ""},
		{"two CPUs, 2 ms late", 2, 2000, 0, false, ""},
		{"CPUs unknown (an old file), 2 ms late", 0, 2000, 0, false, ""},
		{"one CPU, 2 ms late with a 1.5 ms slack", 1, 2000, 1500 * time.Microsecond, false, ""},
		{"one CPU, 3 ms late with a 1.5 ms slack", 1, 3000, 1500 * time.Microsecond, true, ""},
		// the event loop times answers by the kernel's stamps: the note says nothing of late reads
		{"one CPU, 2 ms late, the event loop", 1, 2000, 0, true, "event loop"},
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
			s := New(Run{Plan: p, Trailer: result.Trailer{Sending: time.Second, Elapsed: time.Second, Intended: 100, Procs: c.procs, Sender: c.sender}}, total)
			got, reads := false, false
			for _, n := range s.Notes {
				got = got || strings.Contains(n, "one CPU")
				reads = reads || strings.Contains(n, "read answers late")
			}
			if c.want && reads != (c.sender == "") {
				t.Errorf("the note speaks of answers read late: %v; want %v with sender %q (notes %q)", reads, c.sender == "", c.sender, s.Notes)
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
