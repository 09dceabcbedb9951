package check

import (
	"github.com/rpcbench/rpcbench/internal/jsonpath"
	"github.com/rpcbench/rpcbench/internal/jsonscan"
)

// Path is a parsed JSON path in the dotted syntax of package jsonpath: members by name and array
// elements by index, as in "result.transactions[0].hash" (an optional leading "$." is allowed,
// "[1].id" starts at an array and ["a.b"] names a member that is not a plain word). A check reads
// one value, so "*" is a member named "*", not a wildcard. The zero value is the empty path: the
// whole document. Paths are immutable and safe for concurrent use.
type Path struct {
	steps jsonpath.Path
	src   string
}

// ParsePath parses a dotted path. An error names the path and the column where it goes wrong.
func ParsePath(s string) (Path, error) {
	steps, err := jsonpath.Parse(s, false)
	return Path{steps: steps, src: s}, err
}

// String returns the path as it was written.
func (p Path) String() string { return p.src }

// Lookup returns the raw JSON value at p in doc. ok is false when a member or element is missing
// or a step meets a value of the wrong kind; err is set when doc is malformed on the way.
func (p Path) Lookup(doc []byte) (val []byte, ok bool, err error) {
	val = doc
	for _, s := range p.steps {
		if !s.IsIndex {
			if jsonscan.KindOf(val) != jsonscan.Object {
				return nil, false, nil
			}
			val, ok, err = jsonscan.Member(val, s.Key)
		} else {
			if jsonscan.KindOf(val) != jsonscan.Array {
				return nil, false, nil
			}
			val, ok, err = jsonscan.Index(val, s.Index)
		}
		if !ok || err != nil {
			return nil, false, err
		}
	}
	if len(p.steps) == 0 {
		end, err := jsonscan.Skip(doc, 0)
		if err != nil {
			return nil, false, err
		}
		val = doc[jsonscan.SkipSpace(doc, 0):end]
	}
	return val, true, nil
}
