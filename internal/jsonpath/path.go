// Package jsonpath is the one grammar of JSON paths in rpcbench: the paths of checks
// (--check-json, check.ParsePath), of diff's --ignore and --unordered (jsondiff.ParsePattern) and
// of the step references of gen's scripts. A path is a list of steps, each a member by name or an
// array element by index, written as in "result.transactions[0].hash":
//
//	path   = [ "$" ] [ "." ] step { step }   |   "$"
//	step   = name | "." name | "[" index "]" | "[" quoted "]"
//	name   = any text without '.', '[', ']' or white space; "*" is any member where wildcards are on
//	index  = a decimal number of 0 or more; "*" is any element where wildcards are on
//	quoted = a Go or JSON string: ["a.b"], ["a b"], ["*"] (a member whose name is not a plain word)
//
// White space around the whole path is ignored; a '.' never starts a path or follows another.
package jsonpath

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// Step is one step of a path: a member name, an array index, or a wildcard of either.
type Step struct {
	Key     string // the member's name, when not IsIndex
	Index   int    // the element's index, when IsIndex
	IsIndex bool   // an array element
	Any     bool   // a wildcard: * (any member) or [*] (any element)
}

// Path is a parsed path: the steps from the document's root. The empty path is the root itself.
// Paths are values: Child and Elem never change the path they are called on.
type Path []Step

// MaxSteps bounds a path's length.
const MaxSteps = 64

// Parse parses a path. With wild, "*" and "[*]" are wildcards (Step.Any); without, "*" is a member
// named "*" and "[*]" is an error, for uses that read a single value. An error names the path, the
// column (from 1) where it goes wrong and what was wanted there.
func Parse(s string, wild bool) (Path, error) {
	rest := strings.TrimLeftFunc(s, unicode.IsSpace)
	at := len(s) - len(rest) // where rest starts in s
	rest = strings.TrimRightFunc(rest, unicode.IsSpace)
	fail := func(i int, want string) (Path, error) {
		return nil, fmt.Errorf("JSON path %q: at column %d: want %s", s, at+i+1, want)
	}
	if rest == "" {
		return nil, fmt.Errorf("empty JSON path: want e.g. result.hash or result[0].id")
	}
	i := 0
	if rest[0] == '$' {
		i = 1
		switch {
		case len(rest) == 1:
			return Path{}, nil
		case rest[1] == '.':
			i = 2 // "$.a"; "$." alone is the root
		case rest[1] != '[':
			return fail(1, "'.' or '[' after '$'")
		}
	}
	p := Path{}
	for i < len(rest) {
		if len(p) == MaxSteps {
			return fail(i, fmt.Sprintf("at most %d steps", MaxSteps))
		}
		if rest[i] == '[' {
			st, n, want := bracket(rest[i:], wild)
			if want != "" {
				return fail(i+n, want)
			}
			p = append(p, st)
			i += n
			continue
		}
		if rest[i] == '.' {
			if len(p) == 0 {
				return fail(i, "a member name before '.'")
			}
			i++
			if i == len(rest) || rest[i] == '.' || rest[i] == '[' {
				return fail(i, "a member name after '.'")
			}
		}
		j := i
		for j < len(rest) && !strings.ContainsRune(".[] \t\r\n", rune(rest[j])) {
			j++
		}
		if j == i {
			return fail(i, `a member name, '.' or '['; quote it as ["a b"] when it belongs to a member name`)
		}
		name := rest[i:j]
		p = append(p, Step{Key: name, Any: wild && name == "*"})
		i = j
	}
	return p, nil
}

// bracket reads [N], [*] or ["name"] at the start of s, which starts with '['. It returns the
// step and the bytes it took, or what was wanted and its offset in s.
func bracket(s string, wild bool) (Step, int, string) {
	if strings.HasPrefix(s, `["`) {
		q, err := strconv.QuotedPrefix(s[1:])
		if err != nil || !strings.HasPrefix(s[1+len(q):], "]") {
			return Step{}, 0, `["name"] with a quoted name`
		}
		k, _ := strconv.Unquote(q)
		return Step{Key: k}, 1 + len(q) + 1, ""
	}
	j := strings.IndexByte(s, ']')
	if j < 0 {
		return Step{}, 0, "']' to close the index"
	}
	in := s[1:j]
	if wild && in == "*" {
		return Step{IsIndex: true, Any: true}, j + 1, ""
	}
	n, err := strconv.Atoi(in)
	if err != nil || n < 0 || strings.HasPrefix(in, "+") {
		if wild {
			return Step{}, 1, "an index of 0 or more, or *, between [ and ]"
		}
		return Step{}, 1, "an index of 0 or more between [ and ]"
	}
	return Step{Index: n, IsIndex: true}, j + 1, ""
}

// Child returns p and then the member named key.
func (p Path) Child(key string) Path {
	return append(p[:len(p):len(p)], Step{Key: key})
}

// Elem returns p and then the element at index i.
func (p Path) Elem(i int) Path {
	return append(p[:len(p):len(p)], Step{Index: i, IsIndex: true})
}

// Wild reports whether p has a wildcard (* or [*]), so that it may select more than one value.
func (p Path) Wild() bool {
	for _, s := range p {
		if s.Any {
			return true
		}
	}
	return false
}

// String writes p in the grammar above, e.g. result.transactions[3].hash or result[*].hash, with
// ["…"] for a member whose name is not a plain word (a member named "*" included); "$" for the
// root. Parse, with wildcards on, reads it back as p.
func (p Path) String() string {
	if len(p) == 0 {
		return "$"
	}
	var b strings.Builder
	for i, s := range p {
		switch {
		case s.IsIndex && s.Any:
			b.WriteString("[*]")
		case s.IsIndex:
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(s.Index))
			b.WriteByte(']')
		case s.Any || plainKey(s.Key):
			if i > 0 {
				b.WriteByte('.')
			}
			if s.Any {
				b.WriteByte('*')
			} else {
				b.WriteString(s.Key)
			}
		default:
			b.WriteByte('[')
			b.WriteString(strconv.Quote(s.Key))
			b.WriteByte(']')
		}
	}
	return b.String()
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
