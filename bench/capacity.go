package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/rpcbench/rpcbench/capacity"
	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/runner"
)

// CapacityResult is a capacity scenario's search against one target.
type CapacityResult struct {
	Scenario string
	Target   string
	// Step is the search's index among the scenario's searches against one target, from 0, and
	// Steps their number: one per part of a scenario run alone: true (Level names it, "get
	// alone"), else 1 (Level "").
	Step, Steps int
	Level       string
	// SLO is the objective each step had to meet.
	SLO plan.SLO
	// Result is the search; nil when it could not start (Err says why).
	Result *capacity.Result
	Err    error
	// TargetEnded says the target's started command exited during the search (see Measured).
	TargetEnded string `json:"target_ended,omitempty"`
}

// runCapacity runs search k (a part of a scenario run alone: true, else 0) of capacity scenario s
// against t: capacity.Search with its requests and the scenario's search settings, a progress line
// per step.
//
// Each step is a run of the runner, watched as a load run is (see watchesFor), with the outputs
// Options.Outputs gives it.
func (o *Options) runCapacity(ctx context.Context, s plan.Scenario, k int, t plan.BenchTarget, dir string, prep *plan.Prepared, started map[string]*startedTarget) CapacityResult {
	r := CapacityResult{Scenario: s.Name, Target: t.Name, Step: k, Steps: s.Runs(), Level: s.StepLabel(k), SLO: s.Capacity.SLO}
	step := 0 // the steps run so far
	cfg := o.capacityConfig(s, t, dir, k)
	cfg.Prepared = prep
	var id RunID // the step running
	cfg.Options = func() runner.Options {
		step++
		id = RunID{Scenario: s.Name, Target: t.Name, Step: k, Steps: r.Steps, Level: r.Level, CapacityStep: step}
		return o.runnerOptions(id, t, profilePID(t, started), watchesFor(ctx, t, started, o.ShowSecrets))
	}
	cfg.OutputFailed = func(err error) { o.outputFailed(id, err) }
	cfg.OnStep = func(st capacity.Step) {
		o.progress("%s: %s", r, st.Line())
	}
	o.progress("%s: %s", r, s.Describe(k, o.ShowSecrets))
	res, err := capacity.Search(ctx, cfg)
	if err != nil {
		r.Err = err
		o.progress("%s: %v", r, err)
		return r
	}
	r.Result = res
	if res.Err != nil { // a step could not run: the search failed there
		r.Err = fmt.Errorf("a step could not run, and the search stopped there: %w", res.Err)
		o.progress("%s: %v", r, r.Err)
		return r
	}
	o.progress("%s: %s", r, res.Answer())
	return r
}

// capacityConfig is search k of capacity scenario s against t (see runCapacity), as the plan file
// says it.
func (o *Options) capacityConfig(s plan.Scenario, t plan.BenchTarget, dir string, k int) capacity.Config {
	c := s.Capacity
	var warm *time.Duration // the default
	switch {
	case c.NoWarmup:
		warm = plan.Wait(0)
	case c.Warmup > 0:
		warm = plan.Wait(c.Warmup)
	}
	return capacity.Config{
		Plan: s.PlanFor(t, k, dir), SLO: c.SLO, Start: c.Start, Max: c.Max, Factor: c.Factor, Precision: c.Precision,
		Step: c.Step, Warmup: warm, MaxSteps: c.MaxSteps, Confirmations: c.Confirmations, Files: o.Files, Version: o.Version,
		ShowSecrets: o.ShowSecrets, Cut: o.Cut,
	}
}

// String names the search as the report does: "capacity on kv", "capacity-each (get alone) on kv".
func (r CapacityResult) String() string {
	if r.Level != "" {
		return fmt.Sprintf("%s (%s) on %s", r.Scenario, r.Level, r.Target)
	}
	return fmt.Sprintf("%s on %s", r.Scenario, r.Target)
}
