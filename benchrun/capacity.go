package benchrun

import (
	"context"
	"fmt"

	"github.com/rpcbench/rpcbench/capacity"
	"github.com/rpcbench/rpcbench/plan"
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
}

// runCapacity runs capacity scenario s against t: capacity.Search with the scenario's requests
// and search settings, a progress line per step.
func (o *Options) runCapacity(ctx context.Context, s plan.Scenario, t plan.BenchTarget, dir string) CapacityResult {
	c := s.Capacity
	r := CapacityResult{Scenario: s.Name, Target: t.Name, SLO: c.SLO}
	p := s.PlanFor(t, 0, dir)
	cfg := capacity.Config{
		Plan: p, SLO: c.SLO, Start: c.Start, Max: c.Max, Factor: c.Factor, Precision: c.Precision,
		Step: c.Step, Warmup: c.Warmup, MaxSteps: c.MaxSteps, Files: o.Files, Version: o.Version,
		OnStep: func(st capacity.Step) { o.progress("%s on %s: %s", s.Name, t.Name, st.Line()) },
	}
	if c.NoWarmup {
		cfg.Warmup = -1 // asked for none; zero is the default
	}
	o.progress("%s on %s: %s", s.Name, t.Name, s.Describe(0))
	res, err := capacity.Search(ctx, cfg)
	if err != nil {
		r.Err = err
		o.progress("%s on %s: %v", s.Name, t.Name, err)
		return r
	}
	r.Result = res
	o.progress("%s on %s: %s", s.Name, t.Name, res.Answer())
	return r
}

// String names the search as the report does.
func (r CapacityResult) String() string { return fmt.Sprintf("%s on %s", r.Scenario, r.Target) }
