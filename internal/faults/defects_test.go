package faults_test

import (
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/internal/faults"
	"github.com/rpcbench/rpcbench/result"
)

// A server that never answers, with the connections capped: the run still ends at its duration
// plus the time limit, and the arrivals that found no free connection by then count as never
// sent, not sent late.
func TestFaultNeverAnswersEndsOnTime(t *testing.T) {
	t.Parallel()
	s := faults.Silent(t)
	p := faultPlan(s.URL()+"/", 50, time.Second, time.Second)
	p.Load.Connections = 5
	o := run(t, p, 50, result.Timeout)
	tot := o.res.Total.Total()
	// 5 connections, each held 1 s per request: at most 10 requests can be sent in the 1 s of
	// the run and the 1 s after, the rest of the 50 were never sent.
	if tot.Sent > 10 {
		t.Errorf("sent %d; want at most 10 (5 connections, each held 1 s, for 1 s)", tot.Sent)
	}
	s.Close()
}
