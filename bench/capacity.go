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
	// SLO is the objective each step had to meet.
	SLO plan.SLO
	// Result is the search; nil when it could not start (Err says why).
	Result *capacity.Result
	Err    error
	// TargetEnded says the target's started command exited during the search (see Measured).
	TargetEnded string `json:"target_ended,omitempty"`
}

// runCapacity runs capacity scenario s against t: capacity.Search with the scenario's requests
// and search settings, a progress line per step.
//
// Each step is a run of the runner, watched as a load run is (see watchesFor), with the outputs
// Options.Outputs gives it.
func (o *Options) runCapacity(ctx context.Context, s plan.Scenario, t plan.BenchTarget, dir string, prep *plan.Prepared, started map[string]*startedTarget) CapacityResult {
	r := CapacityResult{Scenario: s.Name, Target: t.Name, SLO: s.Capacity.SLO}
	step := 0 // the steps run so far
	cfg := o.capacityConfig(s, t, dir)
	cfg.Prepared = prep
	var id RunID // the step running
	cfg.Options = func() runner.Options {
		step++
		id = RunID{Scenario: s.Name, Target: t.Name, CapacityStep: step}
		return o.runnerOptions(id, t, profilePID(t, started), watchesFor(ctx, t, started, o.ShowSecrets))
	}
	cfg.OutputFailed = func(err error) { o.outputFailed(id, err) }
	cfg.OnStep = func(st capacity.Step) {
		o.progress("%s on %s: %s", s.Name, t.Name, st.Line())
	}
	o.progress("%s on %s: %s", s.Name, t.Name, s.Describe(0))
	res, err := capacity.Search(ctx, cfg)
	if err != nil {
		r.Err = err
		o.progress("%s on %s: %v", s.Name, t.Name, err)
		return r
	}
	r.Result = res
	if res.Err != nil { // a step could not run: the search failed there
		r.Err = fmt.Errorf("a step could not run, and the search stopped there: %w", res.Err)
		o.progress("%s on %s: %v", s.Name, t.Name, r.Err)
		return r
	}
	o.progress("%s on %s: %s", s.Name, t.Name, res.Answer())
	return r
}

// capacityConfig is the search of capacity scenario s against t, as the plan file says it.
func (o *Options) capacityConfig(s plan.Scenario, t plan.BenchTarget, dir string) capacity.Config {
	c := s.Capacity
	var warm *time.Duration // the default
	switch {
	case c.NoWarmup:
		warm = plan.Wait(0)
	case c.Warmup > 0:
		warm = plan.Wait(c.Warmup)
	}
	return capacity.Config{
		Plan: s.PlanFor(t, 0, dir), SLO: c.SLO, Start: c.Start, Max: c.Max, Factor: c.Factor, Precision: c.Precision,
		Step: c.Step, Warmup: warm, MaxSteps: c.MaxSteps, Confirmations: c.Confirmations, Files: o.Files, Version: o.Version,
		ShowSecrets: o.ShowSecrets, Cut: o.Cut,
	}
}

// String names the search as the report does.
func (r CapacityResult) String() string { return fmt.Sprintf("%s on %s", r.Scenario, r.Target) }
