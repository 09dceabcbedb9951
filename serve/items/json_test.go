package items

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// marshalStd encodes s as encoding/json does without HTML escaping: the reference.
func marshalStd(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s) //nolint:errcheck // a string always encodes
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

func TestAppendJSONString(t *testing.T) {
	t.Parallel()
	tests := []string{
		"",                      // empty
		"pen",                   // plain
		`say "hi" \ back`,       // quote and backslash
		"tab\tnl\ncr\rbs\bff\f", // short escapes
		"\x00\x01\x1f\x7f",      // control characters (0x7f is not escaped)
		"<a & b>",               // no HTML escaping
		"héllo, 世界, 🙂",          // multi-byte UTF-8
		"bad \xff byte \xc3",    // invalid UTF-8
		"line\u2028sep\u2029",   // JavaScript line separators
	}
	for _, s := range tests {
		if got, want := appendJSONString(nil, s), marshalStd(s); !bytes.Equal(got, want) {
			t.Errorf("appendJSONString(%q) = %s; want %s", s, got, want)
		}
	}
}

func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "a\"b", "\x00", "\xff\xfe", "\u2028", "é"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := appendJSONString(nil, s), marshalStd(s); !bytes.Equal(got, want) {
			t.Fatalf("appendJSONString(%q) = %s; want %s", s, got, want)
		}
	})
}

func TestDecodeCreate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		body     string
		id, name string
		err      string // substring; "" means ok
	}{
		{`{"id":"a1","name":"pen"}`, "a1", "pen", ""},
		{`{"id":42,"name":"pen"}`, "42", "pen", ""},                     // integer id kept as text
		{`{"id":"x"}`, "x", "", ""},                                     // name may be absent
		{` {"name":"n","id":"x","extra":[1,2]} `, "x", "n", ""},         // unknown members ignored
		{`{"id":"x","name":"a\u0000b"}`, "x", "a\x00b", ""},             // escapes decoded
		{``, "", "", "not a JSON object"},                               // empty body
		{`{"id":"x"`, "", "", "not a JSON object"},                      // cut short
		{`["x"]`, "", "", "not a JSON object"},                          // not an object
		{`{"id":"x"} {"id":"y"}`, "", "", "data after the JSON object"}, // two objects
		{`{"name":"n"}`, "", "", `missing "id"`},                        // no id
		{`{"id":null}`, "", "", `missing "id"`},                         // null id
		{`{"id":""}`, "", "", "id is empty"},                            // empty id
		{`{"id":1.5}`, "", "", "not an integer"},                        // fractional id
		{`{"id":1e3}`, "", "", "not an integer"},                        // exponent id
		{`{"id":{"a":1}}`, "", "", "string or an integer"},              // object id
		{`{"id":"x","name":7}`, "", "", "not a JSON object"},            // name of the wrong type
		{`{"id":"` + strings.Repeat("x", MaxIDBytes+1) + `"}`, "", "", "bytes long"},
	}
	for _, tt := range tests {
		id, name, err := decodeCreate(strings.NewReader(tt.body))
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("decodeCreate(%.40q): got error %v; want one containing %q", tt.body, err, tt.err)
			}
			continue
		}
		if err != nil || id != tt.id || name != tt.name {
			t.Errorf("decodeCreate(%.40q) = %q, %q, %v; want %q, %q, nil", tt.body, id, name, err, tt.id, tt.name)
		}
	}
}

func FuzzDecodeCreate(f *testing.F) {
	for _, s := range []string{`{"id":"a","name":"b"}`, `{"id":7}`, `{"id":1.5}`, `{}`, `[`, `{"id":"x"} x`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		id, name, err := decodeCreate(strings.NewReader(body))
		if err != nil {
			return
		}
		if checkID(id) != nil {
			t.Fatalf("decodeCreate(%q) accepted id %q that checkID rejects", body, id)
		}
		// The stored item's JSON must decode back to what was sent.
		var got struct{ ID, Name string }
		if err := json.Unmarshal(append(newItem(id, name, origin()).json, '}'), &got); err != nil {
			t.Fatalf("item JSON of %q: %v", body, err)
		}
		if got.ID != id || got.Name != name {
			t.Fatalf("item JSON of %q decodes to %q, %q; want %q, %q", body, got.ID, got.Name, id, name)
		}
	})
}
