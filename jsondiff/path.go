package jsondiff

import (
	"fmt"
	"strconv"
	"strings"
)

// step is one step of a path or a pattern: a member name, an array index, or a wildcard of either.
type step struct {
	key   string
	index int  // used when isIndex
	isIdx bool // an array element
	any   bool // a wildcard: * (any member) or [*] (any element)
}

// Path is where a value sits in a document, as a list of member names and array indexes. It is
// written in the dotted syntax of Pattern (result.transactions[3].hash), with ["…"] for a member
// whose name is not a plain word; the root is written "$".
type Path []step

func (p Path) child(key string) Path {
	return append(p[:len(p):len(p)], step{key: key})
}

func (p Path) elem(i int) Path {
	return append(p[:len(p):len(p)], step{index: i, isIdx: true})
}

// String writes the path, e.g. result.transactions[3].hash; "$" for the root.
func (p Path) String() string {
	if len(p) == 0 {
		return "$"
	}
	var b strings.Builder
	for i, s := range p {
		writeStep(&b, s, i == 0)
	}
	return b.String()
}

func writeStep(b *strings.Builder, s step, first bool) {
	switch {
	case s.isIdx && s.any:
		b.WriteString("[*]")
	case s.isIdx:
		b.WriteByte('[')
		b.WriteString(strconv.Itoa(s.index))
		b.WriteByte(']')
	case s.any:
		if !first {
			b.WriteByte('.')
		}
		b.WriteByte('*')
	case plainKey(s.key):
		if !first {
			b.WriteByte('.')
		}
		b.WriteString(s.key)
	default:
		b.WriteByte('[')
		b.WriteString(strconv.Quote(s.key))
		b.WriteByte(']')
	}
}

// plainKey reports whether a member name can be written after a dot.
func plainKey(k string) bool {
	if k == "" || k == "*" || k == "$" {
		return false
	}
	for _, c := range k {
		if !(c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// Pattern selects paths: member names and indexes as in a Path, with * for any member and [*]
// for any element, e.g. result.timestamp, result.transactions[*].hash or *.blockHash. A pattern
// matches a path of the same length whose every step it matches. Build it with ParsePattern; the
// zero value matches only the root. Patterns are immutable and safe for concurrent use.
type Pattern struct {
	steps []step
}

// maxPatternSteps bounds a pattern's length.
const maxPatternSteps = 64

// ParsePattern parses a pattern: "result.timestamp", "result[*].hash", "$.result", "[0].error",
// `result["a.b"]`, "*.hash". "$" alone is the root.
func ParsePattern(s string) (Pattern, error) {
	var p Pattern
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
		if len(p.steps) == maxPatternSteps {
			return p, fmt.Errorf("JSON path %q: want at most %d steps", s, maxPatternSteps)
		}
		var st step
		var err error
		switch {
		case rest[0] == '[':
			st, rest, err = bracket(rest)
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
			st = step{key: rest[:j], any: rest[:j] == "*"}
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

// bracket reads [N], [*] or ["name"] at the start of s.
func bracket(s string) (step, string, error) {
	if strings.HasPrefix(s, `["`) {
		q, err := strconv.QuotedPrefix(s[1:])
		if err != nil || !strings.HasPrefix(s[1+len(q):], "]") {
			return step{}, s, fmt.Errorf("want [\"name\"] with a quoted name")
		}
		k, _ := strconv.Unquote(q)
		return step{key: k}, s[1+len(q)+1:], nil
	}
	j := strings.IndexByte(s, ']')
	if j < 0 {
		return step{}, s, fmt.Errorf("want ']' to close %q", s)
	}
	in := s[1:j]
	if in == "*" {
		return step{isIdx: true, any: true}, s[j+1:], nil
	}
	n, err := strconv.Atoi(in)
	if err != nil || n < 0 || strings.HasPrefix(in, "+") {
		return step{}, s, fmt.Errorf("want an index of 0 or more, or *, between [ and ], got %q", in)
	}
	return step{index: n, isIdx: true}, s[j+1:], nil
}

// String writes the pattern back in the dotted syntax.
func (p Pattern) String() string {
	if len(p.steps) == 0 {
		return "$"
	}
	var b strings.Builder
	for i, s := range p.steps {
		writeStep(&b, s, i == 0)
	}
	return b.String()
}

// Match reports whether p selects path.
func (p Pattern) Match(path Path) bool {
	if len(p.steps) != len(path) {
		return false
	}
	for i, s := range p.steps {
		q := path[i]
		if s.isIdx != q.isIdx {
			return false
		}
		if s.any {
			continue
		}
		if s.isIdx && s.index != q.index || !s.isIdx && s.key != q.key {
			return false
		}
	}
	return true
}

// MustPattern is ParsePattern for patterns known to be good; it panics on a bad one.
func MustPattern(s string) Pattern {
	p, err := ParsePattern(s)
	if err != nil {
		panic(err)
	}
	return p
}
