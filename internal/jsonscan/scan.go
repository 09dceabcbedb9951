package jsonscan

import (
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// Kind is the kind of a JSON value, told by its first byte.
type Kind uint8

// The kinds of values.
const (
	Invalid Kind = iota
	Object
	Array
	String
	Number
	Bool
	Null
)

// maxDepth bounds nesting so that a hostile answer cannot exhaust the stack.
const maxDepth = 512

// ErrSyntax is wrapped by every error about malformed JSON.
var ErrSyntax = errors.New("jsonscan: malformed JSON")

func syntaxErr(i int, want string) error {
	return fmt.Errorf("%w: at byte %d: want %s", ErrSyntax, i, want)
}

// KindOf returns the kind of the value v (leading white space allowed).
func KindOf(v []byte) Kind {
	i := SkipSpace(v, 0)
	if i >= len(v) {
		return Invalid
	}
	switch c := v[i]; {
	case c == '{':
		return Object
	case c == '[':
		return Array
	case c == '"':
		return String
	case c == 't' || c == 'f':
		return Bool
	case c == 'n':
		return Null
	case c == '-' || c >= '0' && c <= '9':
		return Number
	}
	return Invalid
}

// SkipSpace returns the index of the first byte at or after i that is not JSON white space.
func SkipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// Skip returns the index just after the value that starts at or after i (white space skipped).
func Skip(b []byte, i int) (int, error) { return skip(b, i, 0) }

func skip(b []byte, i, depth int) (int, error) {
	i = SkipSpace(b, i)
	if i >= len(b) {
		return i, syntaxErr(i, "a value")
	}
	switch c := b[i]; {
	case c == '"':
		return skipString(b, i)
	case c == '{' || c == '[':
		if depth >= maxDepth {
			return i, syntaxErr(i, fmt.Sprintf("nesting below %d levels", maxDepth))
		}
		return skipContainer(b, i, depth+1)
	case c == 't':
		return skipWord(b, i, "true")
	case c == 'f':
		return skipWord(b, i, "false")
	case c == 'n':
		return skipWord(b, i, "null")
	case c == '-' || c >= '0' && c <= '9':
		return skipNumber(b, i)
	}
	return i, syntaxErr(i, "a value")
}

func skipWord(b []byte, i int, w string) (int, error) {
	if len(b)-i < len(w) || string(b[i:i+len(w)]) != w {
		return i, syntaxErr(i, w)
	}
	return i + len(w), nil
}

func skipNumber(b []byte, i int) (int, error) {
	start := i
	if b[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(b) && b[i] == '0' {
		i++
	} else if digits() == 0 {
		return start, syntaxErr(start, "a number")
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			return start, syntaxErr(i, "digits after the decimal point")
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return start, syntaxErr(i, "digits of the exponent")
		}
	}
	return i, nil
}

// skipString returns the index after the string that starts at b[i] == '"'.
func skipString(b []byte, i int) (int, error) {
	start := i
	for i++; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return i + 1, nil
		case c == '\\':
			i++
			if i >= len(b) {
				return i, syntaxErr(start, "a closed string")
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if len(b)-i < 5 || !isHex4(b[i+1:i+5]) {
					return i, syntaxErr(i, "four hex digits after \\u")
				}
				i += 4
			default:
				return i, syntaxErr(i, "a valid escape")
			}
		case c < 0x20:
			return i, syntaxErr(i, "no control character in a string")
		}
	}
	return i, syntaxErr(start, "a closed string")
}

func isHex4(h []byte) bool {
	for _, c := range h {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

func skipContainer(b []byte, i, depth int) (int, error) {
	obj := b[i] == '{'
	closer := byte(']')
	if obj {
		closer = '}'
	}
	i = SkipSpace(b, i+1)
	if i < len(b) && b[i] == closer {
		return i + 1, nil
	}
	for {
		var err error
		if obj {
			i = SkipSpace(b, i)
			if i >= len(b) || b[i] != '"' {
				return i, syntaxErr(i, "a member name")
			}
			if i, err = skipString(b, i); err != nil {
				return i, err
			}
			i = SkipSpace(b, i)
			if i >= len(b) || b[i] != ':' {
				return i, syntaxErr(i, "':' after a member name")
			}
			i++
		}
		if i, err = skip(b, i, depth); err != nil {
			return i, err
		}
		i = SkipSpace(b, i)
		if i >= len(b) {
			return i, syntaxErr(i, fmt.Sprintf("',' or '%c'", closer))
		}
		if b[i] == closer {
			return i + 1, nil
		}
		if b[i] != ',' {
			return i, syntaxErr(i, fmt.Sprintf("',' or '%c'", closer))
		}
		i++
	}
}

// Iter walks the members of an object or the elements of an array. The zero value is not ready:
// use Members or Elements. Not safe for concurrent use.
type Iter struct {
	b      []byte
	i      int
	obj    bool
	first  bool
	done   bool
	err    error
	closer byte
	// Key is the raw member name, quotes removed but escapes kept (objects only); Value is the raw
	// member or element value.
	Key, Value []byte
}

// Members starts walking the members of the object v. A v that is not an object gives an Iter
// whose Err says so.
func Members(v []byte) Iter { return newIter(v, '{') }

// Elements starts walking the elements of the array v.
func Elements(v []byte) Iter { return newIter(v, '[') }

func newIter(v []byte, open byte) Iter {
	it := Iter{b: v, obj: open == '{', first: true, closer: '}'}
	if !it.obj {
		it.closer = ']'
	}
	i := SkipSpace(v, 0)
	if i >= len(v) || v[i] != open {
		it.err = syntaxErr(i, fmt.Sprintf("'%c'", open))
		it.done = true
		return it
	}
	it.i = i + 1
	return it
}

// Next moves to the next member or element and reports whether there is one. After it returns
// false, Err says whether the walk ended on malformed JSON.
func (it *Iter) Next() bool {
	if it.done {
		return false
	}
	b, i := it.b, SkipSpace(it.b, it.i)
	if i < len(b) && b[i] == it.closer && it.first {
		it.done, it.i = true, i+1
		return false
	}
	if !it.first {
		if i >= len(b) {
			return it.fail(i, fmt.Sprintf("',' or '%c'", it.closer))
		}
		if b[i] == it.closer {
			it.done, it.i = true, i+1
			return false
		}
		if b[i] != ',' {
			return it.fail(i, fmt.Sprintf("',' or '%c'", it.closer))
		}
		i++
	}
	it.first = false
	if it.obj {
		i = SkipSpace(b, i)
		if i >= len(b) || b[i] != '"' {
			return it.fail(i, "a member name")
		}
		end, err := skipString(b, i)
		if err != nil {
			return it.failErr(err)
		}
		it.Key = b[i+1 : end-1]
		i = SkipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return it.fail(i, "':' after a member name")
		}
		i++
	}
	i = SkipSpace(b, i)
	end, err := skip(b, i, 1)
	if err != nil {
		return it.failErr(err)
	}
	it.Value, it.i = b[i:end], end
	return true
}

func (it *Iter) fail(i int, want string) bool { return it.failErr(syntaxErr(i, want)) }

func (it *Iter) failErr(err error) bool {
	it.err, it.done, it.Key, it.Value = err, true, nil, nil
	return false
}

// Rest returns what follows the object or array after a walk that ended without error: white space
// only for a whole document.
func (it *Iter) Rest() []byte {
	if !it.done || it.err != nil {
		return nil
	}
	return it.b[it.i:]
}

// Err returns the error that ended the walk, or nil.
func (it *Iter) Err() error { return it.err }

// KeyIs reports whether the raw member name key (as Iter.Key gives it, escapes kept) spells name.
func KeyIs(key []byte, name string) bool {
	for i := 0; i < len(key); i++ {
		if key[i] == '\\' {
			return unescapedEqual(key, name)
		}
	}
	return string(key) == name
}

// Member returns the value of the member name of the object v (the first one when repeated).
func Member(v []byte, name string) (val []byte, ok bool, err error) {
	it := Members(v)
	for it.Next() {
		if KeyIs(it.Key, name) {
			return it.Value, true, nil
		}
	}
	return nil, false, it.Err()
}

// Index returns element n of the array v.
func Index(v []byte, n int) (val []byte, ok bool, err error) {
	it := Elements(v)
	for k := 0; it.Next(); k++ {
		if k == n {
			return it.Value, true, nil
		}
	}
	return nil, false, it.Err()
}

// Int parses the integer number v. It fails on fractions, exponents and values out of int64.
func Int(v []byte) (int64, error) {
	var n int64
	i, neg := 0, false
	if len(v) > 0 && v[0] == '-' {
		neg, i = true, 1
	}
	if i == len(v) || len(v)-i > 19 {
		return 0, syntaxErr(0, "an integer of at most 19 digits")
	}
	for ; i < len(v); i++ {
		c := v[i]
		if c < '0' || c > '9' {
			return 0, syntaxErr(i, "an integer")
		}
		d := int64(c - '0')
		if n > (1<<63-1-d)/10 {
			return 0, syntaxErr(i, "an integer that fits 64 bits")
		}
		n = n*10 + d
	}
	if neg {
		n = -n
	}
	return n, nil
}

// Unquote decodes the string value v (with its quotes) into a Go string. It allocates.
func Unquote(v []byte) (string, error) {
	end, err := skipString(v, 0)
	if err != nil || len(v) == 0 || v[0] != '"' || end != len(v) {
		if err == nil {
			err = syntaxErr(0, "one string")
		}
		return "", err
	}
	return unescape(v[1 : len(v)-1]), nil
}

// unescape decodes the body of a well-formed JSON string.
func unescape(s []byte) string {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		i++
		switch s[i] {
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, _ := strconv.ParseUint(string(s[i+1:i+5]), 16, 32)
			i += 4
			if r >= 0xD800 && r < 0xDC00 && i+6 < len(s) && s[i+1] == '\\' && s[i+2] == 'u' {
				if lo, err := strconv.ParseUint(string(s[i+3:i+7]), 16, 32); err == nil && lo >= 0xDC00 && lo < 0xE000 {
					r = (r-0xD800)<<10 + (lo - 0xDC00) + 0x10000
					i += 6
				}
			}
			out = utf8.AppendRune(out, rune(r))
		default: // '"', '\\', '/'
			out = append(out, s[i])
		}
	}
	return string(out)
}

func unescapedEqual(key []byte, name string) bool {
	return unescape(key) == name
}
