package summary

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/result"
)

func mustSLO(t *testing.T, text string) plan.SLO {
	t.Helper()
	s, err := plan.ParseSLO(text)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestJudgeSLO(t *testing.T) {
	t.Parallel()
	// 100 answers of 10, 20, …, 1000 µs in 1 s (p50 0.5 ms, p99 0.99 ms, max 1 ms) of 110
	// intended: 10 never sent. By hand: errors (0 + 10) / 110 = 0.0909; achieved 100/s of an
	// intended 110/s: rate 0.909.
	iv := result.NewInterval(1)
	tenToThousand(iv.Endpoints[0])
	p := openPlan(110)
	p.SLO = mustSLO(t, "p99<1ms,p50<=0.5ms,max<1ms,errors<10%,rate>=0.9,rps>100")
	s := New(Run{Plan: p, Trailer: result.Trailer{Elapsed: time.Second, Sending: time.Second, Intended: 110}}, iv)
	want := []SLOResult{
		{Objective: "p99<1ms", Value: 0.99, Threshold: 1, Pass: true},
		{Objective: "p50<=500µs", Value: 0.5, Threshold: 0.5, Pass: true}, // equal meets <=
		{Objective: "max<1ms", Value: 1, Threshold: 1, Pass: false},       // equal fails <
		{Objective: "errors<10%", Value: 10.0 / 110, Threshold: 0.1, Pass: true},
		{Objective: "rate>=0.9", Value: 100.0 / 110, Threshold: 0.9, Pass: true},
		{Objective: "rps>100", Value: 100, Threshold: 100, Pass: false},
	}
	if s.SLO == nil {
		t.Fatal("SLO: got none; want a verdict")
	}
	if s.SLO.Pass {
		t.Errorf("SLO pass: got true; want false (max and rps fail)")
	}
	if len(s.SLO.Objectives) != len(want) {
		t.Fatalf("objectives: got %+v; want %+v", s.SLO.Objectives, want)
	}
	for i, w := range want {
		if got := s.SLO.Objectives[i]; got != w {
			t.Errorf("objective %d: got %+v; want %+v", i, got, w)
		}
	}
	if f := s.SLO.Failed(); len(f) != 2 || f[0].Objective != "max<1ms" || f[1].Objective != "rps>100" {
		t.Errorf("failed: got %+v; want max<1ms and rps>100", f)
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"slo":{"pass":false,"objectives":[{"objective":"p99\u003c1ms","value":0.99,"threshold":1,"pass":true}`) {
		t.Errorf("JSON: got %s; want an slo member with the verdicts", b)
	}
}

func TestJudgeSLOUnmeasurable(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		sent     uint64 // sent, none answered
		intended uint64
		slo      string
		want     []SLOResult
	}{
		// 5 sent, none answered: a latency cannot be measured and fails; every request failed
		{"no answers", 5, 5, "p99<1s,errors<=100%", []SLOResult{
			{Objective: "p99<1s", Threshold: 1000, Note: "no answers"},
			{Objective: "errors<=100%", Value: 1, Threshold: 1, Pass: true},
		}},
		// nothing intended: errors and rate cannot be measured
		{"nothing intended", 0, 0, "errors<1%,rate>=0.5", []SLOResult{
			{Objective: "errors<1%", Threshold: 0.01, Note: "no request intended"},
			{Objective: "rate>=0.5", Threshold: 0.5, Note: "no request intended"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			iv := result.NewInterval(1)
			iv.Endpoints[0].Sent = tc.sent
			iv.Endpoints[0].Errors[result.Timeout] = tc.sent
			p := openPlan(5)
			p.SLO = mustSLO(t, tc.slo)
			s := New(Run{Plan: p, Trailer: result.Trailer{Elapsed: time.Second, Sending: time.Second, Intended: tc.intended}}, iv)
			if s.SLO.Pass {
				t.Errorf("pass: got true; want false")
			}
			for i, w := range tc.want {
				if got := s.SLO.Objectives[i]; got != w {
					t.Errorf("objective %d: got %+v; want %+v", i, got, w)
				}
			}
		})
	}
}

func TestNoSLONoVerdict(t *testing.T) {
	t.Parallel()
	iv := result.NewInterval(1)
	tenToThousand(iv.Endpoints[0])
	s := New(Run{Plan: openPlan(100), Trailer: result.Trailer{Elapsed: time.Second, Sending: time.Second, Intended: 100}}, iv)
	if s.SLO != nil {
		t.Errorf("SLO: got %+v; want none without objectives", s.SLO)
	}
	b, _ := json.Marshal(s)
	if strings.Contains(string(b), `"slo"`) {
		t.Errorf("JSON: got an slo member without objectives: %s", b)
	}
}
