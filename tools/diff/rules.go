package diff

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/rpcbench/rpcbench/internal/jsonpath"
	"github.com/rpcbench/rpcbench/tools/jsondiff"
)

// ErrorRule relaxes how the JSON-RPC errors of one method are compared (the rules of
// Nethermind's json-bench).
type ErrorRule string

const (
	// ErrorCodeOnly compares two errors by their code alone: message and data are dropped.
	ErrorCodeOnly ErrorRule = "error-code-only"
	// ErrorPresenceOnly takes any two errors as equal: an error against a result still differs.
	ErrorPresenceOnly ErrorRule = "error-presence-only"
)

// ParseErrorRule reads METHOD=RULE, e.g. eth_call=error-code-only; METHOD "*" is every method.
func ParseErrorRule(s string) (method string, rule ErrorRule, err error) {
	m, r, ok := strings.Cut(s, "=")
	m, r = strings.TrimSpace(m), strings.TrimSpace(r)
	if !ok || m == "" {
		return "", "", fmt.Errorf("%q: want METHOD=RULE, e.g. eth_call=error-code-only (METHOD * for every method)", s)
	}
	switch ErrorRule(r) {
	case ErrorCodeOnly, ErrorPresenceOnly:
		return m, ErrorRule(r), nil
	}
	return "", "", fmt.Errorf("%q: unknown rule %q; want %s or %s", s, r, ErrorCodeOnly, ErrorPresenceOnly)
}

// ignores are the paths a rule leaves out, in a single answer and in a batch.
func (r ErrorRule) ignores() []jsondiff.Pattern {
	members := []string{"message", "data"}
	if r == ErrorPresenceOnly {
		members = append(members, "code")
	}
	var ps []jsondiff.Pattern
	for _, m := range members {
		ps = append(ps, jsondiff.MustPattern("error."+m), jsondiff.MustPattern("[*].error."+m))
	}
	return ps
}

// judge holds what send needs beside the servers: the rules per method, the reference's index
// and the pinning.
type judge struct {
	base     jsondiff.Options
	byMethod map[string]*jsondiff.Options
	ref      int
	pin      bool
	skip     bool
}

func newJudge(cfg Config) (*judge, error) {
	j := &judge{base: cfg.Rules, pin: cfg.PinBlock, skip: cfg.SkipAboveHead, byMethod: map[string]*jsondiff.Options{}}
	if cfg.SkipAboveHead && !cfg.PinBlock {
		return nil, fmt.Errorf("diff: SkipAboveHead goes with PinBlock")
	}
	if cfg.Reference != "" {
		j.ref = len(cfg.URLs)
	}
	for m, r := range cfg.ErrorRules { // a method's own rule, not "*"'s, applies to it
		if r != ErrorCodeOnly && r != ErrorPresenceOnly {
			return nil, fmt.Errorf("diff: method %s: unknown error rule %q", m, r)
		}
		o := cfg.Rules
		o.Ignore = append(append([]jsondiff.Pattern(nil), cfg.Rules.Ignore...), r.ignores()...)
		j.byMethod[m] = &o
	}
	return j, nil
}

// options are the rules for q: its method's (by label or by the method in its body), else
// those of every method.
func (j *judge) options(q *Request) *jsondiff.Options {
	if len(j.byMethod) > 0 {
		if o, ok := j.byMethod[q.Label]; ok {
			return o
		}
		if o, ok := j.byMethod[LabelOf(q.Body)]; ok {
			return o
		}
		if o, ok := j.byMethod["*"]; ok {
			return o
		}
	}
	return &j.base
}

// NoiseKey is the path under which noise is learned: a difference's path with every array index
// written [*], so that result.transactions[3].hash and [5].hash are one path. A path that is not
// a JSON path ("(status)", "(body)") is its own key.
func NoiseKey(path string) string {
	p, err := jsonpath.Parse(path, false)
	if err != nil || strings.HasPrefix(path, "(") {
		return path
	}
	wild := false
	for i := range p {
		if p[i].IsIndex {
			p[i].Any, p[i].Index, wild = true, 0, true
		}
	}
	if !wild {
		return path
	}
	return p.String()
}

// splitNoise moves each candidate's differences at the paths where the reference differs from
// server 0 into r.Noise.
func splitNoise(r *Result) {
	noisy := map[string]bool{}
	for _, d := range r.Diffs[r.Ref] {
		noisy[NoiseKey(d.Path)] = true
	}
	r.Noise = make([][]jsondiff.Difference, len(r.Answers))
	for k := range r.Answers {
		if k == r.Ref || len(r.Diffs[k]) == 0 {
			continue
		}
		var kept []jsondiff.Difference
		for _, d := range r.Diffs[k] {
			if noisy[NoiseKey(d.Path)] {
				r.Noise[k] = append(r.Noise[k], d)
			} else {
				kept = append(kept, d)
			}
		}
		r.Diffs[k] = kept
	}
}

// RuleNames lists the rules of cfg that differ from the defaults, as the diff command's flags
// name them, for the report: "ignore result.timestamp", "tolerance result.gasPrice=5%",
// "rule eth_call=error-code-only", "pin-block", ….
func (cfg Config) RuleNames() []string {
	var out []string
	o := cfg.Rules
	for _, p := range o.Ignore {
		out = append(out, "ignore "+p.String())
	}
	for _, p := range o.Unordered {
		out = append(out, "unordered "+p.String())
	}
	for _, t := range o.Tolerance {
		out = append(out, "tolerance "+t.String())
	}
	for _, b := range []struct {
		name string
		on   bool
	}{{"null-missing", o.NullIsMissing}, {"strict-numbers", o.StrictNumbers}, {"keep-messages", o.KeepErrorMessages}} {
		if b.on {
			out = append(out, b.name)
		}
	}
	for _, m := range slices.Sorted(maps.Keys(cfg.ErrorRules)) {
		out = append(out, fmt.Sprintf("rule %s=%s", m, cfg.ErrorRules[m]))
	}
	if cfg.PinBlock {
		out = append(out, "pin-block")
	}
	if cfg.SkipAboveHead {
		out = append(out, "skip-above-head")
	}
	return out
}

// ParseShare reads a share from 0 to 1, as a noise threshold is written: 0.25 or 25%.
func ParseShare(s string) (float64, error) {
	t := strings.TrimSpace(s)
	pct := strings.HasSuffix(t, "%")
	v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(t, "%")), 64)
	if pct {
		v /= 100
	}
	if err != nil || !(v >= 0 && v <= 1) {
		return 0, fmt.Errorf("want a share from 0 to 1, e.g. 0.5 or 50%%, got %q", s)
	}
	return v, nil
}
