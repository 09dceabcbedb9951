package jsonpath

// The two parsers this package replaced, as they were (check/path.go and jsondiff/path.go), kept
// here as the independent route the tests compare Parse with.

import (
	"fmt"
	"strconv"
	"strings"
)

type oldCheckPath struct {
	steps []oldCheckStep
	src   string
}

type oldCheckStep struct {
	key   string
	index int // used when key is ""
}

// oldMaxSteps bounds a path's length.
const oldMaxSteps = 64

func oldCheckParse(s string) (oldCheckPath, error) {
	p := oldCheckPath{src: s}
	rest := strings.TrimPrefix(s, "$")
	if rest == "" {
		if s == "" {
			return p, fmt.Errorf("empty JSON path: want e.g. result.hash or result[0].id")
		}
		return p, nil
	}
	if rest != s && rest[0] != '.' && rest[0] != '[' {
		return p, oldCheckErr(s, 1, "'.' or '[' after '$'")
	}
	i := 0
	if rest != s && rest[0] == '.' {
		i = 1
	}
	off := len(s) - len(rest)
	first := true
	for i < len(rest) {
		if len(p.steps) == oldMaxSteps {
			return p, oldCheckErr(s, off+i, fmt.Sprintf("at most %d steps", oldMaxSteps))
		}
		switch c := rest[i]; {
		case c == '[':
			j := strings.IndexByte(rest[i:], ']')
			if j < 0 {
				return p, oldCheckErr(s, off+i, "']' to close the index")
			}
			n, err := strconv.Atoi(rest[i+1 : i+j])
			if err != nil || n < 0 || strings.HasPrefix(rest[i+1:i+j], "+") {
				return p, oldCheckErr(s, off+i+1, "an index of 0 or more between [ and ]")
			}
			p.steps = append(p.steps, oldCheckStep{index: n})
			i += j + 1
		case c == '.':
			if first {
				return p, oldCheckErr(s, off+i, "a member name")
			}
			i++
			if i == len(rest) || rest[i] == '.' || rest[i] == '[' {
				return p, oldCheckErr(s, off+i, "a member name after '.'")
			}
			fallthrough
		default:
			j := i
			for j < len(rest) && !strings.ContainsRune(".[] \t\r\n", rune(rest[j])) {
				j++
			}
			if j == i {
				return p, oldCheckErr(s, off+i, "a member name")
			}
			p.steps = append(p.steps, oldCheckStep{key: rest[i:j]})
			i = j
		}
		first = false
	}
	return p, nil
}

func oldCheckErr(s string, at int, want string) error {
	return fmt.Errorf("JSON path %q: at column %d: want %s", s, at+1, want)
}

type oldDiffStep struct {
	key   string
	index int  // used when isIndex
	isIdx bool // an array element
	any   bool // a wildcard: * (any member) or [*] (any element)
}

type oldDiffPattern struct {
	steps []oldDiffStep
}

// oldMaxPatternSteps bounds a pattern's length.
const oldMaxPatternSteps = 64

func oldDiffParse(s string) (oldDiffPattern, error) {
	var p oldDiffPattern
	rest := strings.TrimSpace(s)
	if rest == "" {
		return p, fmt.Errorf("empty JSON path: want e.g. result.timestamp or result[*].hash")
	}
	if rest == "$" {
		return p, nil
	}
	if r, ok := strings.CutPrefix(rest, "$"); ok {
		if r == "" || r[0] != '.' && r[0] != '[' {
			return p, fmt.Errorf("JSON path %q: want '.' or '[' after '$'", s)
		}
		rest = strings.TrimPrefix(r, ".")
	}
	first := true
	for rest != "" {
		if len(p.steps) == oldMaxPatternSteps {
			return p, fmt.Errorf("JSON path %q: want at most %d steps", s, oldMaxPatternSteps)
		}
		var st oldDiffStep
		var err error
		switch {
		case rest[0] == '[':
			st, rest, err = oldDiffBracket(rest)
		case rest[0] == '.':
			if first {
				return p, fmt.Errorf("JSON path %q: want a member name before '.'", s)
			}
			rest = rest[1:]
			if rest == "" || rest[0] == '.' || rest[0] == '[' {
				return p, fmt.Errorf("JSON path %q: want a member name after '.'", s)
			}
			continue
		default:
			j := strings.IndexAny(rest, ".[")
			if j < 0 {
				j = len(rest)
			}
			if strings.ContainsAny(rest[:j], "] \t\r\n\"") {
				return p, fmt.Errorf("JSON path %q: member name %q: quote it as [\"name\"]", s, rest[:j])
			}
			st = oldDiffStep{key: rest[:j], any: rest[:j] == "*"}
			rest = rest[j:]
		}
		if err != nil {
			return p, fmt.Errorf("JSON path %q: %v", s, err)
		}
		if len(rest) > 0 && rest[0] != '.' && rest[0] != '[' {
			return p, fmt.Errorf("JSON path %q: want '.' or '[' after a step", s)
		}
		p.steps = append(p.steps, st)
		first = false
	}
	return p, nil
}

func oldDiffBracket(s string) (oldDiffStep, string, error) {
	if strings.HasPrefix(s, `["`) {
		q, err := strconv.QuotedPrefix(s[1:])
		if err != nil || !strings.HasPrefix(s[1+len(q):], "]") {
			return oldDiffStep{}, s, fmt.Errorf("want [\"name\"] with a quoted name")
		}
		k, _ := strconv.Unquote(q)
		return oldDiffStep{key: k}, s[1+len(q)+1:], nil
	}
	j := strings.IndexByte(s, ']')
	if j < 0 {
		return oldDiffStep{}, s, fmt.Errorf("want ']' to close %q", s)
	}
	in := s[1:j]
	if in == "*" {
		return oldDiffStep{isIdx: true, any: true}, s[j+1:], nil
	}
	n, err := strconv.Atoi(in)
	if err != nil || n < 0 || strings.HasPrefix(in, "+") {
		return oldDiffStep{}, s, fmt.Errorf("want an index of 0 or more, or *, between [ and ], got %q", in)
	}
	return oldDiffStep{index: n, isIdx: true}, s[j+1:], nil
}

// steps returns the steps of the old parsers as Steps.
func (p oldCheckPath) steps2() Path {
	out := Path{}
	for _, s := range p.steps {
		out = append(out, Step{Key: s.key, Index: s.index, IsIndex: s.key == ""})
	}
	return out
}

func (p oldDiffPattern) steps2() Path {
	out := Path{}
	for _, s := range p.steps {
		out = append(out, Step{Key: s.key, Index: s.index, IsIndex: s.isIdx, Any: s.any})
	}
	return out
}
