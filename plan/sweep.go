package plan

import "strconv"

// Sweep varies one parameter of a scenario over values, each value a run of its own against
// every target (with steps or alone, every step or part at every value), so that a report puts
// the values side by side, a row per value.
type Sweep struct {
	// Param is the parameter varied, one of SweepParams.
	Param string `json:"param"`
	// Values are its values, in the order they are run.
	Values []int `json:"values"`
}

// SweepBatch sweeps jsonrpc.batch: the number of JSON-RPC calls per request.
const SweepBatch = "batch"

// SweepParams are the parameters a sweep can vary.
var SweepParams = []string{SweepBatch}

// label names value i: "batch 10".
func (w *Sweep) label(i int) string { return w.Param + " " + strconv.Itoa(w.Values[i]) }

// apply sets value i in p.
func (w *Sweep) apply(p *Plan, i int) {
	switch w.Param {
	case SweepBatch:
		p.JSONRPC.Batch = w.Values[i]
	}
}
