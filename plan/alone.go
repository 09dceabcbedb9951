package plan

import (
	"slices"
	"strconv"
)

// run is one run of a scenario against a target: a level of its steps (when it has steps) and,
// for a scenario with Alone, the part (an endpoint, or the JSON-RPC calls of one name) sent alone.
type run struct {
	step  int     // index into Steps; -1 without steps or for a part at its own level
	part  int     // index into Parts; -1 for the mix
	level float64 // a part's own level (Scenario.Loads); 0 for the step's or the scenario's
	sweep int     // index into Sweep.Values; -1 without a sweep
}

// runs lists the runs of s against one target in the order they are done: with a sweep, value by
// value, and at each value the runs partRuns lists.
func (s Scenario) runs() []run {
	base := s.partRuns()
	if s.Sweep == nil {
		for k := range base {
			base[k].sweep = -1
		}
		return base
	}
	out := make([]run, 0, len(s.Sweep.Values)*len(base))
	for i := range s.Sweep.Values {
		for _, r := range base {
			r.sweep = i
			out = append(out, r)
		}
	}
	return out
}

// partRuns lists the runs of s at one value of its sweep: level by level (each step), and at each
// level every part alone when Alone is set — a part with its own level (Loads) runs once, in the
// first level's turn.
func (s Scenario) partRuns() []run {
	steps := len(s.Steps)
	if !s.Alone {
		out := make([]run, max(1, steps))
		for k := range out {
			out[k] = run{step: k, part: -1}
			if steps == 0 {
				out[k].step = -1
			}
		}
		return out
	}
	parts := s.Parts()
	var out []run
	for k := range max(1, steps) {
		for i, name := range parts {
			own, ok := s.Loads[name]
			switch {
			case ok && k == 0:
				out = append(out, run{step: -1, part: i, level: own})
			case ok:
			case steps == 0:
				out = append(out, run{step: -1, part: i})
			default:
				out = append(out, run{step: k, part: i})
			}
		}
	}
	return out
}

// Parts returns the names of what a scenario with Alone sends alone, in the order of the file:
// each JSON-RPC call's name (calls of one name go together, as they share an endpoint), or each
// endpoint's name; nil for a scenario without Alone.
func (s Scenario) Parts() []string {
	if !s.Alone {
		return nil
	}
	var out []string
	if calls := s.Plan.JSONRPC.Calls; len(calls) > 0 {
		for _, c := range calls {
			if n := c.Label(); !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
		return out
	}
	for _, e := range s.Plan.Endpoints {
		out = append(out, EndpointLabel(e))
	}
	return out
}

// alonePlan keeps of p only part i of s (its endpoint, or its calls), at the whole of the load:
// weights are dropped, since nothing else shares the requests.
func (s Scenario) alonePlan(p *Plan, i int) {
	name := s.Parts()[i]
	p.Traffic.Weights = nil
	if len(p.JSONRPC.Calls) > 0 {
		var calls []Call
		for _, c := range p.JSONRPC.Calls {
			if c.Label() == name {
				c.Weight = 0
				calls = append(calls, c)
			}
		}
		p.JSONRPC.Calls = calls
		return
	}
	e := p.Endpoints[i]
	e.Weight = 0
	p.Endpoints = []Endpoint{e}
}

// levelText writes a level: "300/s" in the open model, "50 connections" in the closed one.
func levelText(v float64, m Model) string {
	t := strconv.FormatFloat(v, 'f', -1, 64)
	if m == Open {
		return t + "/s"
	}
	return t + connWord(v)
}
