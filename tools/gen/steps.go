package gen

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/tools/jsondiff"
	"go.yaml.in/yaml/v3"
)

// Step is one call of a steps file, made once or once per item of its ForEach.
type Step struct {
	// Name is what later steps call its answers by ({{NAME.result…}}); the method by default.
	Name   string
	Method string
	// Params is the params member, with templates; nil: none.
	Params *Template
	// Each is what the step iterates over; nil: the step runs once.
	Each *ForEach
	// Limit bounds the calls of the step; 0: no bound.
	Limit int
	// Line is where the step starts in its file.
	Line int
}

// ForEach is what a step iterates over: the values a reference selects in the answers of an
// earlier step (every answer, when that step ran more than once), or a range of integers.
type ForEach struct {
	Ref *Ref
	// From and To bound a range, both included; a bound is a number or a reference to one.
	From, To Bound
	// Hex writes the range's items as 0x quantities ("0x1a"), not numbers.
	Hex bool
}

// Bound is a range's bound: N, or Ref when set.
type Bound struct {
	N   uint64
	Ref *Ref
}

// Ref is a reference {{item…}} or {{STEP…}}: the item of the step's ForEach, or the answer of an
// earlier step ({"result":…} or {"error":{"code":…,"message":…}}), and a JSON path in it.
type Ref struct {
	Step string // "" for item
	Path jsondiff.Pattern
	Src  string
}

// Template is a JSON value whose strings may hold references: a string that is one reference
// alone takes the referred value as it is (a number stays a number), and references inside a
// longer string are replaced by the value's text.
type Template struct {
	lit   json.RawMessage // a value without references
	parts []tpart         // a string with references
	whole *Ref            // a string that is one reference alone
	keys  []string        // an object's members, in order
	vals  []*Template     // an object's values or an array's elements
	array bool
}

type tpart struct {
	text string
	ref  *Ref
}

// MaxStepsFileSize bounds a steps file.
const MaxStepsFileSize = 1 << 20

// ReadSteps reads a steps file (YAML, or JSON, which YAML reads too) from r: a list of steps, each
// with method, and optionally name, params, for_each and limit. name labels the errors, each of
// which gives its line and column (errors.Join of *plan.FileError).
func ReadSteps(name string, r io.Reader) ([]Step, error) {
	text, err := io.ReadAll(io.LimitReader(r, MaxStepsFileSize+1))
	if err != nil {
		return nil, &plan.FileError{File: name, Msg: err.Error()}
	}
	if len(text) > MaxStepsFileSize {
		return nil, &plan.FileError{File: name, Msg: fmt.Sprintf("larger than %d MiB: want a steps file", MaxStepsFileSize>>20)}
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(text, &doc); err != nil {
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		line := 0
		if l, rest, ok := strings.Cut(msg, ": "); ok {
			if n, err := strconv.Atoi(strings.TrimPrefix(l, "line ")); err == nil {
				line, msg = n, rest
			}
		}
		return nil, &plan.FileError{File: name, Line: line, Col: 1, Msg: "not valid YAML or JSON: " + msg}
	}
	sr := &stepsReader{file: name, names: map[string]*Step{}}
	if len(doc.Content) == 0 {
		return nil, &plan.FileError{File: name, Msg: "empty: want a list of steps, e.g. - method: eth_blockNumber"}
	}
	list := doc.Content[0]
	if list.Kind != yaml.SequenceNode || len(list.Content) == 0 {
		sr.errorf(list, "want a list of steps, e.g. - method: eth_blockNumber")
		return nil, errors.Join(sr.errs...)
	}
	steps := make([]Step, 0, len(list.Content))
	for _, n := range list.Content {
		st, ok := sr.step(n)
		if ok {
			steps = append(steps, st)
			sr.names[st.Name] = &steps[len(steps)-1]
		}
	}
	if len(sr.errs) > 0 {
		return nil, errors.Join(sr.errs...)
	}
	return steps, nil
}

type stepsReader struct {
	file  string
	errs  []error
	names map[string]*Step // the steps read so far, by name
}

func (r *stepsReader) errorf(n *yaml.Node, format string, a ...any) {
	r.errs = append(r.errs, &plan.FileError{File: r.file, Line: n.Line, Col: n.Column, Msg: fmt.Sprintf(format, a...)})
}

func (r *stepsReader) step(n *yaml.Node) (Step, bool) {
	st := Step{Line: n.Line}
	if n.Kind != yaml.MappingNode {
		r.errorf(n, "want a step: a mapping with method:, and name:, params:, for_each:, limit: as needed")
		return st, false
	}
	before := len(r.errs)
	var params, each *yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch k.Value {
		case "name", "method":
			if v.Kind != yaml.ScalarNode || v.Tag != "!!str" || strings.TrimSpace(v.Value) == "" {
				r.errorf(v, "%s: want a string", k.Value)
			} else if k.Value == "name" {
				st.Name = v.Value
			} else {
				st.Method = v.Value
			}
		case "params":
			params = v
		case "for_each":
			each = v
		case "limit":
			if v.Kind != yaml.ScalarNode || v.Decode(&st.Limit) != nil || st.Limit < 1 {
				r.errorf(v, "limit: want a number of calls, 1 or more")
			}
		default:
			r.errorf(k, "unknown key %q: want method, name, params, for_each or limit", k.Value)
		}
	}
	if st.Method == "" {
		r.errorf(n, "want method: the JSON-RPC method to call")
	}
	if st.Name == "" {
		st.Name = st.Method
	}
	if strings.ContainsAny(st.Name, ".[]{} ") || st.Name == "item" {
		r.errorf(n, "name %q: want a word without . [ ] { } or spaces, other than item", st.Name)
	} else if old, ok := r.names[st.Name]; ok && st.Name != "" {
		r.errorf(n, "name %q: line %d has it already: give this step a name of its own (name: …)", st.Name, old.Line)
	}
	if each != nil {
		st.Each = r.forEach(each)
	}
	if params != nil {
		st.Params = r.template(params, st.Each != nil)
	}
	return st, len(r.errs) == before
}

func (r *stepsReader) forEach(n *yaml.Node) *ForEach {
	const want = `for_each: want "{{STEP.PATH}}" (every value the path selects in STEP's answers, e.g. "{{block.result.transactions[*].hash}}") or a range {from: N, to: N or "{{STEP.PATH}}", hex: true}`
	switch n.Kind {
	case yaml.ScalarNode:
		ref, ok := r.wholeRef(n)
		if !ok {
			r.errorf(n, "%s", want)
			return nil
		}
		if ref.Step == "" {
			r.errorf(n, "for_each %q: {{item}} is the item of a for_each: want an earlier step's name", n.Value)
			return nil
		}
		if !r.known(n, ref, true) {
			return nil
		}
		return &ForEach{Ref: ref}
	case yaml.MappingNode:
		fe := &ForEach{}
		var from, to bool
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			switch k.Value {
			case "from":
				fe.From, from = r.bound(v), true
			case "to":
				fe.To, to = r.bound(v), true
			case "hex":
				if v.Decode(&fe.Hex) != nil {
					r.errorf(v, "hex: want true or false")
				}
			default:
				r.errorf(k, "for_each: unknown key %q: want from, to and hex", k.Value)
			}
		}
		if !from || !to {
			r.errorf(n, "for_each: a range wants from: and to:")
		} else if fe.From.Ref == nil && fe.To.Ref == nil && fe.To.N < fe.From.N {
			r.errorf(n, "for_each: from %d is after to %d", fe.From.N, fe.To.N)
		}
		return fe
	}
	r.errorf(n, "%s", want)
	return nil
}

func (r *stepsReader) bound(n *yaml.Node) Bound {
	var b Bound
	if n.Kind == yaml.ScalarNode && n.Tag == "!!int" && n.Decode(&b.N) == nil {
		return b
	}
	if ref, ok := r.wholeRef(n); ok && ref.Step != "" {
		if r.known(n, ref, false) {
			b.Ref = ref
		}
		return b
	}
	r.errorf(n, `want a number of 0 or more or "{{STEP.PATH}}", e.g. "{{head.result}}"`)
	return b
}

// wholeRef reads a string that is one reference alone.
func (r *stepsReader) wholeRef(n *yaml.Node) (*Ref, bool) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!str" {
		return nil, false
	}
	parts, err := parseParts(n.Value)
	if err != nil {
		r.errorf(n, "%v", err)
		return nil, false
	}
	if len(parts) != 1 || parts[0].ref == nil {
		return nil, false
	}
	return parts[0].ref, true
}

// known checks that ref names an earlier step, and that it selects one value unless many may.
func (r *stepsReader) known(n *yaml.Node, ref *Ref, many bool) bool {
	if ref.Step == "" {
		if !many && ref.Path.Wild() {
			r.errorf(n, "%q: a path with * selects many values: iterate over them with for_each", "{{"+ref.Src+"}}")
			return false
		}
		return true
	}
	st, ok := r.names[ref.Step]
	switch {
	case !ok:
		r.errorf(n, "%q: no earlier step is named %s (want item or one of the steps before: %s)", "{{"+ref.Src+"}}", ref.Step, strings.Join(slices.Sorted(maps.Keys(r.names)), ", "))
		return false
	case many:
		return true
	case st.Each != nil:
		r.errorf(n, "%q: step %s (line %d) runs once per item of its for_each: iterate over its answers with for_each", "{{"+ref.Src+"}}", ref.Step, st.Line)
		return false
	case ref.Path.Wild():
		r.errorf(n, "%q: a path with * selects many values: iterate over them with for_each", "{{"+ref.Src+"}}")
		return false
	}
	return true
}

// template reads params: any value, whose strings may hold references.
func (r *stepsReader) template(n *yaml.Node, item bool) *Template {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	switch n.Kind {
	case yaml.MappingNode:
		t := &Template{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			t.keys = append(t.keys, n.Content[i].Value)
			t.vals = append(t.vals, r.template(n.Content[i+1], item))
		}
		return t
	case yaml.SequenceNode:
		t := &Template{array: true}
		for _, c := range n.Content {
			t.vals = append(t.vals, r.template(c, item))
		}
		return t
	case yaml.ScalarNode:
		if n.Tag == "!!str" && strings.Contains(n.Value, "{{") {
			parts, err := parseParts(n.Value)
			if err != nil {
				r.errorf(n, "%v", err)
				return &Template{lit: json.RawMessage(`null`)}
			}
			for _, p := range parts {
				if p.ref == nil {
					continue
				}
				if p.ref.Step == "" && !item {
					r.errorf(n, "%q: {{item}} is the item of a for_each, and this step has none", "{{"+p.ref.Src+"}}")
				} else {
					r.known(n, p.ref, false)
				}
			}
			if len(parts) == 1 && parts[0].ref != nil {
				return &Template{whole: parts[0].ref}
			}
			return &Template{parts: parts}
		}
		var v any
		if err := n.Decode(&v); err != nil {
			r.errorf(n, "%v", err)
			return &Template{lit: json.RawMessage(`null`)}
		}
		b, err := json.Marshal(v)
		if err != nil {
			r.errorf(n, "want a JSON value: %v", err)
		}
		return &Template{lit: b}
	}
	r.errorf(n, "want a JSON value")
	return &Template{lit: json.RawMessage(`null`)}
}

// parseParts splits s into text and {{references}}.
func parseParts(s string) ([]tpart, error) {
	var parts []tpart
	rest := s
	for rest != "" {
		i := strings.Index(rest, "{{")
		if i < 0 {
			parts = append(parts, tpart{text: rest})
			break
		}
		if i > 0 {
			parts = append(parts, tpart{text: rest[:i]})
		}
		j := strings.Index(rest[i:], "}}")
		if j < 0 {
			return nil, fmt.Errorf("%q: want }} to close {{", s)
		}
		ref, err := parseRef(strings.TrimSpace(rest[i+2 : i+j]))
		if err != nil {
			return nil, err
		}
		parts = append(parts, tpart{ref: ref})
		rest = rest[i+j+2:]
	}
	return parts, nil
}

// parseRef reads item, item.PATH, STEP or STEP.PATH.
func parseRef(s string) (*Ref, error) {
	name, path := s, ""
	if i := strings.IndexAny(s, ".["); i >= 0 {
		name, path = s[:i], strings.TrimPrefix(s[i:], ".")
	}
	if name == "" {
		return nil, fmt.Errorf("{{%s}}: want item, item.PATH, STEP or STEP.PATH, e.g. {{head.result}}", s)
	}
	if path == "" {
		path = "$"
	}
	p, err := jsondiff.ParsePattern(path)
	if err != nil {
		return nil, fmt.Errorf("{{%s}}: %v", s, err)
	}
	ref := &Ref{Step: name, Path: p, Src: s}
	if name == "item" {
		ref.Step = ""
	}
	return ref, nil
}

// errNoValue says that a reference selected nothing.
var errNoValue = errors.New("no value")

// lookup gives the values a reference selects.
type lookup func(ref *Ref) ([]json.RawMessage, error)

// render writes t with its references filled.
func (t *Template) render(dst []byte, get lookup) ([]byte, error) {
	switch {
	case t.lit != nil:
		return append(dst, t.lit...), nil
	case t.whole != nil:
		v, err := one(t.whole, get)
		if err != nil {
			return nil, err
		}
		return append(dst, v...), nil
	case t.parts != nil:
		var b strings.Builder
		for _, p := range t.parts {
			if p.ref == nil {
				b.WriteString(p.text)
				continue
			}
			v, err := one(p.ref, get)
			if err != nil {
				return nil, err
			}
			var s string
			if json.Unmarshal(v, &s) == nil {
				b.WriteString(s)
			} else {
				b.Write(v)
			}
		}
		return append(dst, mustJSON(b.String())...), nil
	case t.array:
		dst = append(dst, '[')
		for i, v := range t.vals {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = v.render(dst, get); err != nil {
				return nil, err
			}
		}
		return append(dst, ']'), nil
	}
	dst = append(dst, '{')
	for i, k := range t.keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(append(dst, mustJSON(k)...), ':')
		var err error
		if dst, err = t.vals[i].render(dst, get); err != nil {
			return nil, err
		}
	}
	return append(dst, '}'), nil
}

func one(ref *Ref, get lookup) (json.RawMessage, error) {
	vs, err := get(ref)
	if err != nil {
		return nil, err
	}
	if len(vs) == 0 || bytes.Equal(vs[0], []byte("null")) {
		return nil, errNoValue
	}
	return vs[0], nil
}

// number reads a bound's value: a JSON number or a 0x quantity.
func number(v json.RawMessage) (uint64, error) {
	var s string
	if json.Unmarshal(v, &s) == nil {
		if n, err := parseQuantity(s); err == nil {
			return n, nil
		}
		if n, err := strconv.ParseUint(s, 10, 64); err == nil {
			return n, nil
		}
		return 0, fmt.Errorf("%s: want a number or a 0x quantity", clip(v, 40))
	}
	var f float64
	if json.Unmarshal(v, &f) != nil || f < 0 || f != math.Trunc(f) || f > 1<<53 {
		return 0, fmt.Errorf("%s: want a number or a 0x quantity", clip(v, 40))
	}
	return uint64(f), nil
}
