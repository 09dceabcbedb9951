package plan

import (
	"fmt"
	"strings"
)

// SelectError is a reason Bench.Select cannot pick one run: Key is the choice at fault
// ("scenario", "target" or "step").
type SelectError struct {
	Key string
	Msg string
}

func (e *SelectError) Error() string { return e.Key + ": " + e.Msg }

// Select picks one run of b: scenario, target and step (from 1; 0 when the scenario has no steps;
// with alone, each part at each level is a step; with a sweep, each of those at each value)
// named by the caller, "" or 0 choosing the only one there is. It returns the plan of that run
// (Scenario.PlanFor) and the choices made. A command scenario is refused: it is no load.
func (b *Bench) Select(scenario, target string, step int) (p Plan, s Scenario, t BenchTarget, k int, err error) {
	var names []string
	for _, sc := range b.Scenarios {
		if !sc.IsCommand() {
			names = append(names, sc.Name)
		}
	}
	si, err := pick(b.File, "scenario", scenario, len(b.Scenarios), func(i int) string { return b.Scenarios[i].Name }, names)
	if err != nil {
		return p, s, t, 0, err
	}
	s = b.Scenarios[si]
	if s.IsCommand() {
		return p, s, t, 0, &SelectError{"scenario", fmt.Sprintf("%q is a command scenario, no load: want one of %s", s.Name, strings.Join(names, ", "))}
	}
	var tnames []string
	for _, bt := range b.Targets {
		tnames = append(tnames, bt.Name)
	}
	ti, err := pick(b.File, "target", target, len(b.Targets), func(i int) string { return b.Targets[i].Name }, tnames)
	if err != nil {
		return p, s, t, 0, err
	}
	t = b.Targets[ti]
	n := len(s.Steps) // the steps to choose from: with alone, each part at each level; with a sweep, at each value
	if s.Alone || s.Sweep != nil {
		n = s.Runs()
	}
	switch {
	case n == 0 && step != 0:
		return p, s, t, 0, &SelectError{"step", fmt.Sprintf("%d: scenario %s has no steps", step, s.Name)}
	case n == 1 && step == 0:
		step = 1
	case n > 1 && step == 0:
		return p, s, t, 0, &SelectError{"step", fmt.Sprintf("scenario %s has %d steps (%s): say which, from 1 to %d", s.Name, n, stepLabels(s), n)}
	case n > 0 && (step < 1 || step > n):
		return p, s, t, 0, &SelectError{"step", fmt.Sprintf("%d: scenario %s has steps 1 to %d", step, s.Name, n)}
	}
	if step > 0 {
		k = step - 1
	}
	return s.PlanFor(t, k, b.Dir), s, t, k, nil
}

// pick returns the index of the item named name among n, or of the only one when name is "".
func pick(file, key, name string, n int, nameOf func(int) string, names []string) (int, error) {
	if name == "" {
		if len(names) == 1 {
			for i := range n {
				if nameOf(i) == names[0] {
					return i, nil
				}
			}
		}
		return 0, &SelectError{key, fmt.Sprintf("%s has %d %ss: say which, one of %s", file, len(names), key, strings.Join(names, ", "))}
	}
	for i := range n {
		if nameOf(i) == name {
			return i, nil
		}
	}
	return 0, &SelectError{key, fmt.Sprintf("%q is not in %s: want one of %s", name, file, strings.Join(names, ", "))}
}

func stepLabels(s Scenario) string {
	l := make([]string, s.Runs())
	for k := range l {
		l[k] = s.StepLabel(k)
	}
	return strings.Join(l, ", ")
}

// Files returns the files a load run's plan reads, as the plan names them (relative to the plan
// file's directory, or absolute): its target, data, setup and calls files.
func (p Plan) Files() []string {
	var out []string
	for _, f := range []string{p.Traffic.Targets, p.Traffic.Data, p.Traffic.Setup, p.JSONRPC.CallsFile} {
		if f != "" && f != Stdin {
			out = append(out, f)
		}
	}
	return out
}
