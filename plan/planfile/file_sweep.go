package planfile

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/rpcbench/rpcbench/plan"
)

// sweep reads sweep: {PARAM: [v1, v2, …]}: one parameter of plan.SweepParams, or a flag of a
// target's command ("TARGET --FLAG", see sweepFlag), and its values, whole numbers, each given
// once.
func (f *fileReader) sweep(n *yaml.Node, path string) *plan.Sweep {
	want := fmt.Sprintf("want one parameter and its values, e.g. {batch: [1, 10, 50, 100]} or {daemon --max-idle: [1, 10, 100]}; the parameters: %s, or TARGET --FLAG (a flag of a target's command)", strings.Join(plan.SweepParams, ", "))
	var w *plan.Sweep
	if !f.mapping(n, path, nil, func(key string, k, v *yaml.Node) {
		kp := joinKey(path, key)
		if w != nil {
			f.errorf(k, kp, "a sweep varies one parameter (%s is swept already)", w.Param)
			return
		}
		w = &plan.Sweep{Param: key}
		if !slices.Contains(plan.SweepParams, key) && !f.sweepFlag(w, k, kp) {
			return
		}
		if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
			f.errorf(v, kp, "want a list of values, e.g. [1, 10, 50, 100]")
			return
		}
		for i, c := range v.Content {
			ip := fmt.Sprintf("%s[%d]", kp, i)
			x := f.count(resolve(c), ip)
			switch {
			case x == 0: // told by count
			case key == plan.SweepBatch && x > plan.MaxBatch:
				f.errorf(c, ip, "%d calls per request: want 1 to %d", x, plan.MaxBatch)
			case slices.Contains(w.Values, x):
				f.errorf(c, ip, "%d is given twice", x)
			default:
				w.Values = append(w.Values, x)
			}
		}
	}) {
		return nil
	}
	if w == nil {
		f.errorf(n, path, "empty: %s", want)
	}
	if w != nil && len(w.Values) == 0 {
		return nil
	}
	return w
}

// sweepFlag reads the key of a sweep of a target's command flag, "TARGET --FLAG", at k, into w:
// the target is one of this plan's, with a command that gives the flag once, with a plain whole
// number (its value there is the one of every run outside the sweep). It reports whether the key is such.
func (f *fileReader) sweepFlag(w *plan.Sweep, k *yaml.Node, kp string) bool {
	name, flag, ok := strings.Cut(w.Param, " ")
	flag = strings.TrimSpace(flag)
	if !ok || !strings.HasPrefix(flag, "-") || strings.ContainsAny(flag, " =") {
		f.errorf(k, kp, "unknown parameter %q: want %s, or TARGET --FLAG (a flag of a target's command, e.g. daemon --max-idle)", w.Param, strings.Join(plan.SweepParams, ", "))
		return false
	}
	w.Param, w.Target, w.Flag = name+" "+flag, name, flag
	i := slices.IndexFunc(f.targets, func(t plan.BenchTarget) bool { return t.Name == name })
	switch {
	case i < 0:
		var names []string
		for _, t := range f.targets {
			names = append(names, t.Name)
		}
		f.errorf(k, kp, "no target %q in this plan: want one of %s", name, strings.Join(names, ", "))
		return false
	case len(f.targets[i].Command) == 0:
		f.errorf(k, kp, "target %s has no command: the sweep starts its command again at each value of %s", name, flag)
		return false
	}
	switch n := plan.FlagCount(f.targets[i].Command, f.targets[i].Shell, flag); n {
	case 1:
		if v, ok := plan.FlagValue(f.targets[i].Command, f.targets[i].Shell, flag); !ok {
			_, shown, _ := strings.Cut(plan.RedactArg(flag+"="+v), "=") // v as the flag's argument, secrets REDACTED
			f.errorf(k, kp, "targets.%s.command gives %s the value %q: want a plain whole number there (e.g. %s 1024), which the sweep replaces at each value", name, flag, shown, flag)
			return false
		}
		return true
	case 0:
		f.errorf(k, kp, "targets.%s.command has no %s VALUE: give the flag there with the value of the runs outside the sweep (e.g. %s 1024)", name, flag, flag)
	default:
		f.errorf(k, kp, "targets.%s.command gives %s %d times: want it once", name, flag, n)
	}
	return false
}

// checkSweep checks what goes with sweep:, which stands at n.
func (f *fileReader) checkSweep(n *yaml.Node, path string, s *plan.Scenario) {
	w := s.Sweep
	if w == nil {
		return
	}
	kp := joinKey(path, "sweep")
	switch {
	case s.Capacity != nil:
		f.errorf(n, kp, "a capacity search is one search per target: drop sweep: or capacity:")
	case w.Param == plan.SweepBatch && !s.Plan.JSONRPC.On():
		f.errorf(n, kp, "batch is the number of JSON-RPC calls per request: give jsonrpc.calls (or calls_file) too")
	case w.Param == plan.SweepBatch && s.Plan.JSONRPC.Batch > 0:
		f.errorf(n, kp, "the sweep sets jsonrpc.batch of each run: drop jsonrpc.batch")
	case w.Target != "" && s.Replay != nil:
		f.errorf(n, kp, "a replay sends its recording once per target: drop sweep: or replay:")
	}
}
