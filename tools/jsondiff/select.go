package jsondiff

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Select returns the values at the paths p matches in doc, in the order they stand in doc: one at
// most for a pattern without wildcards, one per element or member for each * or [*]. A step that
// meets a missing member or element, or a value of the wrong kind, selects nothing there; doc
// must be valid JSON.
func (p Pattern) Select(doc []byte) ([]json.RawMessage, error) {
	if !json.Valid(doc) {
		return nil, fmt.Errorf("selecting %s: the document is not valid JSON", p)
	}
	var out []json.RawMessage
	err := p.selectFrom(bytes.TrimSpace(doc), 0, &out)
	return out, err
}

func (p Pattern) selectFrom(v []byte, i int, out *[]json.RawMessage) error {
	if i == len(p.steps) {
		*out = append(*out, json.RawMessage(v))
		return nil
	}
	s := p.steps[i]
	if len(v) == 0 {
		return nil
	}
	switch {
	case s.IsIndex && v[0] == '[':
		var elems []json.RawMessage
		if err := json.Unmarshal(v, &elems); err != nil {
			return err
		}
		if !s.Any {
			if s.Index >= len(elems) {
				return nil
			}
			elems = elems[s.Index : s.Index+1]
		}
		for _, e := range elems {
			if err := p.selectFrom(e, i+1, out); err != nil {
				return err
			}
		}
	case !s.IsIndex && v[0] == '{':
		dec := json.NewDecoder(bytes.NewReader(v))
		if _, err := dec.Token(); err != nil { // {
			return err
		}
		for dec.More() {
			t, err := dec.Token()
			if err != nil {
				return err
			}
			var val json.RawMessage
			if err := dec.Decode(&val); err != nil {
				return err
			}
			if !s.Any && t.(string) != s.Key {
				continue
			}
			if err := p.selectFrom(val, i+1, out); err != nil {
				return err
			}
			if !s.Any {
				return nil // the first of repeated names, as elsewhere
			}
		}
	}
	return nil
}

// Wild reports whether p has a wildcard (* or [*]), so that it may select more than one value.
func (p Pattern) Wild() bool { return p.steps.Wild() }
