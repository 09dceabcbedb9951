package jsondiff

import (
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
)

// Kind is the kind of a difference.
type Kind string

// The kinds of difference.
const (
	Changed Kind = "changed" // same type, another value
	Type    Kind = "type"    // another type (a string for a number, null for an object, …)
	Missing Kind = "missing" // present in the first document only
	Extra   Kind = "extra"   // present in the second document only
	// Duplicate: a member named more than once in its object on one side, not named as many
	// times with equal values on the other. Clients differ on which of the values they take.
	Duplicate Kind = "duplicate"
)

// Difference is one place where two documents differ.
type Difference struct {
	// Path says where, e.g. result.transactions[3].hash ("$" for the whole document).
	Path string `json:"path"`
	Kind Kind   `json:"kind"`
	// TypeA and TypeB are the JSON types of both sides: object, array, string, number, boolean,
	// null, or missing; "string, not UTF-8" for a string whose bytes are not valid UTF-8 (they
	// are compared as bytes), "duplicate key" for a member named more than once.
	TypeA string `json:"type_a"`
	TypeB string `json:"type_b"`
	// A and B are both values as compact JSON; empty when missing. A byte that is not UTF-8 is
	// written \xNN; the values of a duplicate key are written in turn, separated by ", ".
	A string `json:"a,omitempty"`
	B string `json:"b,omitempty"`
}

// String describes d on one line, values clipped to 60 bytes.
func (d Difference) String() string {
	side := func(v, t string) string {
		if t == "missing" {
			return "missing"
		}
		return fmt.Sprintf("%s (%s)", Clip(v, 60), t)
	}
	return fmt.Sprintf("%s: %s: %s ≠ %s", d.Path, d.Kind, side(d.A, d.TypeA), side(d.B, d.TypeB))
}

// Clip shortens s to at most n bytes (on a rune boundary), marking the cut with "…".
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && s[i]&0xC0 == 0x80 {
		i--
	}
	return s[:i] + "…"
}

// Options are the rules of a comparison. The zero value compares every value, arrays in order,
// with integers normalised (hex and decimal) and JSON-RPC error messages dropped. Options are
// read, not changed, by Compare: one Options may serve concurrent comparisons.
type Options struct {
	// Ignore lists the paths whose values (and everything under them) are not compared.
	Ignore []Pattern
	// Unordered lists the arrays compared as multisets: each element of one side is matched with
	// an equal element of the other, wherever it stands.
	Unordered []Pattern
	// NullIsMissing makes a member whose value is null equal to a member that is not there.
	NullIsMissing bool
	// StrictNumbers compares numbers and integer strings as written: without it, a JSON number, a
	// hex string ("0x1a") and a decimal string ("26") that hold the same integer are equal, as are
	// numbers that parse to the same float64 (1.0 and 1e0).
	StrictNumbers bool
	// KeepErrorMessages compares the message of a JSON-RPC error (error.message, also in a batch:
	// [*].error.message); by default it is dropped and only the code (and data) compared, since
	// implementations word their errors differently.
	KeepErrorMessages bool
	// ShapeOnly compares types and the members of objects, not values: arrays are compared element
	// by element as far as the shorter goes. This is how a fixture marked speconly is judged.
	ShapeOnly bool
	// Tolerance lets the numbers at some paths differ by a bound; the first that matches a path
	// applies there.
	Tolerance []Tolerance
	// Max stops the comparison after Max differences; 0 for all.
	Max int
}

var errorMessage = []Pattern{MustPattern("error.message"), MustPattern("[*].error.message")}

// Compare compares the JSON documents a and b. It returns an error, naming the side, when one of
// them is not a single JSON value.
func Compare(a, b []byte, o *Options) ([]Difference, error) {
	va, err := Decode(a)
	if err != nil {
		return nil, fmt.Errorf("first document: %w", err)
	}
	vb, err := Decode(b)
	if err != nil {
		return nil, fmt.Errorf("second document: %w", err)
	}
	return CompareValues(va, vb, o), nil
}

// CompareValues compares two decoded documents (as Decode makes them).
func CompareValues(a, b any, o *Options) []Difference {
	if o == nil {
		o = &Options{}
	}
	c := comparer{o: o}
	c.value(nil, a, b, true, true)
	return c.diffs
}

type comparer struct {
	o     *Options
	diffs []Difference
	probe *comparer // see equal
}

func (c *comparer) full() bool { return c.o.Max > 0 && len(c.diffs) >= c.o.Max }

func (c *comparer) add(p Path, k Kind, a, b any, hasA, hasB bool) {
	if c.full() {
		return
	}
	d := Difference{Path: p.String(), Kind: k, TypeA: typeLabel(a, hasA), TypeB: typeLabel(b, hasB)}
	if hasA {
		d.A = encode(a)
	}
	if hasB {
		d.B = encode(b)
	}
	c.diffs = append(c.diffs, d)
}

func (c *comparer) ignored(p Path) bool {
	for _, pat := range c.o.Ignore {
		if pat.Match(p) {
			return true
		}
	}
	if !c.o.KeepErrorMessages {
		for _, pat := range errorMessage {
			if pat.Match(p) {
				return true
			}
		}
	}
	return false
}

func (c *comparer) unordered(p Path) bool {
	for _, pat := range c.o.Unordered {
		if pat.Match(p) {
			return true
		}
	}
	return false
}

// value compares a and b at p; hasA and hasB say whether each side has a value there.
func (c *comparer) value(p Path, a, b any, hasA, hasB bool) {
	if c.full() || c.ignored(p) {
		return
	}
	switch {
	case !hasA && !hasB:
		return
	case !hasA:
		c.add(p, Extra, nil, b, false, true)
		return
	case !hasB:
		c.add(p, Missing, a, nil, true, false)
		return
	}
	_, repA := a.(Repeated)
	_, repB := b.(Repeated)
	if repA || repB {
		c.duplicate(p, a, b)
		return
	}
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			c.add(p, Type, a, b, true, true)
			return
		}
		c.object(p, x, y)
	case []any:
		y, ok := b.([]any)
		if !ok {
			c.add(p, Type, a, b, true, true)
			return
		}
		c.array(p, x, y)
	default:
		if k, eq := c.scalar(a, b); !eq && !c.tolerated(p, a, b) {
			c.add(p, k, a, b, true, true)
		}
	}
}

func (c *comparer) object(p Path, a, b map[string]any) {
	keys := make([]string, 0, len(a)+len(b))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		va, hasA := a[k]
		vb, hasB := b[k]
		if c.o.NullIsMissing {
			hasA = hasA && va != nil
			hasB = hasB && vb != nil
		}
		c.value(p.Child(k), va, vb, hasA, hasB)
	}
}

func (c *comparer) array(p Path, a, b []any) {
	if c.unordered(p) && !c.o.ShapeOnly {
		c.multiset(p, a, b)
		return
	}
	n := max(len(a), len(b))
	if c.o.ShapeOnly {
		n = min(len(a), len(b))
	}
	for i := range n {
		c.value(p.Elem(i), at(a, i), at(b, i), i < len(a), i < len(b))
	}
}

func at(s []any, i int) any {
	if i < len(s) {
		return s[i]
	}
	return nil
}

// equal reports whether a and b, both present at p, compare equal under c's rules, recording
// nothing.
func (c *comparer) equal(p Path, a, b any) bool {
	if c.probe == nil {
		o := *c.o
		o.Max = 1
		c.probe = &comparer{o: &o}
	}
	c.probe.diffs = c.probe.diffs[:0]
	c.probe.value(p, a, b, true, true)
	return len(c.probe.diffs) == 0
}

// duplicate compares a member named more than once on one side or both (a Repeated): the sides
// are equal only when both name it as many times, each value equal to the other side's in turn.
func (c *comparer) duplicate(p Path, a, b any) {
	ra, rb := repeats(a), repeats(b)
	if len(ra) == len(rb) {
		eq := true
		for i := range ra {
			if eq = c.equal(p, ra[i], rb[i]); !eq {
				break
			}
		}
		if eq {
			return
		}
	}
	c.add(p, Duplicate, a, b, true, true)
}

func repeats(v any) Repeated {
	if r, ok := v.(Repeated); ok {
		return r
	}
	return Repeated{v}
}

// multiset matches each element of a with an equal, not yet matched element of b (the first one
// found); the elements left over on either side are the differences. An element whose own path
// is ignored takes no part, on either side: otherwise it would match anything, wherever it
// stands, and the result would hang on which side is first.
func (c *comparer) multiset(p Path, a, b []any) {
	used := make([]bool, len(b))
	for j := range b {
		used[j] = c.ignored(p.Elem(j))
	}
	var left []int
	for i, x := range a {
		if c.ignored(p.Elem(i)) {
			continue
		}
		found := false
		for j, y := range b {
			if used[j] {
				continue
			}
			if c.equal(p.Elem(i), x, y) {
				used[j], found = true, true
				break
			}
		}
		if !found {
			left = append(left, i)
		}
	}
	for _, i := range left {
		c.add(p.Elem(i), Missing, a[i], nil, true, false)
	}
	for j, u := range used {
		if !u {
			c.add(p.Elem(j), Extra, nil, b[j], false, true)
		}
	}
}

// scalar compares two values that are not objects or arrays on the first side.
func (c *comparer) scalar(a, b any) (Kind, bool) {
	if c.o.ShapeOnly {
		if typeOf(a, true) == typeOf(b, true) {
			return "", true
		}
		return Type, false
	}
	if !c.o.StrictNumbers {
		if eq, ok := sameNumber(a, b); ok {
			if eq {
				return "", true
			}
			if typeOf(a, true) == typeOf(b, true) {
				return Changed, false
			}
			return Type, false
		}
	}
	if typeOf(a, true) != typeOf(b, true) {
		return Type, false
	}
	switch x := a.(type) {
	case json.Number:
		return Changed, x == b.(json.Number)
	case nil:
		return "", true
	default: // string, InvalidUTF8 (never equal to a string: their bytes differ), bool
		return Changed, a == b
	}
}

// maxIntDigits bounds the integers that are normalised; longer ones compare as written.
const maxIntDigits = 200

// sameNumber compares a and b as numbers when both read as one (ok): two JSON numbers, or a
// JSON number or hex string against an integer in any of the three forms. Two decimal strings
// are text, not numbers: they compare as written.
func sameNumber(a, b any) (eq, ok bool) {
	na, aNum := a.(json.Number)
	nb, bNum := b.(json.Number)
	if aNum && bNum {
		if na == nb {
			return true, true
		}
		ia, okA := integer(a)
		ib, okB := integer(b)
		if okA && okB {
			return ia.Cmp(ib) == 0, true
		}
		fa, errA := strconv.ParseFloat(string(na), 64)
		fb, errB := strconv.ParseFloat(string(nb), 64)
		if errA != nil || errB != nil {
			return false, true
		}
		return fa == fb, true
	}
	if !aNum && !bNum && !isHex(a) && !isHex(b) {
		return false, false // two strings that are not hex are text
	}
	ia, okA := integer(a)
	ib, okB := integer(b)
	if !okA || !okB {
		return false, false
	}
	return ia.Cmp(ib) == 0, true
}

func isHex(v any) bool {
	s, ok := v.(string)
	return ok && len(s) > 2 && (s[:2] == "0x" || s[:2] == "0X")
}

// integer reads v as an integer: a JSON number without fraction or exponent, a "0x" hex string
// or a string of decimal digits.
func integer(v any) (*big.Int, bool) {
	var s string
	base := 10
	switch x := v.(type) {
	case json.Number:
		s = string(x)
		if strings.ContainsAny(s, ".eE") {
			return nil, false
		}
	case string:
		s = x
		if isHex(x) {
			s, base = x[2:], 16
		}
		if strings.ContainsAny(s, "-") {
			return nil, false
		}
	default:
		return nil, false
	}
	if len(s) > maxIntDigits || strings.ContainsAny(s, "_+") {
		return nil, false
	}
	n, ok := new(big.Int).SetString(s, base)
	return n, ok
}

// typeOf names the JSON type of v.
func typeOf(v any, has bool) string {
	if !has {
		return "missing"
	}
	switch v.(type) {
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string, InvalidUTF8:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

// typeLabel is typeOf as a Difference writes it, saying also when a string is not UTF-8 or a
// member is named more than once.
func typeLabel(v any, has bool) string {
	if has {
		switch v.(type) {
		case InvalidUTF8:
			return "string, not UTF-8"
		case Repeated:
			return "duplicate key"
		}
	}
	return typeOf(v, has)
}
