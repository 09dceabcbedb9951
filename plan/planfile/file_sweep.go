package planfile

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/rpcbench/rpcbench/plan"
)

// sweep reads sweep: {PARAM: [v1, v2, …]}: one parameter of plan.SweepParams and its values,
// whole numbers, each given once.
func (f *fileReader) sweep(n *yaml.Node, path string) *plan.Sweep {
	want := fmt.Sprintf("want one parameter and its values, e.g. {batch: [1, 10, 50, 100]}; the parameters: %s", strings.Join(plan.SweepParams, ", "))
	var w *plan.Sweep
	if !f.mapping(n, path, plan.SweepParams, func(key string, k, v *yaml.Node) {
		kp := joinKey(path, key)
		if w != nil {
			f.errorf(k, kp, "a sweep varies one parameter (%s is swept already)", w.Param)
			return
		}
		w = &plan.Sweep{Param: key}
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
	return w
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
	}
}
