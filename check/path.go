package check

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rpcbench/rpcbench/internal/jsonscan"
)

// Path is a parsed JSON path in a small dotted syntax: members by name and array elements by
// index, as in "result.transactions[0].hash" (an optional leading "$." is allowed, and "[1].id"
// starts at an array). The zero value is the empty path: the whole document. Paths are immutable
// and safe for concurrent use.
type Path struct {
	steps []step
	src   string
}

type step struct {
	key   string
	index int // used when key is ""
}

// maxPathSteps bounds a path's length.
const maxPathSteps = 64

// ParsePath parses a dotted path. A member name is any text without '.', '[', ']' or white space.
func ParsePath(s string) (Path, error) {
	p := Path{src: s}
	rest := strings.TrimPrefix(s, "$")
	if rest == "" {
		if s == "" {
			return p, fmt.Errorf("empty JSON path: want e.g. result.hash or result[0].id")
		}
		return p, nil
	}
	if rest != s && rest[0] != '.' && rest[0] != '[' {
		return p, pathErr(s, 1, "'.' or '[' after '$'")
	}
	i := 0
	if rest != s && rest[0] == '.' {
		i = 1
	}
	off := len(s) - len(rest)
	first := true
	for i < len(rest) {
		if len(p.steps) == maxPathSteps {
			return p, pathErr(s, off+i, fmt.Sprintf("at most %d steps", maxPathSteps))
		}
		switch c := rest[i]; {
		case c == '[':
			j := strings.IndexByte(rest[i:], ']')
			if j < 0 {
				return p, pathErr(s, off+i, "']' to close the index")
			}
			n, err := strconv.Atoi(rest[i+1 : i+j])
			if err != nil || n < 0 || strings.HasPrefix(rest[i+1:i+j], "+") {
				return p, pathErr(s, off+i+1, "an index of 0 or more between [ and ]")
			}
			p.steps = append(p.steps, step{index: n})
			i += j + 1
		case c == '.':
			if first {
				return p, pathErr(s, off+i, "a member name")
			}
			i++
			if i == len(rest) || rest[i] == '.' || rest[i] == '[' {
				return p, pathErr(s, off+i, "a member name after '.'")
			}
			fallthrough
		default:
			j := i
			for j < len(rest) && !strings.ContainsRune(".[] \t\r\n", rune(rest[j])) {
				j++
			}
			if j == i {
				return p, pathErr(s, off+i, "a member name")
			}
			p.steps = append(p.steps, step{key: rest[i:j]})
			i = j
		}
		first = false
	}
	return p, nil
}

func pathErr(s string, at int, want string) error {
	return fmt.Errorf("JSON path %q: at column %d: want %s", s, at+1, want)
}

// String returns the path as it was written.
func (p Path) String() string { return p.src }

// Lookup returns the raw JSON value at p in doc. ok is false when a member or element is missing
// or a step meets a value of the wrong kind; err is set when doc is malformed on the way.
func (p Path) Lookup(doc []byte) (val []byte, ok bool, err error) {
	val = doc
	for _, s := range p.steps {
		if s.key != "" {
			if jsonscan.KindOf(val) != jsonscan.Object {
				return nil, false, nil
			}
			val, ok, err = jsonscan.Member(val, s.key)
		} else {
			if jsonscan.KindOf(val) != jsonscan.Array {
				return nil, false, nil
			}
			val, ok, err = jsonscan.Index(val, s.index)
		}
		if !ok || err != nil {
			return nil, false, err
		}
	}
	if len(p.steps) == 0 {
		end, err := jsonscan.Skip(doc, 0)
		if err != nil {
			return nil, false, err
		}
		val = doc[jsonscan.SkipSpace(doc, 0):end]
	}
	return val, true, nil
}
