package plan

import (
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestTemplateRender(t *testing.T) {
	t.Parallel()
	fields := []string{"user_id", "name"}
	tests := []struct {
		name, src string
		want      *regexp.Regexp
	}{
		{"plain text is kept", "/v0/entity?id=1", regexp.MustCompile(`^/v0/entity\?id=1$`)},
		{"randInt in range", "id={{randInt 5 7}}", regexp.MustCompile(`^id=[5-7]$`)},
		{"randInt with 1e8", "{{randInt 1 1e8}}", regexp.MustCompile(`^[1-9][0-9]{0,8}$`)},
		{"randInt of one value", "{{randInt -3 -3}}", regexp.MustCompile(`^-3$`)},
		{"seq", "n={{ seq }}", regexp.MustCompile(`^n=41$`)},
		{"uuid v4", "{{uuid}}", regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)},
		{"randString length", "{{randString 23}}", regexp.MustCompile(`^[A-Za-z0-9_-]{23}$`)},
		{"randHex bytes", "{{randHex 3}}", regexp.MustCompile(`^0x[0-9a-f]{6}$`)},
		{"randAddress", `["{{randAddress}}"]`, regexp.MustCompile(`^\["0x[0-9a-f]{40}"\]$`)},
		{"randHash", "{{ randHash }}", regexp.MustCompile(`^0x[0-9a-f]{64}$`)},
		{"pick", `{{pick "a" "b c" ` + "`d`" + `}}`, regexp.MustCompile(`^(a|b c|d)$`)},
		{"now in ms", "{{now}}", regexp.MustCompile(`^1767225600123$`)},
		{"nowUnix", "{{nowUnix}}", regexp.MustCompile(`^1767225600$`)},
		{"nowRFC3339", "{{nowRFC3339}}", regexp.MustCompile(`^2026-01-01T00:00:00\.123Z$`)},
		{"data fields", "{{.name}}/{{.user_id}}", regexp.MustCompile(`^ann/u1$`)},
		{"quoted braces", `{{"{{"}}x}}`, regexp.MustCompile(`^\{\{x\}\}$`)},
		{"json body", `{"id":"{{seq}}","v":{"w":1}}`, regexp.MustCompile(`^\{"id":"41","v":\{"w":1\}\}$`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tmpl, err := ParseTemplate(tt.src, fields)
			if err != nil {
				t.Fatalf("ParseTemplate(%q): %v", tt.src, err)
			}
			g := newGen(1, 2)
			g.seq = 41
			g.now = time.Date(2026, 1, 1, 0, 0, 0, 123e6, time.UTC)
			g.row = [][]byte{[]byte("u1"), []byte("ann")}
			for range 50 {
				if got := string(tmpl.appendTo(nil, g)); !tt.want.MatchString(got) {
					t.Fatalf("render %q: got %q; want a match of %s", tt.src, got, tt.want)
				}
			}
		})
	}
}

func TestTemplateRandIntCoversRange(t *testing.T) {
	t.Parallel()
	tmpl, err := ParseTemplate("{{randInt 1 4}}", nil)
	if err != nil {
		t.Fatal(err)
	}
	g := newGen(3, 4)
	seen := map[string]bool{}
	for range 1000 { // each value has probability 1/4: missing one in 1000 draws is ~1e-125
		seen[string(tmpl.appendTo(nil, g))] = true
	}
	if len(seen) != 4 {
		t.Errorf("randInt 1 4 over 1000 draws: got values %v; want 1, 2, 3 and 4", seen)
	}
}

func TestTemplateErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, src string
		fields    []string
		col       int
		msg       string
	}{
		{"unclosed", "/a/{{seq", nil, 4, `without a closing "}}"`},
		{"unknown function", "/x?id={{randint 1 2}}", nil, 9, `unknown function "randint"`},
		{"empty action", "{{ }}", nil, 1, "empty action"},
		{"randInt arity", "{{randInt 1}}", nil, 3, "randInt takes 2 argument(s)"},
		{"randInt order", "{{randInt 9 1}}", nil, 13, "below the low end"},
		{"randInt not a number", "{{randInt a 1}}", nil, 11, `"a" is not a whole number`},
		{"randInt fraction", "{{randInt 1 1.5}}", nil, 13, "not a whole number"},
		{"randString too long", "{{randString 9e9}}", nil, 14, "want a length from 1"},
		{"randHex of 0 bytes", "{{randHex 0}}", nil, 11, "want a count of bytes from 1"},
		{"randHex arity", "{{randHex}}", nil, 3, "randHex takes 1 argument(s)"},
		{"randAddress arity", "{{randAddress 20}}", nil, 3, "randAddress takes 0 argument(s)"},
		{"pick nothing", "{{pick}}", nil, 3, "at least one word"},
		{"field without data", "{{.id}}", nil, 3, "--data FILE"},
		{"unknown field", "{{.idd}}", []string{"id", "name"}, 3, `unknown field "idd"; the data file has id, name`},
		{"unterminated quote", `{{pick "a}}`, nil, 8, "unterminated"},
		{"extra after seq", "{{seq 1}}", nil, 3, "seq takes 0 argument(s)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseTemplate(tt.src, tt.fields)
			var te *TemplateError
			if !errors.As(err, &te) {
				t.Fatalf("ParseTemplate(%q): got %v; want a *TemplateError", tt.src, err)
			}
			if te.Col != tt.col || !strings.Contains(te.Msg, tt.msg) {
				t.Errorf("ParseTemplate(%q): got column %d %q; want column %d and %q", tt.src, te.Col, te.Msg, tt.col, tt.msg)
			}
		})
	}
}

// TestTemplateRenderAllocs checks that rendering into buffers of the right size allocates nothing.
func TestTemplateRenderAllocs(t *testing.T) {
	tmpl, err := ParseTemplate(`/v0/entity?id={{randInt 1 1e8}}&u={{uuid}}&s={{randString 16}}&h={{randHex 20}}&a={{randHash}}&p={{pick "a" "b"}}&n={{seq}}&t={{nowRFC3339}}&f={{.user_id}}`, []string{"user_id"})
	if err != nil {
		t.Fatal(err)
	}
	g := newGen(1, 1)
	g.row = [][]byte{[]byte("u-42")}
	g.now = time.Now()
	buf := tmpl.appendTo(nil, g)
	if got := testing.AllocsPerRun(1000, func() { buf = tmpl.appendTo(buf[:0], g) }); got != 0 {
		t.Errorf("allocs per render: got %v; want 0", got)
	}
}

func BenchmarkRender(b *testing.B) {
	for _, bc := range []struct{ name, src string }{
		{"randInt", "/v0/entity?id={{randInt 1 1e8}}"},
		{"mixed", `{"id":"{{uuid}}","user":"{{.user_id}}","n":{{seq}},"s":"{{randString 16}}","k":"{{pick "a" "b" "c"}}","t":{{now}}}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			tmpl, err := ParseTemplate(bc.src, []string{"user_id"})
			if err != nil {
				b.Fatal(err)
			}
			g := newGen(1, 1)
			g.row = [][]byte{[]byte("u-42")}
			var buf []byte
			b.ReportAllocs()
			for b.Loop() {
				g.seq++
				buf = tmpl.appendTo(buf[:0], g)
			}
		})
	}
}

func FuzzParseTemplate(f *testing.F) {
	for _, s := range []string{
		"/v0/entity?id={{randInt 1 1e8}}", "{{seq}}", "{{uuid}}", "{{randString 16}}", "{{randHex 20}}{{randAddress}}{{randHash}}",
		`{{pick "a" "b" "c"}}`, "{{now}}{{nowUnix}}{{nowRFC3339}}", "{{.user_id}}", `{{"{{"}}`,
		"{{", "}}", "{{randInt 1}}", "{{pick `x` \"y\\\"z\"}}", "{{randInt -9223372036854775808 9223372036854775807}}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tmpl, err := ParseTemplate(s, []string{"user_id"})
		if err != nil {
			var te *TemplateError
			if !errors.As(err, &te) || te.Col < 1 || te.Col > len(s)+1 {
				t.Fatalf("ParseTemplate(%q): got error %v; want a *TemplateError with a column in 1..%d", s, err, len(s)+1)
			}
			return
		}
		g := newGen(1, 1)
		g.row = [][]byte{[]byte("v")}
		out := tmpl.appendTo(nil, g)
		if !strings.Contains(s, "{{") && string(out) != s {
			t.Fatalf("render of plain text %q: got %q; want it unchanged", s, out)
		}
		if tmpl.String() != s {
			t.Fatalf("String: got %q; want %q", tmpl.String(), s)
		}
	})
}
