package planfile

import (
	"fmt"
	"strings"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/tools/diff"
	"github.com/rpcbench/rpcbench/tools/jsondiff"

	"go.yaml.in/yaml/v3"
)

var diffKeys = []string{"targets", "reference", "noise_threshold", "ignore", "unordered", "tolerance", "rules",
	"null_missing", "strict_numbers", "keep_messages", "pin_block", "skip_above_head", "stop_at_first"}

// diffWith are the keys of a scenario that go with diff: what it sends, at what pace, and how
// the requests travel. The comparison judges the answers, and the diff sends to several targets
// at once, in one run.
var diffWith = []string{"diff", "endpoints", "path", "method", "body", "header", "targets_file", "targets_format", "order",
	"data", "data_order", "weights", "jsonrpc", "model", "rate", "duration", "requests", "connections", "stages",
	"warmup", "grace", "interval", "timeout", "connect_timeout", "insecure"}

// diff reads a scenario's diff: section; the targets it names must be among f.targetNames.
func (f *fileReader) diff(n *yaml.Node, path string) *plan.ScenarioDiff {
	d := &plan.ScenarioDiff{}
	var targetsAt, refAt, thresholdAt, skipAt *yaml.Node
	f.mapping(n, path, diffKeys, func(key string, k, v *yaml.Node) {
		kp := joinKey(path, key)
		switch key {
		case "targets":
			targetsAt = v
			d.Targets = f.strings(v, kp)
			seen := map[string]bool{}
			for i, name := range d.Targets {
				switch {
				case !contains(f.targetNames, name):
					f.errorf(v, fmt.Sprintf("%s[%d]", kp, i), "%q is no target of the file: want one of %s", name, strings.Join(f.targetNames, ", "))
				case seen[name]:
					f.errorf(v, fmt.Sprintf("%s[%d]", kp, i), "%q is named twice", name)
				}
				seen[name] = true
			}
		case "reference":
			refAt = v
			if d.Reference = f.str(v, kp); d.Reference != "" && !contains(f.targetNames, d.Reference) {
				f.errorf(v, kp, "%q is no target of the file: want the target that is a second instance of the primary, one of %s", d.Reference, strings.Join(f.targetNames, ", "))
			}
		case "noise_threshold":
			thresholdAt = v
			d.NoiseThreshold = f.share(v, kp)
		case "ignore", "unordered":
			list := f.strings(v, kp)
			for i, s := range list {
				if _, err := jsondiff.ParsePattern(s); err != nil {
					f.errorf(v, fmt.Sprintf("%s[%d]", kp, i), "%v", err)
				}
			}
			if key == "ignore" {
				d.Ignore = list
			} else {
				d.Unordered = list
			}
		case "tolerance":
			d.Tolerance = f.pairs(v, kp, "PATH: BOUND, e.g. result.gasPrice: 5%", func(s string) error { _, err := jsondiff.ParseTolerance(s); return err })
		case "rules":
			d.Rules = f.pairs(v, kp, "METHOD: RULE, e.g. eth_call: error-code-only", func(s string) error { _, _, err := diff.ParseErrorRule(s); return err })
		case "null_missing":
			d.NullMissing = f.boolean(v, kp)
		case "strict_numbers":
			d.StrictNumbers = f.boolean(v, kp)
		case "keep_messages":
			d.KeepMessages = f.boolean(v, kp)
		case "pin_block":
			d.PinBlock = f.boolean(v, kp)
		case "skip_above_head":
			skipAt = v
			d.SkipAboveHead = f.boolean(v, kp)
		case "stop_at_first":
			d.StopAtFirst = f.boolean(v, kp)
		}
	})
	switch {
	case d.SkipAboveHead && !d.PinBlock:
		f.errorf(skipAt, joinKey(path, "skip_above_head"), "goes with pin_block: true")
	case thresholdAt != nil && d.Reference == "":
		f.errorf(thresholdAt, joinKey(path, "noise_threshold"), "goes with reference: (the second instance of the primary)")
	}
	compared := d.Targets
	if len(compared) == 0 {
		for _, t := range f.targetNames {
			if t != d.Reference {
				compared = append(compared, t)
			}
		}
	}
	if d.Reference != "" && contains(compared, d.Reference) {
		f.errorf(refAt, joinKey(path, "reference"), "%q is among the targets compared: the reference is a second instance of the primary (%s), apart from them", d.Reference, compared[0])
	}
	if len(compared) < 2 {
		at, key := targetsAt, joinKey(path, "targets")
		if at == nil {
			at, key = n, path
		}
		f.errorf(at, key, "compares %d target (%s): want two or more, the first the primary", len(compared), strings.Join(compared, ", "))
	}
	return d
}

// share reads a share from 0 to 1: 0.25 or 25%.
func (f *fileReader) share(n *yaml.Node, path string) float64 {
	s, ok := f.scalar(n, path, "a share such as 0.5 or 50%")
	if !ok {
		return 0
	}
	v, err := diff.ParseShare(s)
	if err != nil {
		f.errorf(n, path, "%v", err)
	}
	return v
}

// pairs reads a mapping of KEY: VALUE (or a list of "KEY=VALUE") as "KEY=VALUE" texts, each
// checked by check.
func (f *fileReader) pairs(n *yaml.Node, path, want string, check func(string) error) []string {
	var out []string
	add := func(at *yaml.Node, key, s string) {
		if err := check(s); err != nil {
			f.errorf(at, key, "%v", err)
		}
		out = append(out, s)
	}
	switch n.Kind {
	case yaml.MappingNode:
		f.mapping(n, path, nil, func(key string, k, v *yaml.Node) {
			if s, ok := f.scalar(v, joinKey(path, key), want); ok {
				add(v, joinKey(path, key), key+"="+s)
			}
		})
	case yaml.SequenceNode:
		for i, c := range n.Content {
			kp := fmt.Sprintf("%s[%d]", path, i)
			if s, ok := f.scalar(resolve(c), kp, want); ok {
				add(c, kp, s)
			}
		}
	default:
		f.errorf(n, path, "want a mapping of %s", want)
	}
	return out
}

// checkDiff checks what goes with diff: a diff is one run that sends to several targets at once.
func (f *fileReader) checkDiff(n *yaml.Node, path string, s *plan.Scenario) {
	if s.Diff == nil || n.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if !contains(diffWith, k.Value) {
			f.errorf(k, joinKey(path, k.Value), "a diff sends each request to every target it compares, in one run, and judges by the answers: drop %s here (with diff: give only %s)",
				k.Value, strings.Join(diffWith[1:], ", "))
		}
	}
}
