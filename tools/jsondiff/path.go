package jsondiff

import "github.com/rpcbench/rpcbench/internal/jsonpath"

// Path is where a value sits in a document, as a list of member names and array indexes. It is
// written in the dotted syntax of Pattern (result.transactions[3].hash), with ["…"] for a member
// whose name is not a plain word; the root is written "$".
type Path = jsonpath.Path

// Pattern selects paths: member names and indexes as in a Path, with * for any member and [*]
// for any element, e.g. result.timestamp, result.transactions[*].hash or *.blockHash. A pattern
// matches a path of the same length whose every step it matches. Build it with ParsePattern; the
// zero value matches only the root. Patterns are immutable and safe for concurrent use.
type Pattern struct {
	steps jsonpath.Path
}

// ParsePattern parses a pattern in the grammar of package jsonpath, wildcards on:
// "result.timestamp", "result[*].hash", "$.result", "[0].error", `result["a.b"]`, "*.hash". "$"
// alone is the root. An error names the pattern and the column where it goes wrong.
func ParsePattern(s string) (Pattern, error) {
	steps, err := jsonpath.Parse(s, true)
	return Pattern{steps: steps}, err
}

// String writes the pattern back in the dotted syntax.
func (p Pattern) String() string { return p.steps.String() }

// Match reports whether p selects path.
func (p Pattern) Match(path Path) bool {
	if len(p.steps) != len(path) {
		return false
	}
	for i, s := range p.steps {
		q := path[i]
		if s.IsIndex != q.IsIndex {
			return false
		}
		if s.Any {
			continue
		}
		if s.IsIndex && s.Index != q.Index || !s.IsIndex && s.Key != q.Key {
			return false
		}
	}
	return true
}

// MustPattern is ParsePattern for patterns known to be good; it panics on a bad one.
func MustPattern(s string) Pattern {
	p, err := ParsePattern(s)
	if err != nil {
		panic(err)
	}
	return p
}
