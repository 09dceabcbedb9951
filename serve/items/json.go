package items

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// MaxIDBytes is the longest id accepted, in bytes.
const MaxIDBytes = 1024

// createRequest is the body of POST /rpz/items.
type createRequest struct {
	ID   any    `json:"id"`
	Name string `json:"name"`
}

// decodeCreate reads a create request: a JSON object with an id (a string, or an integer kept as
// its decimal text) and a name (a string, may be empty or absent). Unknown members are ignored.
func decodeCreate(r io.Reader) (id, name string, err error) {
	dec := json.NewDecoder(r)
	dec.UseNumber()
	var req createRequest
	if err := dec.Decode(&req); err != nil {
		return "", "", fmt.Errorf("body is not a JSON object {\"id\":…,\"name\":…}: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return "", "", errors.New("body has data after the JSON object")
	}
	switch v := req.ID.(type) {
	case string:
		id = v
	case json.Number:
		if strings.ContainsAny(string(v), ".eE") {
			return "", "", fmt.Errorf("id %s is not an integer or a string", v)
		}
		id = string(v)
	case nil:
		return "", "", errors.New(`missing "id"`)
	default:
		return "", "", fmt.Errorf("id must be a string or an integer, got %T", v)
	}
	if err := checkID(id); err != nil {
		return "", "", err
	}
	return id, req.Name, nil
}

func checkID(id string) error {
	switch {
	case id == "":
		return errors.New("id is empty")
	case len(id) > MaxIDBytes:
		return fmt.Errorf("id is %d bytes long; the most is %d", len(id), MaxIDBytes)
	case !utf8.ValidString(id):
		return errors.New("id is not valid UTF-8")
	}
	return nil
}

// appendJSONString appends s as a JSON string, escaped byte for byte as encoding/json does with
// SetEscapeHTML(false): quotes, backslashes and control characters escaped, invalid UTF-8 replaced by U+FFFD.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' { // valid JSON, but not valid JavaScript: escape as encoding/json does
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// payloadSuffix returns the end of every item's JSON: the payload member, if any, and the closing
// brace. The payload is n bytes of printable ASCII, so the JSON body carries exactly n bytes of it.
func payloadSuffix(n int) []byte {
	if n == 0 {
		return []byte{'}'}
	}
	var b bytes.Buffer
	b.Grow(n + 14)
	b.WriteString(`,"payload":"`)
	b.Write(payload(n))
	b.WriteString(`"}`)
	return b.Bytes()
}

// payload returns the filler of n bytes added to every item.
func payload(n int) []byte {
	p := make([]byte, n)
	for i := range p {
		p[i] = "abcdefghijklmnopqrstuvwxyz0123456789"[i%36]
	}
	return p
}
