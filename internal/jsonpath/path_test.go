package jsonpath

import (
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func key(k string) Step { return Step{Key: k} }
func idx(i int) Step    { return Step{Index: i, IsIndex: true} }

var (
	anyKey  = Step{Key: "*", Any: true}
	anyElem = Step{IsIndex: true, Any: true}
)

// TestParse lists the expressions either old parser took (checks' ParsePath without wildcards,
// diff's ParsePattern with them) and the steps each means, written by hand.
func TestParse(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in        string
		wild      bool
		want      Path
		canonical string
	}{
		{"result.transactions[1].hash", false, Path{key("result"), key("transactions"), idx(1), key("hash")}, "result.transactions[1].hash"},
		{"$.result.n", false, Path{key("result"), key("n")}, "result.n"},
		{"list[1][0]", false, Path{key("list"), idx(1), idx(0)}, "list[1][0]"},
		{"[1].id", false, Path{idx(1), key("id")}, "[1].id"},
		{"$", false, Path{}, "$"},
		{"$.", true, Path{}, "$"},
		{"$[0]", false, Path{idx(0)}, "[0]"},
		{"$.[0]", true, Path{idx(0)}, "[0]"},
		{"a[01]", false, Path{key("a"), idx(1)}, "a[1]"},
		{"a[-0]", true, Path{key("a"), idx(0)}, "a[0]"},
		{"a[0]b", false, Path{key("a"), idx(0), key("b")}, "a[0].b"}, // checks took a name right after ']'
		{"a[0]b", true, Path{key("a"), idx(0), key("b")}, "a[0].b"},
		{`a"b.c$`, false, Path{key(`a"b`), key("c$")}, `["a\"b"]["c$"]`}, // checks' names: anything but . [ ] and spaces
		{"a.*", false, Path{key("a"), key("*")}, `a["*"]`},               // no wildcards: a member named *
		{"a.*", true, Path{key("a"), anyKey}, "a.*"},
		{"*.hash", true, Path{anyKey, key("hash")}, "*.hash"},
		{"$.result[*].hash", true, Path{key("result"), anyElem, key("hash")}, "result[*].hash"},
		{`result["a.b"]`, true, Path{key("result"), key("a.b")}, `result["a.b"]`},
		{`result["a.b"]`, false, Path{key("result"), key("a.b")}, `result["a.b"]`},
		{`["*"]`, true, Path{key("*")}, `["*"]`},
		{`[""]`, true, Path{key("")}, `[""]`},
		{"  result.timestamp\t", true, Path{key("result"), key("timestamp")}, "result.timestamp"},
		{"a*.b", true, Path{key("a*"), key("b")}, `["a*"].b`},
	} {
		got, err := Parse(c.in, c.wild)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("Parse(%q, %v): got %+v, %v; want %+v", c.in, c.wild, got, err, c.want)
			continue
		}
		if s := got.String(); s != c.canonical {
			t.Errorf("Parse(%q, %v).String(): got %q; want %q", c.in, c.wild, s, c.canonical)
		}
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		wild bool
		want string // the column, 1 for the first byte of in, and what was wanted there
	}{
		{"", true, "empty JSON path"},
		{" \t", false, "empty JSON path"},
		{".a", true, "at column 1: want a member name before '.'"},
		{"$..a", false, "at column 3: want a member name before '.'"},
		{"a..b", true, "at column 3: want a member name after '.'"},
		{"a.", false, "at column 3: want a member name after '.'"},
		{"a.[0]", false, "at column 3: want a member name after '.'"},
		{"a[", false, "at column 2: want ']' to close the index"},
		{"a[1", true, "at column 2: want ']' to close the index"},
		{"a[x]", false, "at column 3: want an index of 0 or more between [ and ]"},
		{"a[-1]", true, "at column 3: want an index of 0 or more, or *, between [ and ]"},
		{"a[+1]", false, "at column 3: want an index of 0 or more between"},
		{"a[*]", false, "at column 3: want an index of 0 or more between"}, // no wildcards
		{"$x", false, "at column 2: want '.' or '[' after '$'"},
		{"a b", true, "at column 2: want a member name, '.' or '['; quote it"},
		{"a]", false, "at column 2: want a member name, '.' or '['"},
		{" a. b", false, "at column 4: want a member name"}, // columns count the spaces trimmed
		{`a["b]`, true, `at column 2: want ["name"] with a quoted name`},
		{`a["b"x]`, true, `at column 2: want ["name"] with a quoted name`},
		{strings.Repeat("a.", 64) + "a", true, "at column 128: want at most 64 steps"},
		{strings.Repeat("[0]", 65), false, "at column 193: want at most 64 steps"},
	} {
		_, err := Parse(c.in, c.wild)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q, %v): got %v; want an error with %q", c.in, c.wild, err, c.want)
		}
		if err != nil && strings.TrimSpace(c.in) != "" && !strings.Contains(err.Error(), strconv.Quote(c.in)) {
			t.Errorf("Parse(%q, %v): %v does not name the path", c.in, c.wild, err)
		}
	}
}

func TestChildElem(t *testing.T) {
	t.Parallel()
	root := Path{}
	a := root.Child("result")
	b, c := a.Elem(3), a.Child("n")
	if got := fmt.Sprint(root, " ", a, " ", b, " ", c); got != "$ result result[3] result.n" {
		t.Errorf("got %q", got)
	}
	if a.Wild() || !(Path{key("a"), anyElem}).Wild() {
		t.Errorf("Wild: got %v for %s", a.Wild(), a)
	}
}

var columnRE = regexp.MustCompile(`^JSON path ".*": at column (\d+): want `)

// FuzzParse checks that Parse never panics, that it reads every expression an old parser took as
// that parser did, that String writes what Parse reads back, and that an error names the path and
// a column within it.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"result.transactions[0].hash", "$.x", "[1].id", "a[99999999999999999999]", "$", "a..b",
		"*.hash", "a[*]", `a["b.c"][2]`, " a ", "a[0]b", `a"b`, "$.", "\u00a0a", "a[", `["\u00e9"]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, wild := range []bool{false, true} {
			p, err := Parse(s, wild)
			if err != nil {
				m := columnRE.FindStringSubmatch(err.Error())
				if strings.TrimSpace(s) == "" && strings.HasPrefix(err.Error(), "empty JSON path") {
					continue
				}
				if m == nil || !strings.HasPrefix(err.Error(), "JSON path "+strconv.Quote(s)) {
					t.Fatalf("Parse(%q, %v): error %q names no path and column", s, wild, err)
				}
				if col, _ := strconv.Atoi(m[1]); col < 1 || col > len(s)+1 {
					t.Fatalf("Parse(%q, %v): column %d outside the path", s, wild, col)
				}
				continue
			}
			if p.Wild() && !wild {
				t.Fatalf("Parse(%q, false) made a wildcard", s)
			}
			back, err := Parse(p.String(), true)
			if err != nil || !reflect.DeepEqual(back, p) {
				t.Fatalf("Parse(%q, %v) = %+v writes %q, which reads back as %+v, %v", s, wild, p, p.String(), back, err)
			}
		}
		if old, err := oldCheckParse(s); err == nil && strings.TrimSpace(s) == s {
			p, err := Parse(s, false)
			if err != nil || !reflect.DeepEqual(p, old.steps2()) {
				t.Fatalf("checks' old parser read %q as %+v; Parse(…, false): %+v, %v", s, old.steps2(), p, err)
			}
		}
		if old, err := oldDiffParse(s); err == nil {
			p, err := Parse(s, true)
			if err != nil || !reflect.DeepEqual(p, old.steps2()) {
				t.Fatalf("diff's old parser read %q as %+v; Parse(…, true): %+v, %v", s, old.steps2(), p, err)
			}
		}
	})
}
