package jsondiff

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/rpcbench/rpcbench/internal/jsonscan"
)

// Repeated holds the values of a member named more than once in its object, in the order they
// are written. Decode keeps them all because the clients of an API differ on which one wins
// (encoding/json takes the last, others the first, others refuse the document).
type Repeated []any

// InvalidUTF8 is a JSON string whose text is not valid UTF-8, as its bytes (escapes resolved).
// Decode keeps them instead of replacing each bad byte with U+FFFD, so that such a string equals
// only a string of the same bytes, never one written with U+FFFD.
type InvalidUTF8 string

// maxDepth bounds the nesting of a document Decode accepts.
const maxDepth = 1000

// Decode reads one JSON value as Compare sees it: objects as map[string]any, arrays as []any,
// numbers as json.Number, strings as string, or as InvalidUTF8 when their text is not valid
// UTF-8. A member named more than once in its object is a Repeated of its values; a member name
// that is not valid UTF-8 is kept as its bytes.
func Decode(b []byte) (any, error) {
	if depth(b) > maxDepth {
		return nil, fmt.Errorf("JSON nested deeper than %d levels", maxDepth)
	}
	if !json.Valid(b) {
		return nil, notJSON(b)
	}
	d := decoder{b: b}
	return d.value(), nil
}

// notJSON says why b, which is not valid JSON, is not.
func notJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	var v any
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("not JSON: %v", err)
	}
	if _, err := dec.Token(); err == nil {
		return errors.New("not JSON: more than one value")
	}
	return fmt.Errorf("not JSON: %v", json.Unmarshal(b, &v)) // what follows the value
}

// depth returns the deepest nesting of brackets in b, strings skipped; a cheap guard before
// decoding.
func depth(b []byte) int {
	d, top, inStr := 0, 0, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case inStr && c == '\\':
			i++
		case c == '"':
			inStr = !inStr
		case inStr:
		case c == '[' || c == '{':
			d++
			top = max(top, d)
		case c == ']' || c == '}':
			d--
		}
	}
	return top
}

// decoder reads a document that json.Valid accepted, so it checks no syntax.
type decoder struct {
	b []byte
	i int
}

func (d *decoder) value() any {
	d.i = jsonscan.SkipSpace(d.b, d.i)
	switch d.b[d.i] {
	case '{':
		return d.object()
	case '[':
		return d.array()
	case '"':
		s, ok := d.text()
		if !ok {
			return InvalidUTF8(s)
		}
		return s
	case 't':
		d.i += len("true")
		return true
	case 'f':
		d.i += len("false")
		return false
	case 'n':
		d.i += len("null")
		return nil
	}
	start := d.i
	d.i, _ = jsonscan.Skip(d.b, start) // a number
	return json.Number(d.b[start:d.i])
}

func (d *decoder) object() map[string]any {
	m := map[string]any{}
	d.i++ // {
	for {
		d.i = jsonscan.SkipSpace(d.b, d.i)
		switch d.b[d.i] {
		case '}':
			d.i++
			return m
		case ',':
			d.i = jsonscan.SkipSpace(d.b, d.i+1)
		}
		k, _ := d.text() // a name that is not UTF-8 stays as its bytes
		d.i = jsonscan.SkipSpace(d.b, d.i)
		d.i++ // :
		v := d.value()
		old, dup := m[k]
		if !dup {
			m[k] = v
			continue
		}
		r, ok := old.(Repeated)
		if !ok {
			r = Repeated{old}
		}
		m[k] = append(r, v)
	}
}

func (d *decoder) array() []any {
	a := []any{}
	d.i++ // [
	for {
		d.i = jsonscan.SkipSpace(d.b, d.i)
		switch d.b[d.i] {
		case ']':
			d.i++
			return a
		case ',':
			d.i++
		}
		a = append(a, d.value())
	}
}

// text reads the string at d.i: its text, and whether that is valid UTF-8. jsonscan keeps the
// bytes that are not UTF-8 as they are, and reads a lone surrogate (\ud800) as U+FFFD, as
// encoding/json does.
func (d *decoder) text() (string, bool) {
	start := d.i
	d.i, _ = jsonscan.Skip(d.b, start)
	body := d.b[start+1 : d.i-1]
	if bytes.IndexByte(body, '\\') < 0 {
		return string(body), utf8.Valid(body)
	}
	s, _ := jsonscan.Unquote(d.b[start:d.i])
	return s, utf8.ValidString(s)
}

// encode writes v, as Decode makes it, as compact JSON with members in name order. Where JSON
// cannot say what Decode kept, it says it in its own way: a byte that is not UTF-8 as \xNN, each
// value of a Repeated member after its name, and a Repeated alone as its values separated by
// ", ".
func encode(v any) string {
	return string(appendValue(nil, v))
}

func appendValue(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, x)
	case json.Number:
		return append(b, x...)
	case string:
		return appendText(b, x)
	case InvalidUTF8:
		return appendText(b, string(x))
	case Repeated:
		for i, e := range x {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = appendValue(b, e)
		}
		return b
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendValue(b, e)
		}
		return append(b, ']')
	case map[string]any:
		b = append(b, '{')
		for i, k := range slices.Sorted(maps.Keys(x)) {
			r, ok := x[k].(Repeated)
			if !ok {
				r = Repeated{x[k]}
			}
			for j, e := range r {
				if i > 0 || j > 0 {
					b = append(b, ',')
				}
				b = appendText(b, k)
				b = append(b, ':')
				b = appendValue(b, e)
			}
		}
		return append(b, '}')
	}
	return fmt.Append(b, v)
}

// appendText writes s as a JSON string the way encoding/json does without HTML escapes, but a
// byte that is not UTF-8 as \xNN, not as U+FFFD.
func appendText(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\b':
				b = append(b, '\\', 'b')
			case c == '\f':
				b = append(b, '\\', 'f')
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < ' ':
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b = append(b, '\\', 'x', hex[c>>4], hex[c&0xF])
		case r == '\u2028' || r == '\u2029':
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return append(b, '"')
}
