package compare

import (
	"strconv"
	"strings"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/summary"
)

// Setting is one input of the runs, side by side: what each run was asked to do (its load model,
// rate, connections, stages, length). An input is the setting of a comparison, never better or
// worse: a run asked for 2000/s did not do better than one asked for 1000/s.
type Setting struct {
	Name string `json:"name"` // "model", "rate", "connections", "stages", "length"
	// Values are each run's, as written ("1000/s", "30s"); "" for a run without it.
	Values []string `json:"values"`
	// Same says every run has the same value.
	Same bool `json:"same"`
}

// closedModel reports whether l is the closed model, where the throughput is what the target did
// with a number of connections, an outcome; in the open model the rate is asked for. A load without
// a model is closed unless it has a rate or stages (as plan.Plan.Normalized reads it).
func closedModel(l plan.Load) bool {
	return l.Model == plan.Closed || (l.Model == "" && l.Rate == 0 && len(l.Stages) == 0)
}

// allClosed reports whether every run is of the closed model: only then is throughput an outcome
// to judge.
func allClosed(runs []*summary.Summary) bool {
	for _, s := range runs {
		if !closedModel(s.Config.Load) {
			return false
		}
	}
	return true
}

// settings returns the inputs of the runs that some run has.
func settings(runs []*summary.Summary) []Setting {
	num := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	of := []struct {
		name string
		f    func(l plan.Load) string
	}{
		{"model", func(l plan.Load) string {
			if closedModel(l) {
				return string(plan.Closed)
			}
			return string(plan.Open)
		}},
		{"rate", func(l plan.Load) string {
			if closedModel(l) || len(l.Stages) > 0 {
				return ""
			}
			return num(l.Rate) + "/s"
		}},
		{"connections", func(l plan.Load) string {
			switch {
			case l.Connections == 0:
				return ""
			case closedModel(l) && len(l.Stages) == 0:
				return strconv.Itoa(l.Connections)
			case closedModel(l):
				return "" // the stages set them
			}
			return "up to " + strconv.Itoa(l.Connections)
		}},
		{"stages", func(l plan.Load) string {
			unit := "/s"
			if closedModel(l) {
				unit = " connections"
			}
			parts := make([]string, len(l.Stages))
			for i, st := range l.Stages {
				parts[i] = st.Duration.String() + " to " + num(st.Target) + unit
			}
			return strings.Join(parts, ", ")
		}},
		{"length", func(l plan.Load) string {
			switch {
			case l.Requests > 0 && l.Duration > 0:
				return l.Duration.String() + " or " + strconv.FormatUint(l.Requests, 10) + " requests"
			case l.Requests > 0:
				return strconv.FormatUint(l.Requests, 10) + " requests"
			case l.Duration > 0:
				return l.Duration.String()
			}
			return ""
		}},
	}
	var out []Setting
	for _, o := range of {
		st := Setting{Name: o.name, Same: true}
		any := false
		for _, s := range runs {
			v := o.f(s.Config.Load)
			any = any || v != ""
			st.Same = st.Same && v == o.f(runs[0].Config.Load)
			st.Values = append(st.Values, v)
		}
		if any {
			out = append(out, st)
		}
	}
	// What sent the requests: the event loop times answers by the kernel's receive timestamps, a
	// goroutine per connection when it reads them.
	st := Setting{Name: "sender", Same: true}
	loop := false
	for _, s := range runs {
		v := s.Sender
		if v == "" {
			v = "goroutines"
		}
		loop = loop || s.Sender != ""
		st.Same = st.Same && s.Sender == runs[0].Sender
		st.Values = append(st.Values, v)
	}
	if loop {
		out = append(out, st)
	}
	return out
}

// inputsNote says, when the runs' inputs differ, that each run's outcomes are at its own inputs:
// "compared at their own inputs: rate 1000/s vs 2000/s"; "" when every input is the same.
func inputsNote(settings []Setting) string {
	var diff []string
	for _, st := range settings {
		if st.Same {
			continue
		}
		vs := make([]string, len(st.Values))
		for i, v := range st.Values {
			if v == "" {
				v = "none"
			}
			vs[i] = v
		}
		diff = append(diff, st.Name+" "+strings.Join(vs, " vs "))
	}
	if len(diff) == 0 {
		return ""
	}
	return "compared at their own inputs: " + strings.Join(diff, "; ")
}
