package jsonscan

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"
)

func TestSkip(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want int // end offset; -1 for an error
	}{
		{`{"a":1}`, 7},
		{` [1, 2.5e-3, "x\u00e9", true, false, null] tail`, 42},
		{`"a\"b"`, 6},
		{`-0`, 2},
		{`01`, 1}, // a number ends at the leading zero
		{`{"a":}`, -1},
		{`[1,]`, -1},
		{`"\x"`, -1},
		{`"abc`, -1},
		{`1.`, -1},
		{`tru`, -1},
		{``, -1},
		{`{"a" 1}`, -1},
	} {
		got, err := Skip([]byte(tc.in), 0)
		if tc.want < 0 {
			if err == nil {
				t.Errorf("Skip(%q) = %d, nil; want an error", tc.in, got)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Skip(%q) = %d, %v; want %d, nil", tc.in, got, err, tc.want)
		}
	}
}

func TestMemberIndex(t *testing.T) {
	t.Parallel()
	doc := []byte(`{"jsonrpc":"2.0","id":7,"r\u0065sult":[{"a":1},{"b":[2,3]}],"error":null}`)
	for _, tc := range []struct {
		name, want string
		ok         bool
	}{
		{"id", "7", true},
		{"result", `[{"a":1},{"b":[2,3]}]`, true}, // an escaped member name
		{"error", "null", true},
		{"missing", "", false},
	} {
		v, ok, err := Member(doc, tc.name)
		if err != nil || ok != tc.ok || string(v) != tc.want {
			t.Errorf("Member(%s) = %q, %v, %v; want %q, %v, nil", tc.name, v, ok, err, tc.want, tc.ok)
		}
	}
	res, _, _ := Member(doc, "result")
	v, ok, err := Index(res, 1)
	if err != nil || !ok || string(v) != `{"b":[2,3]}` {
		t.Errorf("Index(result, 1) = %q, %v, %v; want {\"b\":[2,3]}", v, ok, err)
	}
	if _, ok, _ := Index(res, 2); ok {
		t.Errorf("Index(result, 2) found an element; want none")
	}
	it := Members([]byte(`{"a":1} ,`))
	for it.Next() {
	}
	if got := string(it.Rest()); got != " ," {
		t.Errorf("Rest() = %q; want \" ,\"", got)
	}
	if _, _, err := Member([]byte(`[1]`), "a"); err == nil {
		t.Errorf("Member of an array: got no error; want one")
	}
}

func TestInt(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true}, {"-32601", -32601, true}, {"9223372036854775807", 1<<63 - 1, true},
		{"9223372036854775808", 0, false}, {"1.5", 0, false}, {"", 0, false}, {"-", 0, false}, {"1e3", 0, false},
	} {
		got, err := Int([]byte(tc.in))
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("Int(%q) = %d, %v; want %d, ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func TestUnquote(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{`"Method not found"`, "Method not found"},
		{`"a\n\"b\"\u00e9\ud83d\ude00"`, "a\n\"b\"é😀"},
	} {
		got, err := Unquote([]byte(tc.in))
		if err != nil || got != tc.want {
			t.Errorf("Unquote(%s) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	if _, err := Unquote([]byte(`"a" "b"`)); err == nil {
		t.Errorf("Unquote of two strings: got no error; want one")
	}
}

func depth(b []byte) int {
	return bytes.Count(b, []byte("[")) + bytes.Count(b, []byte("{"))
}

// FuzzSkip checks the scanner against encoding/json: a document is valid for one exactly when it
// is for the other, and walking members never panics.
func FuzzSkip(f *testing.F) {
	for _, s := range []string{`{"jsonrpc":"2.0","id":1,"result":"0x1"}`, `[{"id":1},{"id":2,"error":{"code":-32601,"message":"x"}}]`,
		`"\ud83d\ude00"`, `-1.5e+10`, `{"a":[1,{"b":null}]}`, `[`, `{"a":1,}`, "\"\x01\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		end, err := Skip(b, 0)
		ok := err == nil && SkipSpace(b, end) == len(b)
		if depth(b) < maxDepth {
			if want := json.Valid(b); ok != want {
				t.Fatalf("Skip(%q): valid=%v; encoding/json says %v (err %v)", b, ok, want, err)
			}
		}
		it := Members(b)
		for it.Next() {
			_, _ = Unquote(append(append([]byte{'"'}, it.Key...), '"'))
		}
		it = Elements(b)
		for it.Next() {
			_, _ = Int(it.Value)
		}
		if ok && KindOf(b) == String && utf8.Valid(b) {
			var want string
			if json.Unmarshal(b, &want) == nil {
				if got, err := Unquote(bytes.TrimSpace(b)); err != nil || got != want && bytes.IndexByte(b, '\\') < 0 {
					t.Fatalf("Unquote(%q) = %q, %v; want %q", b, got, err, want)
				}
			}
		}
	})
}

func BenchmarkMember(b *testing.B) {
	doc := []byte(`{"jsonrpc":"2.0","id":123456,"result":{"number":"0x10","hash":"0xabcdef","transactions":["0x1","0x2","0x3"]}}`)
	b.ReportAllocs()
	for b.Loop() {
		v, ok, err := Member(doc, "id")
		if err != nil || !ok || len(v) == 0 {
			b.Fatal(v, ok, err)
		}
	}
}
