package check

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/rpcbench/rpcbench/internal/jsonscan"
	"github.com/rpcbench/rpcbench/result"
)

// kind is what a Check looks at.
type kind uint8

const (
	bodyContains kind = iota + 1
	jsonEquals
	jsonExists
)

// Check is one named condition on an answer's body. Make it with BodyContains, JSONEquals,
// JSONExists or Parse; the zero value checks nothing and always passes. Checks are immutable and
// safe for concurrent use.
type Check struct {
	name string
	kind kind
	text []byte // bodyContains: the text; jsonEquals: the wanted value (raw JSON, or a string's text)
	str  bool   // jsonEquals: want is a string's text, compared to a JSON string
	path Path
	fail error // result.Exact(name), made once so that failing costs no allocation
	// none is what a JSON check received when its path held no value: "(no value at PATH)",
	// made once.
	none []byte
}

// Name returns the name under which the check's failures are counted.
func (c Check) Name() string { return c.name }

func named(c Check, name, auto string) Check {
	c.name = strings.TrimSpace(name)
	if c.name == "" {
		c.name = auto
	}
	c.fail = result.Exact(c.name)
	if c.kind == jsonExists || c.kind == jsonEquals {
		c.none = []byte("(no value at " + c.path.String() + ")")
	}
	return c
}

// BodyContains checks that the body holds text. An empty name is made from the condition:
// `body contains "ok"`.
func BodyContains(name, text string) (Check, error) {
	if text == "" {
		return Check{}, fmt.Errorf("body contains: empty text; want the text the body must hold")
	}
	return named(Check{kind: bodyContains, text: []byte(text)}, name, fmt.Sprintf("body contains %q", text)), nil
}

// JSONExists checks that the body is JSON with a value at path.
func JSONExists(name, path string) (Check, error) {
	p, err := ParsePath(path)
	if err != nil {
		return Check{}, err
	}
	return named(Check{kind: jsonExists, path: p}, name, "json "+path+" exists"), nil
}

// JSONEquals checks that the body is JSON whose value at path equals value. A value that is valid
// JSON (42, true, null, "ok", [1,2]) is compared as JSON (numbers by value); any other value is
// the text of a string ("ok" and ok both match the string "ok").
func JSONEquals(name, path, value string) (Check, error) {
	p, err := ParsePath(path)
	if err != nil {
		return Check{}, err
	}
	c := Check{kind: jsonEquals, path: p}
	v := strings.TrimSpace(value)
	switch {
	case json.Valid([]byte(v)) && jsonscan.KindOf([]byte(v)) == jsonscan.String:
		s, _ := jsonscan.Unquote([]byte(v))
		c.text, c.str = []byte(s), true
	case json.Valid([]byte(v)):
		c.text = compact([]byte(v))
	default:
		c.text, c.str = []byte(value), true
	}
	return named(c, name, "json "+path+" == "+value), nil
}

func compact(v []byte) []byte {
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		return v
	}
	return b.Bytes()
}

// Parse reads a check written as text, with an optional name before a colon:
//
//	body contains TEXT
//	json PATH exists
//	json PATH == VALUE
//	has-block: json result.number exists
func Parse(s string) (Check, error) {
	c, err := parseSpec("", s)
	if err == nil {
		return c, nil
	}
	if name, spec, ok := strings.Cut(s, ":"); ok && strings.TrimSpace(name) != "" {
		if c, err2 := parseSpec(name, spec); err2 == nil {
			return c, nil
		} else if looksLikeSpec(spec) {
			err = err2
		}
	}
	return Check{}, err
}

func looksLikeSpec(s string) bool {
	s = strings.TrimSpace(s)
	return strings.HasPrefix(s, "body ") || strings.HasPrefix(s, "json ")
}

func parseSpec(name, s string) (Check, error) {
	s = strings.TrimSpace(s)
	want := `want "body contains TEXT", "json PATH exists" or "json PATH == VALUE", optionally after "NAME:"`
	switch {
	case strings.HasPrefix(s, "body contains "):
		return BodyContains(name, strings.TrimSpace(strings.TrimPrefix(s, "body contains ")))
	case strings.HasPrefix(s, "json "):
		rest := strings.TrimSpace(strings.TrimPrefix(s, "json "))
		if path, value, ok := strings.Cut(rest, "=="); ok { // before " exists": a value may end so
			return JSONEquals(name, strings.TrimSpace(path), strings.TrimSpace(value))
		}
		if path, ok := strings.CutSuffix(rest, " exists"); ok {
			return JSONExists(name, strings.TrimSpace(path))
		}
		return Check{}, fmt.Errorf("check %q: %s", s, want)
	}
	return Check{}, fmt.Errorf("check %q: %s", s, want)
}

// judge reports whether body passes c and what c received: the value at its path (for a body
// that is not JSON, the body; for a path with no value, "(no value at PATH)"), or for a body
// check the body. got points into body or into c.
func (c *Check) judge(body []byte) (got []byte, ok bool) {
	switch c.kind {
	case bodyContains:
		return body, bytes.Contains(body, c.text)
	case jsonExists, jsonEquals:
		v, found, err := c.path.Lookup(body)
		switch {
		case err != nil:
			return body, false
		case !found:
			return c.none, false
		}
		return v, c.kind == jsonExists || c.equal(v)
	}
	return nil, true
}

func (c *Check) equal(v []byte) bool {
	k := jsonscan.KindOf(v)
	switch {
	case c.str:
		if k != jsonscan.String {
			return false
		}
		inner := v[1 : len(v)-1]
		if bytes.IndexByte(inner, '\\') < 0 {
			return bytes.Equal(inner, c.text)
		}
		s, err := jsonscan.Unquote(v)
		return err == nil && s == string(c.text)
	case k == jsonscan.Number && jsonscan.KindOf(c.text) == jsonscan.Number:
		return sameNumber(v, c.text)
	case k == jsonscan.Object || k == jsonscan.Array:
		return bytes.Equal(compact(v), c.text)
	}
	return bytes.Equal(v, c.text)
}

// sameNumber reports whether the JSON numbers a and b have the same value, exactly: 10, 10.0, 1e1
// and 100e-1 are the same, 0 and -0 too, but 9007199254740993 and 9007199254740992 are not (as
// float64 they would be). It does not allocate.
func sameNumber(a, b []byte) bool {
	na, okA := parseNumber(a)
	nb, okB := parseNumber(b)
	if !okA || !okB {
		return okA == okB && bytes.Equal(a, b) // not numbers, or exponents too large to weigh
	}
	if na.neg != nb.neg || na.scale != nb.scale {
		return false
	}
	i, j := 0, 0
	for {
		for i < len(na.digits) && na.digits[i] == '.' {
			i++
		}
		for j < len(nb.digits) && nb.digits[j] == '.' {
			j++
		}
		if i == len(na.digits) || j == len(nb.digits) {
			return i == len(na.digits) && j == len(nb.digits)
		}
		if na.digits[i] != nb.digits[j] {
			return false
		}
		i, j = i+1, j+1
	}
}

// number is a JSON number as 0.d₁d₂…dₙ × 10^scale, with d₁ and dₙ not 0: digits runs from the
// first significant digit to the last as written (it may hold the '.'). Zero has no digits.
type number struct {
	neg    bool
	digits []byte
	scale  int64
}

// maxExpDigits bounds the exponents parseNumber weighs: larger ones are compared as written.
const maxExpDigits = 15

// parseNumber parses s by JSON's number grammar; ok is false for anything else, and for an
// exponent of more than maxExpDigits digits.
func parseNumber(s []byte) (n number, ok bool) {
	i := 0
	if i < len(s) && s[i] == '-' {
		n.neg = true
		i++
	}
	digits := func() int { // skips digits from i, returns how many
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i - j
	}
	mant := i
	intDigits := digits()
	if intDigits == 0 || intDigits > 1 && s[mant] == '0' {
		return n, false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return n, false
		}
	}
	mantEnd := i
	var exp int64
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		neg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			neg = s[i] == '-'
			i++
		}
		start := i
		if digits() == 0 {
			return n, false
		}
		for start < i-1 && s[start] == '0' {
			start++
		}
		if i-start > maxExpDigits {
			return n, false
		}
		for _, c := range s[start:i] {
			exp = exp*10 + int64(c-'0')
		}
		if neg {
			exp = -exp
		}
	}
	if i != len(s) {
		return n, false
	}
	// the significant digits: from the first digit that is not 0 to the last
	first, last := -1, -1
	lead := 0 // zeros before the first significant digit
	for j := mant; j < mantEnd; j++ {
		switch c := s[j]; {
		case c == '.':
		case c != '0':
			if first < 0 {
				first = j
			}
			last = j
		case first < 0:
			lead++
		}
	}
	if first < 0 {
		return number{}, true // zero, whatever its sign and exponent
	}
	n.digits = s[first : last+1]
	n.scale = int64(intDigits-lead) + exp
	return n, true
}
