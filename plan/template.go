package plan

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Template is a compiled request template: a URL path, a header value or a body in which actions
// between {{ and }} are replaced for each request. The actions are:
//
//	{{randInt 1 100000000}}  a random integer from 1 to 100000000, both included (1e8 also reads)
//	{{seq}}                  the request's number in the run: 0, 1, 2, … (one per request)
//	{{uuid}}                 a random version-4 UUID, e.g. 0b6c…-…
//	{{randString 16}}        16 random characters from A-Z a-z 0-9 - _ (URL-safe)
//	{{randHex 20}}           20 random bytes in hex, 0x-prefixed: 0x and 40 hex digits
//	{{randAddress}}          a random 20-byte address, as {{randHex 20}} (0x5a0b…)
//	{{randHash}}             a random 32-byte hash, as {{randHex 32}}
//	{{pick "a" "b" "c"}}     one of the words, at random
//	{{now}}                  the time as Unix milliseconds (1767225600000)
//	{{nowUnix}}              the time as Unix seconds (1767225600)
//	{{nowRFC3339}}           the time in RFC 3339, UTC, with milliseconds (2026-01-01T00:00:00.000Z)
//	{{.user_id}}             the field user_id of the current row of the data file
//	{{"{{"}}                 a quoted string stands for itself: this writes {{
//
// Within one request every action that reads the sequence, the clock or the data row sees the
// same value, so a URL and a body can agree. Values are inserted as they are, without escaping.
//
// A Template is compiled once by ParseTemplate into literal and action segments; rendering it
// parses nothing. Its zero value renders nothing. It is immutable and safe for concurrent use.
type Template struct {
	src  string
	segs []segment
	uses uses
}

// uses says which per-request values a template (or a set of them) reads.
type uses struct{ seq, now, row bool }

func (u *uses) add(o uses) { u.seq, u.now, u.row = u.seq || o.seq, u.now || o.now, u.row || o.row }

type segKind uint8

const (
	segLit segKind = iota
	segRandInt
	segSeq
	segUUID
	segRandString
	segRandHex
	segPick
	segNowMillis
	segNowUnix
	segNowRFC3339
	segField
)

// segment is one piece of a compiled template.
type segment struct {
	kind  segKind
	lit   []byte   // segLit
	lo    int64    // segRandInt: lowest value
	span  uint64   // segRandInt: hi-lo (the count of values minus one)
	n     int      // segRandString: length; segRandHex: bytes; segField: column index
	picks [][]byte // segPick
}

// maxRandString bounds {{randString N}}, so that a typo cannot make every request huge.
const maxRandString = 1 << 20

// funcNames lists the functions, for error messages.
const funcNames = "randInt, seq, uuid, randString, randHex, randAddress, randHash, pick, now, nowUnix, nowRFC3339 or .field"

// TemplateError is a template that does not compile: Col is the 1-based byte column of the
// problem in the template's text.
type TemplateError struct {
	Col int
	Msg string
}

func (e *TemplateError) Error() string { return fmt.Sprintf("template column %d: %s", e.Col, e.Msg) }

// HasTemplate reports whether s holds an action ("{{"), i.e. whether it needs ParseTemplate.
func HasTemplate(s string) bool { return strings.Contains(s, "{{") }

// ParseTemplate compiles s. fields are the columns of the data file that {{.name}} may name (nil:
// no data file). The error is a *TemplateError giving the column of the problem.
func ParseTemplate(s string, fields []string) (*Template, error) {
	t := &Template{src: s}
	rest, off := s, 0
	for rest != "" {
		i := strings.Index(rest, "{{")
		if i < 0 {
			t.lit(rest)
			break
		}
		t.lit(rest[:i])
		end, seg, err := parseAction(rest[i+2:], off+i+2, fields)
		if err != nil {
			return nil, err
		}
		t.add(seg)
		rest, off = rest[i+2+end:], off+i+2+end
	}
	return t, nil
}

// String returns the template's text as written.
func (t *Template) String() string {
	if t == nil {
		return ""
	}
	return t.src
}

// Static reports whether the template has no action: it always renders its text.
func (t *Template) Static() bool {
	for _, s := range t.segs {
		if s.kind != segLit {
			return false
		}
	}
	return true
}

func (t *Template) lit(s string) {
	if s == "" {
		return
	}
	if n := len(t.segs); n > 0 && t.segs[n-1].kind == segLit {
		t.segs[n-1].lit = append(t.segs[n-1].lit, s...)
		return
	}
	t.segs = append(t.segs, segment{kind: segLit, lit: []byte(s)})
}

func (t *Template) add(s segment) {
	switch s.kind {
	case segLit:
		t.lit(string(s.lit))
		return
	case segSeq:
		t.uses.seq = true
	case segNowMillis, segNowUnix, segNowRFC3339:
		t.uses.now = true
	case segField:
		t.uses.row = true
	}
	t.segs = append(t.segs, s)
}

// token is one word or quoted string of an action.
type token struct {
	text   string
	quoted bool
	col    int // 1-based column in the template
}

// parseAction reads the action that starts at s (just after "{{", at offset off of the template).
// It returns the length consumed up to and including "}}".
func parseAction(s string, off int, fields []string) (int, segment, error) {
	var toks []token
	i := 0
	for {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if i >= len(s) {
			return 0, segment{}, &TemplateError{off - 1, `"{{" without a closing "}}"`}
		}
		if strings.HasPrefix(s[i:], "}}") {
			i += 2
			break
		}
		start := i
		switch s[i] {
		case '"', '`':
			q := s[i]
			j := i + 1
			for j < len(s) && s[j] != q {
				if q == '"' && s[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(s) {
				return 0, segment{}, &TemplateError{off + start + 1, "unterminated quoted string"}
			}
			text, err := strconv.Unquote(s[i : j+1])
			if err != nil {
				return 0, segment{}, &TemplateError{off + start + 1, fmt.Sprintf("bad quoted string %s", s[i:j+1])}
			}
			toks = append(toks, token{text, true, off + start + 1})
			i = j + 1
		default:
			for i < len(s) && s[i] != ' ' && s[i] != '\t' && s[i] != '"' && s[i] != '`' && !strings.HasPrefix(s[i:], "}}") {
				i++
			}
			toks = append(toks, token{s[start:i], false, off + start + 1})
		}
	}
	seg, err := compileAction(toks, off, fields)
	return i, seg, err
}

func compileAction(toks []token, off int, fields []string) (segment, error) {
	if len(toks) == 0 {
		return segment{}, &TemplateError{off - 1, "empty action {{}}; want " + funcNames}
	}
	fn, args := toks[0], toks[1:]
	bad := func(t token, format string, a ...any) (segment, error) {
		return segment{}, &TemplateError{t.col, fmt.Sprintf(format, a...)}
	}
	nargs := func(want int, usage string) error {
		if len(args) != want {
			return &TemplateError{fn.col, fmt.Sprintf("%s takes %d argument(s): %s", fn.text, want, usage)}
		}
		return nil
	}
	if fn.quoted {
		if len(args) > 0 {
			return bad(args[0], "unexpected %q after a quoted string", args[0].text)
		}
		return segment{kind: segLit, lit: []byte(fn.text)}, nil
	}
	if name, ok := strings.CutPrefix(fn.text, "."); ok {
		if len(args) > 0 {
			return bad(args[0], "unexpected %q after the field .%s", args[0].text, name)
		}
		if fields == nil {
			return bad(fn, "{{.%s}} reads a data file, and none was given (--data FILE)", name)
		}
		for i, f := range fields {
			if f == name {
				return segment{kind: segField, n: i}, nil
			}
		}
		return bad(fn, "unknown field %q; the data file has %s", name, strings.Join(fields, ", "))
	}
	simple := map[string]segKind{"seq": segSeq, "uuid": segUUID, "now": segNowMillis, "nowUnix": segNowUnix, "nowRFC3339": segNowRFC3339}
	if k, ok := simple[fn.text]; ok {
		if err := nargs(0, "{{"+fn.text+"}}"); err != nil {
			return segment{}, err
		}
		return segment{kind: k}, nil
	}
	if n, ok := map[string]int{"randAddress": 20, "randHash": 32}[fn.text]; ok {
		if err := nargs(0, "{{"+fn.text+"}}"); err != nil {
			return segment{}, err
		}
		return segment{kind: segRandHex, n: n}, nil
	}
	switch fn.text {
	case "randInt":
		if err := nargs(2, "{{randInt LOW HIGH}}, e.g. {{randInt 1 1e8}}"); err != nil {
			return segment{}, err
		}
		lo, err := parseTemplateInt(args[0])
		if err != nil {
			return segment{}, err
		}
		hi, err := parseTemplateInt(args[1])
		if err != nil {
			return segment{}, err
		}
		if hi < lo {
			return bad(args[1], "randInt %d %d: the high end is below the low end", lo, hi)
		}
		return segment{kind: segRandInt, lo: lo, span: uint64(hi - lo)}, nil
	case "randString":
		if err := nargs(1, "{{randString LENGTH}}, e.g. {{randString 16}}"); err != nil {
			return segment{}, err
		}
		n, err := parseTemplateInt(args[0])
		if err != nil {
			return segment{}, err
		}
		if n < 1 || n > maxRandString {
			return bad(args[0], "randString %d: want a length from 1 to %d", n, maxRandString)
		}
		return segment{kind: segRandString, n: int(n)}, nil
	case "randHex":
		if err := nargs(1, "{{randHex BYTES}}, e.g. {{randHex 20}}"); err != nil {
			return segment{}, err
		}
		n, err := parseTemplateInt(args[0])
		if err != nil {
			return segment{}, err
		}
		if n < 1 || n > maxRandString/2 {
			return bad(args[0], "randHex %d: want a count of bytes from 1 to %d", n, maxRandString/2)
		}
		return segment{kind: segRandHex, n: int(n)}, nil
	case "pick":
		if len(args) == 0 {
			return bad(fn, `pick needs at least one word: {{pick "a" "b"}}`)
		}
		seg := segment{kind: segPick}
		for _, a := range args {
			seg.picks = append(seg.picks, []byte(a.text))
		}
		return seg, nil
	}
	return bad(fn, "unknown function %q; want %s", fn.text, funcNames)
}

// parseTemplateInt reads an integer as 42, -7 or 1e8 (a whole number, at most 2^53 in size).
func parseTemplateInt(t token) (int64, error) {
	if n, err := strconv.ParseInt(t.text, 10, 64); err == nil && !t.quoted {
		return n, nil
	}
	f, err := strconv.ParseFloat(t.text, 64)
	if t.quoted || err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, &TemplateError{t.col, fmt.Sprintf("%q is not a whole number; want e.g. 100 or 1e8", t.text)}
	}
	return int64(f), nil
}
