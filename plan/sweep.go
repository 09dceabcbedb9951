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
// then its value after "=" or blanks (group 3: the value with whatever follows it up to a blank,
// which numberEnd tells apart).
func shellFlag(flag string) *regexp.Regexp {
	return regexp.MustCompile(`(^|\s)` + regexp.QuoteMeta(flag) + `(=|\s+)(\S+)`)
}

// numberEnd returns the length of the whole number that word starts with, when the rest of word
// is nothing or starts with a character the shell ends a word at (";", "&", "|", ")", …): in
// "1024);" the number is 1024 and the ");" stays the shell's. It returns 0 when word is not a plain
// whole number so ended ("abc", "1.5", "10k", "$N").
func numberEnd(word string) int {
	n := 0
	for n < len(word) && word[n] >= '0' && word[n] <= '9' {
		n++
	}
	if n == 0 || n < len(word) && !strings.ContainsRune(";&|()<>'\"`", rune(word[n])) {
		return 0
	}
	return n
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

// flagValue finds the value of flag (given once, as FlagCount finds it) in cmd: the index of the
// word that holds it and where it starts and ends in that word, ok false when the value there
// is not a plain whole number (see numberEnd), word -1 when cmd does not give flag exactly once.
func flagValue(cmd []string, shell bool, flag string) (word, start, end int, ok bool) {
	if FlagCount(cmd, shell, flag) != 1 {
		return -1, 0, 0, false
	}
	if shell {
		m := shellFlag(flag).FindStringSubmatchIndex(cmd[0])
		n := numberEnd(cmd[0][m[6]:m[7]])
		return 0, m[6], m[6] + n, n > 0
	}
	for i, a := range cmd {
		switch {
		case a == flag && i+1 < len(cmd):
			return i + 1, 0, len(cmd[i+1]), numberEnd(cmd[i+1]) == len(cmd[i+1])
		case strings.HasPrefix(a, flag+"="):
			return i, len(flag) + 1, len(a), numberEnd(a[len(flag)+1:]) == len(a)-len(flag)-1
		}
	}
	return -1, 0, 0, false
}

// FlagValue returns the value flag has in cmd, as given (in a shell command line, the word after
// the flag up to a blank), and whether that is a plain whole number SetFlag can replace; "" and
// false when cmd does not give flag exactly once.
func FlagValue(cmd []string, shell bool, flag string) (string, bool) {
	i, start, end, ok := flagValue(cmd, shell, flag)
	switch {
	case i < 0:
		return "", false
	case shell && !ok:
		m := shellFlag(flag).FindStringSubmatchIndex(cmd[0])
		return cmd[0][m[6]:m[7]], false
	}
	return cmd[i][start:end], ok
}

// SetFlag returns a copy of cmd with the value of flag (given once, as FlagCount finds it, as a
// plain whole number) set to value; false when cmd does not give flag exactly once, or gives it
// a value that is not a plain whole number. In a shell command line only the number is replaced:
// the shell's characters after it (";", ")", "&&", …) stay.
func SetFlag(cmd []string, shell bool, flag, value string) ([]string, bool) {
	i, start, end, ok := flagValue(cmd, shell, flag)
	if !ok {
		return cmd, false
	}
	out := slices.Clone(cmd)
	out[i] = out[i][:start] + value + out[i][end:]
	return out, true
}
