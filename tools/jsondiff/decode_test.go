package jsondiff

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// decodeStd decodes b with encoding/json, the independent route Decode is held to where the
// document has no duplicate key and no byte that is not UTF-8.
func decodeStd(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// plain reports whether v holds no Repeated, no InvalidUTF8 and no member name that is not UTF-8:
// nothing that encoding/json reads otherwise.
func plain(v any) bool {
	switch x := v.(type) {
	case Repeated, InvalidUTF8:
		return false
	case []any:
		for _, e := range x {
			if !plain(e) {
				return false
			}
		}
	case map[string]any:
		for k, e := range x {
			if !utf8.ValidString(k) || !plain(e) {
				return false
			}
		}
	}
	return true
}

var decodeCases = []string{
	` { "a" : [ 1 , { } , [ ] , "" ] , "b":true,"c":false,"d":null } `,
	`"a\"b\\c\/d\b\f\n\r\t\u00e9\u00E9\ud83d\ude00\u0000z"`,
	`["\ud800x","\ud800\u0041","\udc00","\ud83d","\ud83d\ud83d\ude00"]`,
	`[-0.5e+10,1E2,0,-0,12345678901234567890123,1e400]`,
	"\t\r\n[\"\u2028\u2029<>&\x7f\"]\n",
	`{"":{"":[[]]}}`,
	`0`, `"x"`, `[]`, `{}`, `null`,
}

// Decode reads what encoding/json reads, wherever the document has no duplicate key and no byte
// that is not UTF-8.
func TestDecodeAsEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, doc := range decodeCases {
		got, err := Decode([]byte(doc))
		if err != nil {
			t.Errorf("Decode(%q): %v", doc, err)
			continue
		}
		want, err := decodeStd([]byte(doc))
		if err != nil {
			t.Fatalf("encoding/json: %q: %v", doc, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Decode(%q):\ngot  %#v\nwant %#v", doc, got, want)
		}
	}
}

// What Decode keeps that encoding/json does not: each value of a duplicate key, in order, and
// the bytes of a string (or member name) that are not UTF-8, escapes resolved.
func TestDecodeKeeps(t *testing.T) {
	t.Parallel()
	tests := []struct {
		doc  string
		want any
	}{
		{`{"a":1,"b":2,"a":[3],"a":null}`, map[string]any{"a": Repeated{json.Number("1"), []any{json.Number("3")}, nil}, "b": json.Number("2")}},
		{`[{"a":{"a":1,"a":1}}]`, []any{map[string]any{"a": map[string]any{"a": Repeated{json.Number("1"), json.Number("1")}}}}},
		{"\"\xff\xfe\xc3(\"", InvalidUTF8("\xff\xfe\xc3(")},
		{"\"\\u00e9\xe9\\n\"", InvalidUTF8("\u00e9\xe9\n")},
		{"{\"\xff\":\"\xc3\xa9\"}", map[string]any{"\xff": "é"}},
	}
	for _, tt := range tests {
		got, err := Decode([]byte(tt.doc))
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Decode(%q): got %#v, %v; want %#v", tt.doc, got, err, tt.want)
		}
	}
}

// A difference writes its values as encoding/json writes them (without HTML escapes), members
// in name order.
func TestEncodeAsEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, doc := range append(decodeCases, `{"b":1,"a":2,"c":{"z":1,"y":"\u0001\u001f"}}`) {
		v, err := decodeStd([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		if got, want := encode(v), strings.TrimSuffix(b.String(), "\n"); got != want {
			t.Errorf("encode(%q): got %s; want %s", doc, got, want)
		}
	}
}

// Decode refuses exactly what json.Valid refuses and, where encoding/json has nothing else to
// say, reads what it reads; a difference's values are JSON that reads back the same.
func FuzzDecode(f *testing.F) {
	for _, doc := range decodeCases {
		f.Add([]byte(doc))
	}
	f.Add([]byte(`{"result":"0x1","result":"0x2"}`))
	f.Add([]byte("[\"\xff\xfe\xc3(\",\"\\ufffd\"]"))
	f.Add([]byte("{\"\xff\":1,\"\\ufffd\":2}"))
	f.Add([]byte(`{} x`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		v, err := Decode(doc)
		if err != nil {
			if json.Valid(doc) && !strings.Contains(err.Error(), "nested deeper") {
				t.Fatalf("valid JSON refused: %v", err)
			}
			return
		}
		if !json.Valid(doc) {
			t.Fatalf("%q is not JSON, decoded as %#v", doc, v)
		}
		if !plain(v) {
			return
		}
		want, err := decodeStd(doc)
		if err != nil || !reflect.DeepEqual(v, want) {
			t.Fatalf("Decode %#v; encoding/json %#v, %v", v, want, err)
		}
		again, err := Decode([]byte(encode(v)))
		if err != nil || !reflect.DeepEqual(again, v) {
			t.Fatalf("encode %s reads back as %#v, %v; want %#v", encode(v), again, err, v)
		}
	})
}
