package plan

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Sweep varies one parameter of a scenario over values, each value a run of its own against
// every target (with steps or alone, every step or part at every value), so that a report puts
// the values side by side, a row per value.
type Sweep struct {
	// Param is the parameter varied: one of SweepParams, or "TARGET --FLAG" for a flag of a
	// target's command (see Target and Flag).
	Param string `json:"param"`
	// Values are its values, in the order they are run.
	Values []int `json:"values"`
	// Target and Flag, for a sweep of a target's command ({daemon --max-idle: [1, 10, 100]}):
	// the target whose command is started again at each value, with Flag set to the value.
	Target string `json:"target,omitempty"`
	Flag   string `json:"flag,omitempty"`
}

// SweepBatch sweeps jsonrpc.batch: the number of JSON-RPC calls per request.
const SweepBatch = "batch"

// SweepParams are the parameters of a scenario a sweep can vary; a sweep can also vary a flag
// of a target's command ("TARGET --FLAG").
var SweepParams = []string{SweepBatch}

// label names value i: "batch 10", "daemon --max-idle 10".
func (w *Sweep) label(i int) string { return w.Param + " " + strconv.Itoa(w.Values[i]) }

// apply sets value i in p.
func (w *Sweep) apply(p *Plan, i int) {
	switch w.Param {
	case SweepBatch:
		p.JSONRPC.Batch = w.Values[i]
	}
}

// TargetAt returns t as run k (from 0) of s needs it running: with its command's sweep flag set
// to the run's value when s sweeps a flag of t's command, else t as the plan file gives it.
func (s Scenario) TargetAt(t BenchTarget, k int) BenchTarget {
	w := s.Sweep
	if w == nil || w.Target != t.Name || k < 0 || k >= s.Runs() {
		return t
	}
	if cmd, ok := SetFlag(t.Command, t.Shell, w.Flag, strconv.Itoa(w.Values[s.runs()[k].sweep])); ok {
		t.Command = cmd
	}
	return t
}

// SweepsCommand reports whether s restarts a target at each value of its sweep: it sweeps a flag
// of a target's command.
func (s Scenario) SweepsCommand() bool { return s.Sweep != nil && s.Sweep.Target != "" }

// shellFlag finds a flag and its value in a shell command line: the flag as a word of its own,
// then its value after "=" or blanks.
func shellFlag(flag string) *regexp.Regexp {
	return regexp.MustCompile(`(^|\s)` + regexp.QuoteMeta(flag) + `(=|\s+)(\S+)`)
}

// FlagCount counts the places of flag in a command (an argument vector, or one string for
// /bin/sh -c when shell): "--flag VALUE" or "--flag=VALUE".
func FlagCount(cmd []string, shell bool, flag string) int {
	if shell {
		if len(cmd) == 0 {
			return 0
		}
		return len(shellFlag(flag).FindAllStringIndex(cmd[0], -1))
	}
	n := 0
	for i, a := range cmd {
		if a == flag && i+1 < len(cmd) || strings.HasPrefix(a, flag+"=") {
			n++
		}
	}
	return n
}

// SetFlag returns a copy of cmd with the value of flag (given once, as FlagCount finds it) set to
// value; false when cmd does not give flag exactly once.
func SetFlag(cmd []string, shell bool, flag, value string) ([]string, bool) {
	if FlagCount(cmd, shell, flag) != 1 {
		return cmd, false
	}
	out := slices.Clone(cmd)
	if shell {
		re := shellFlag(flag)
		m := re.FindStringSubmatchIndex(out[0])
		out[0] = out[0][:m[6]] + value + out[0][m[7]:] // group 3: the value
		return out, true
	}
	for i, a := range out {
		switch {
		case a == flag && i+1 < len(out):
			out[i+1] = value
		case strings.HasPrefix(a, flag+"="):
			out[i] = flag + "=" + value
		}
	}
	return out, true
}
