package jsondiff

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestCompare(t *testing.T) {
	t.Parallel()
	pats := func(ss ...string) []Pattern {
		var ps []Pattern
		for _, s := range ss {
			ps = append(ps, MustPattern(s))
		}
		return ps
	}
	tests := []struct {
		name string
		a, b string
		o    Options
		want []string // Difference.String() of each, in order
	}{
		{"equal objects, members in another order", `{"a":1,"b":[1,2]}`, `{"b":[1,2],"a":1}`, Options{}, nil},
		{"changed string", `{"result":{"hash":"0xab"}}`, `{"result":{"hash":"0xac"}}`, Options{},
			[]string{`result.hash: changed: "0xab" (string) ≠ "0xac" (string)`}},
		{"hex and decimal number are one integer", `{"n":"0x1a"}`, `{"n":26}`, Options{}, nil},
		{"hex and decimal string are one integer", `{"n":"0x1A"}`, `{"n":"26"}`, Options{}, nil},
		{"leading zeros of hex", `["0x00ff"]`, `["0xff"]`, Options{}, nil},
		{"hex against another number", `{"n":"0x1a"}`, `{"n":27}`, Options{},
			[]string{`n: type: "0x1a" (string) ≠ 27 (number)`}},
		{"strict numbers", `{"n":"0x1a"}`, `{"n":26}`, Options{StrictNumbers: true},
			[]string{`n: type: "0x1a" (string) ≠ 26 (number)`}},
		{"big integers beyond 64 bits", `"0x10000000000000000"`, `18446744073709551616`, Options{}, nil},
		{"numbers 1.0 and 1e0", `[1.0]`, `[1e0]`, Options{}, nil},
		{"two decimal strings are text", `["010"]`, `["10"]`, Options{},
			[]string{`[0]: changed: "010" (string) ≠ "10" (string)`}},
		{"type change", `{"result":{}}`, `{"result":null}`, Options{},
			[]string{`result: type: {} (object) ≠ null (null)`}},
		{"missing and extra members", `{"a":1,"b":2}`, `{"b":2,"c":3}`, Options{},
			[]string{`a: missing: 1 (number) ≠ missing`, `c: extra: missing ≠ 3 (number)`}},
		{"null is not missing by default", `{"a":null}`, `{}`, Options{},
			[]string{`a: missing: null (null) ≠ missing`}},
		{"null is missing when asked", `{"a":null,"b":1}`, `{"b":1}`, Options{NullIsMissing: true}, nil},
		{"longer array", `[1,2]`, `[1,2,3]`, Options{}, []string{`[2]: extra: missing ≠ 3 (number)`}},
		{"ordered array", `{"r":[1,2]}`, `{"r":[2,1]}`, Options{},
			[]string{`r[0]: changed: 1 (number) ≠ 2 (number)`, `r[1]: changed: 2 (number) ≠ 1 (number)`}},
		{"unordered array", `{"r":[1,2,{"x":1}]}`, `{"r":[{"x":1},2,1]}`, Options{Unordered: pats("r")}, nil},
		{"unordered array with leftovers", `{"r":[1,2,2]}`, `{"r":[2,3,1]}`, Options{Unordered: pats("r")},
			[]string{`r[2]: missing: 2 (number) ≠ missing`, `r[1]: extra: missing ≠ 3 (number)`}},
		{"ignored element of an unordered array", `[1,0,0]`, `[0,0,0]`, Options{Unordered: pats("$"), Ignore: pats("[1]")},
			[]string{`[0]: missing: 1 (number) ≠ missing`, `[2]: extra: missing ≠ 0 (number)`}},
		{"ignored element of an unordered array, sides swapped", `[0,0,0]`, `[1,0,0]`, Options{Unordered: pats("$"), Ignore: pats("[1]")},
			[]string{`[2]: missing: 0 (number) ≠ missing`, `[0]: extra: missing ≠ 1 (number)`}},
		{"ignored path", `{"result":{"timestamp":"0x1","n":1}}`, `{"result":{"timestamp":"0x2","n":1}}`,
			Options{Ignore: pats("result.timestamp")}, nil},
		{"ignored with wildcard", `{"result":[{"hash":"a","n":1},{"hash":"b","n":2}]}`, `{"result":[{"hash":"x","n":1},{"hash":"y","n":3}]}`,
			Options{Ignore: pats("result[*].hash")}, []string{`result[1].n: changed: 2 (number) ≠ 3 (number)`}},
		{"error message dropped, code kept", `{"error":{"code":-32000,"message":"header not found"}}`,
			`{"error":{"code":-32000,"message":"block not found"}}`, Options{}, nil},
		{"error code differs", `{"error":{"code":-32000,"message":"a"}}`, `{"error":{"code":-32602,"message":"b"}}`, Options{},
			[]string{`error.code: changed: -32000 (number) ≠ -32602 (number)`}},
		{"error message kept when asked", `{"error":{"code":1,"message":"a"}}`, `{"error":{"code":1,"message":"b"}}`,
			Options{KeepErrorMessages: true}, []string{`error.message: changed: "a" (string) ≠ "b" (string)`}},
		{"error messages of a batch dropped", `[{"error":{"code":1,"message":"a"}}]`, `[{"error":{"code":1,"message":"b"}}]`, Options{}, nil},
		{"shape only: values ignored", `{"a":"0x1","b":[1,2,3]}`, `{"a":"0x2","b":[5]}`, Options{ShapeOnly: true}, nil},
		{"shape only: types and members count", `{"a":"0x1","b":1}`, `{"a":1,"c":1}`, Options{ShapeOnly: true},
			[]string{`a: type: "0x1" (string) ≠ 1 (number)`, `b: missing: 1 (number) ≠ missing`, `c: extra: missing ≠ 1 (number)`}},
		{"odd member names are quoted", `{"a.b":1}`, `{"a.b":2}`, Options{}, []string{`["a.b"]: changed: 1 (number) ≠ 2 (number)`}},
		{"max stops early", `[1,2,3]`, `[4,5,6]`, Options{Max: 1}, []string{`[0]: changed: 1 (number) ≠ 4 (number)`}},
		{"whole document", `1`, `"x"`, Options{}, []string{`$: type: 1 (number) ≠ "x" (string)`}},

		// A member named twice: clients differ on which value they take.
		{"duplicate key", `{"jsonrpc":"2.0","id":1,"result":"0x1","result":"0x2"}`, `{"jsonrpc":"2.0","id":1,"result":"0x2"}`, Options{},
			[]string{`result: duplicate: "0x1", "0x2" (duplicate key) ≠ "0x2" (string)`}},
		{"duplicate key on the second side", `{"result":"0x2"}`, `{"result":"0x2","result":"0x2"}`, Options{},
			[]string{`result: duplicate: "0x2" (string) ≠ "0x2", "0x2" (duplicate key)`}},
		{"duplicate keys alike on both sides", `{"a":1,"a":"0x2"}`, `{"a":"0x1","a":2}`, Options{}, nil},
		{"duplicate keys in another order", `{"a":1,"a":2}`, `{"a":2,"a":1}`, Options{},
			[]string{`a: duplicate: 1, 2 (duplicate key) ≠ 2, 1 (duplicate key)`}},
		{"a key three times and twice", `{"a":1,"a":1,"a":1}`, `{"a":1,"a":1}`, Options{},
			[]string{`a: duplicate: 1, 1, 1 (duplicate key) ≠ 1, 1 (duplicate key)`}},
		{"duplicate key inside a missing member", `{"r":{"b":[],"a":1,"a":2}}`, `{}`, Options{},
			[]string{`r: missing: {"a":1,"a":2,"b":[]} (object) ≠ missing`}},
		{"duplicate key ignored", `{"t":1,"t":2,"n":1}`, `{"t":3,"n":1}`, Options{Ignore: pats("t")}, nil},
		{"duplicate key in an unordered array", `[{"a":1,"a":2}]`, `[{"a":2}]`, Options{Unordered: pats("$")},
			[]string{`[0]: missing: {"a":1,"a":2} (object) ≠ missing`, `[0]: extra: missing ≠ {"a":2} (object)`}},
		{"duplicate key in shape only", `{"a":1,"a":2}`, `{"a":3}`, Options{ShapeOnly: true},
			[]string{`a: duplicate: 1, 2 (duplicate key) ≠ 3 (number)`}},

		// Bytes that are not UTF-8 are compared as bytes, never as U+FFFD.
		{"invalid UTF-8 against U+FFFD escapes", "\"\xff\xfe\xc3(\"", `"\ufffd\ufffd\ufffd("`, Options{},
			[]string{`$: changed: "\xff\xfe\xc3(" (string, not UTF-8) ≠ "` + "\ufffd\ufffd\ufffd" + `(" (string)`}},
		{"invalid UTF-8 against U+FFFD written out", "[\"\xff\"]", "[\"\xef\xbf\xbd\"]", Options{},
			[]string{`[0]: changed: "\xff" (string, not UTF-8) ≠ "` + "\ufffd" + `" (string)`}},
		{"invalid UTF-8 alike on both sides", "{\"a\":\"x\xffy\\n\"}", "{\"a\":\"x\xffy\\n\"}", Options{}, nil},
		{"invalid UTF-8 bytes differ", "\"\xff\\t\"", "\"\xfe\\t\"", Options{},
			[]string{`$: changed: "\xff\t" (string, not UTF-8) ≠ "\xfe\t" (string, not UTF-8)`}},
		{"invalid UTF-8 in a member name", "{\"\xff\":1}", `{"\ufffd":1}`, Options{},
			[]string{`["` + "\ufffd" + `"]: extra: missing ≠ 1 (number)`, `["\xff"]: missing: 1 (number) ≠ missing`}},
		{"invalid UTF-8 is a string in shape only", "\"\xff\"", `"x"`, Options{ShapeOnly: true}, nil},

		// Hex integers of one digit and the edges of the hex form.
		{"one hex digit", `["0x0","0x1","0xf","0xF","0X1","0x10"]`, `[0,1,15,15,1,16]`, Options{}, nil},
		{"one hex digit against a decimal string", `["0x1","0xf"]`, `["1","15"]`, Options{}, nil},
		{"one hex digit with leading zero", `["0x0"]`, `["0x00"]`, Options{}, nil},
		{"one hex digit against another number", `["0xf"]`, `[16]`, Options{},
			[]string{`[0]: type: "0xf" (string) ≠ 16 (number)`}},
		{"0x without digits is text", `["0x","0x"]`, `[0,"0x0"]`, Options{},
			[]string{`[0]: type: "0x" (string) ≠ 0 (number)`, `[1]: changed: "0x" (string) ≠ "0x0" (string)`}},
		{"0x with no hex digit is text", `["0xg"]`, `[16]`, Options{}, []string{`[0]: type: "0xg" (string) ≠ 16 (number)`}},

		// Null as missing on either side, and only for members.
		{"null is missing on the second side", `{"b":1}`, `{"a":null,"b":1}`, Options{NullIsMissing: true}, nil},
		{"null is missing on both sides", `{"a":null}`, `{"a":null}`, Options{NullIsMissing: true}, nil},
		{"null against a value, first side", `{"a":null}`, `{"a":1}`, Options{NullIsMissing: true},
			[]string{`a: extra: missing ≠ 1 (number)`}},
		{"null against a value, second side", `{"a":1}`, `{"a":null}`, Options{NullIsMissing: true},
			[]string{`a: missing: 1 (number) ≠ missing`}},
		{"null element is not missing", `[null]`, `[]`, Options{NullIsMissing: true},
			[]string{`[0]: missing: null (null) ≠ missing`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			diffs, err := Compare([]byte(tt.a), []byte(tt.b), &tt.o)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, d := range diffs {
				got = append(got, d.String())
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestCompareNotJSON(t *testing.T) {
	t.Parallel()
	tests := []struct{ a, b, want string }{
		{`{"a":`, `{}`, "first document: not JSON"},
		{`{}`, `<html>`, "second document: not JSON"},
		{`{} {}`, `{}`, "first document: not JSON: more than one value"},
		{`{}`, `{"result":1}]`, "second document: not JSON: invalid character ']' after top-level value"},
		{`{}x`, `{}`, "first document: not JSON: invalid character 'x' after top-level value"},
		{``, `{}`, "first document: not JSON: EOF"},
		{strings.Repeat("[", 2000) + strings.Repeat("]", 2000), `[]`, "nested deeper than 1000"},
	}
	for _, tt := range tests {
		if _, err := Compare([]byte(tt.a), []byte(tt.b), nil); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Compare(%.20q, %.20q): got %v; want an error with %q", tt.a, tt.b, err, tt.want)
		}
	}
}

func TestParsePattern(t *testing.T) {
	t.Parallel()
	good := []struct{ in, out string }{
		{"result.timestamp", "result.timestamp"},
		{"$.result[*].hash", "result[*].hash"},
		{"[0].error.message", "[0].error.message"},
		{`result["a.b"]`, `result["a.b"]`},
		{"*.hash", "*.hash"},
		{"$", "$"},
		{"a[0]b", "a[0].b"}, // as checks have always read it
		{`x"y`, `["x\"y"]`},
	}
	for _, tt := range good {
		p, err := ParsePattern(tt.in)
		if err != nil || p.String() != tt.out {
			t.Errorf("ParsePattern(%q): got %q, %v; want %q", tt.in, p.String(), err, tt.out)
		}
	}
	bad := []struct{ in, want string }{
		{"", "empty JSON path"},
		{".a", "member name before '.'"},
		{"a..b", "member name after '.'"},
		{"a[x]", "an index of 0 or more"},
		{"a[1", "want ']'"},
		{"$x", "'.' or '[' after '$'"},
		{"a]", "at column 2: want a member name, '.' or '['"},
		{`a b`, "quote it"},
	}
	for _, tt := range bad {
		if _, err := ParsePattern(tt.in); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParsePattern(%q): got %v; want an error with %q", tt.in, err, tt.want)
		}
	}
}

func TestPatternMatch(t *testing.T) {
	t.Parallel()
	path := Path{}.Child("result").Elem(3).Child("hash")
	tests := []struct {
		pat  string
		want bool
	}{
		{"result[3].hash", true},
		{"result[*].hash", true},
		{"*[*].*", true},
		{"result[2].hash", false},
		{"result.hash", false},      // an index is not a member
		{"result[*]", false},        // shorter: the subtree is ignored by not descending, not by prefix
		{"result[*].hash.x", false}, // longer
	}
	for _, tt := range tests {
		if got := MustPattern(tt.pat).Match(path); got != tt.want {
			t.Errorf("%s matches %s: got %v; want %v", tt.pat, path, got, tt.want)
		}
	}
}

// Equal documents give no difference whatever the rules, and the order of the documents changes
// only which side a difference names.
func FuzzCompare(f *testing.F) {
	f.Add([]byte(`{"a":1,"b":[1,2]}`), []byte(`{"b":[2,1],"a":"0x1"}`), uint8(0))
	f.Add([]byte(`{"error":{"code":-32000,"message":"x"}}`), []byte(`{"error":{"code":-32000}}`), uint8(3))
	f.Add([]byte(`["0x10000000000000000", null, 1e400]`), []byte(`[18446744073709551616, {}, 1e400]`), uint8(5))
	f.Add([]byte(`[1,2,2]`), []byte(`[2,1,3]`), uint8(16))
	f.Add([]byte(`{"result":"0x1","result":"0x2"}`), []byte(`{"result":"0x2"}`), uint8(0))
	f.Add([]byte(`[{"a":1,"a":null}]`), []byte(`[{"a":"0x1","a":null}]`), uint8(17))
	f.Add([]byte("\"\xff\xfe\xc3(\""), []byte(`"\ufffd\ufffd\ufffd("`), uint8(0))
	f.Add([]byte("{\"\xff\":\"a\xffb\\n\"}"), []byte("{\"\xff\":\"a\ufffdb\\n\"}"), uint8(8))
	f.Fuzz(func(t *testing.T, a, b []byte, rules uint8) {
		o := Options{
			NullIsMissing:     rules&1 != 0,
			StrictNumbers:     rules&2 != 0,
			KeepErrorMessages: rules&4 != 0,
			ShapeOnly:         rules&8 != 0,
		}
		if rules&16 != 0 {
			o.Unordered = []Pattern{MustPattern("$"), MustPattern("[*]"), MustPattern("*")}
		}
		if rules&32 != 0 {
			o.Ignore = []Pattern{MustPattern("*.*"), MustPattern("[1]")}
		}
		ab, errAB := Compare(a, b, &o)
		if !json.Valid(a) || !json.Valid(b) {
			return // an error or not, never a panic
		}
		if errAB != nil {
			if !strings.Contains(errAB.Error(), "nested deeper") {
				t.Fatalf("valid JSON: %v", errAB)
			}
			return
		}
		ba, _ := Compare(b, a, &o)
		if len(ab) != len(ba) && o.Max == 0 && len(o.Unordered) == 0 {
			t.Fatalf("a→b %d differences, b→a %d:\n%v\n%v", len(ab), len(ba), ab, ba)
		}
		if (len(ab) == 0) != (len(ba) == 0) {
			t.Fatalf("a→b %v, b→a %v: equality must be symmetric", ab, ba)
		}
		for _, d := range ab {
			if d.Kind == Missing && d.TypeB != "missing" || d.Kind == Extra && d.TypeA != "missing" {
				t.Fatalf("difference %v: the kind does not match the sides", d)
			}
		}
		if self, _ := Compare(a, a, &o); len(self) != 0 {
			t.Fatalf("a against itself: %v", self)
		}
	})
}
