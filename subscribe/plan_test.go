package subscribe

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/schedule"
)

// The subscriptions' parts follow the calls' stages: a warm-up of 1 s, then steps to 100/s for
// 3 s and to 2000/s for 3 s are cut at 1 s and 4 s (the steps, of no length, have no part of
// their own; the last part runs to the end).
func TestStageMarks(t *testing.T) {
	t.Parallel()
	stages, err := plan.ParseStages("0s:100,3s:100,0s:2000,3s:2000")
	if err != nil {
		t.Fatal(err)
	}
	marks, labels, idx := StageMarks(plan.Load{Stages: stages, Warmup: time.Second})
	if fmt.Sprint(marks) != "[1s 4s]" || strings.Join(labels, "|") != "warm-up|stage 2: 100 → 100/s|stage 4: 2000 → 2000/s" || fmt.Sprint(idx) != "[0 2 4]" {
		t.Errorf("marks %v, labels %q, stages %v", marks, labels, idx)
	}
	marks, labels, idx = StageMarks(plan.Load{Stages: []schedule.Stage{{Duration: 2 * time.Second, Target: 10}, {Duration: time.Second, Target: 10}}, Model: plan.Closed})
	if fmt.Sprint(marks) != "[2s]" || strings.Join(labels, "|") != "stage 1: 0 → 10 connections|stage 2: 10 → 10 connections" || fmt.Sprint(idx) != "[1 2]" {
		t.Errorf("closed: marks %v, labels %q, stages %v", marks, labels, idx)
	}
	if marks, labels, idx = StageMarks(plan.Load{Rate: 100}); marks != nil || labels != nil || idx != nil {
		t.Errorf("one level: marks %v, labels %q, stages %v; want none", marks, labels, idx)
	}
	// A warm-up holds the first stage's level: the stage after it starts there, as the calls'
	// per-stage figures say (summary.Stage's From).
	marks, labels, idx = StageMarks(plan.Load{Stages: []schedule.Stage{{Duration: 3 * time.Second, Target: 100}, {Duration: 3 * time.Second, Target: 2000}}, Warmup: time.Second})
	if fmt.Sprint(marks) != "[1s 4s]" || strings.Join(labels, "|") != "warm-up|stage 1: 100 → 100/s|stage 2: 100 → 2000/s" || fmt.Sprint(idx) != "[0 1 2]" {
		t.Errorf("after a warm-up: marks %v, labels %q, stages %v", marks, labels, idx)
	}
}
