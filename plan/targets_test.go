package plan

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rpcbench/rpcbench/transport"
)

func TestReadTargetsHTTP(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "item.json"), []byte(`{"id":"{{seq}}"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	in := `# a comment
# name: get
# weight: 8
GET http://127.0.0.1:8080/v0/entity?id={{randInt 1 1e8}}
Accept: application/json
X-Trace: {{uuid}}

# name: put
# weight: 2
PUT http://127.0.0.1:8080/v0/entity?id=1
Content-Type: application/json
@item.json
GET http://127.0.0.1:8080/v0/status
`
	got, err := ReadTargets("targets.txt", strings.NewReader(in), "", dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []Endpoint{
		{Name: "get", Weight: 8, Method: "GET", URL: "http://127.0.0.1:8080/v0/entity?id={{randInt 1 1e8}}",
			Header: []transport.Header{{Name: "Accept", Value: "application/json"}, {Name: "X-Trace", Value: "{{uuid}}"}}},
		{Name: "put", Weight: 2, Method: "PUT", URL: "http://127.0.0.1:8080/v0/entity?id=1",
			Header: []transport.Header{{Name: "Content-Type", Value: "application/json"}}, Body: []byte(`{"id":"{{seq}}"}`)},
		{Method: "GET", URL: "http://127.0.0.1:8080/v0/status"},
	}
	if !reflect.DeepEqual(got.Entries, want) {
		t.Errorf("entries:\ngot  %+v\nwant %+v", got.Entries, want)
	}
	if w := got.Where(1); w != "targets.txt:10" {
		t.Errorf("Where(1): got %q; want targets.txt:10", w)
	}
}

func TestReadTargetsJSON(t *testing.T) {
	t.Parallel()
	in := `{"method":"POST","url":"http://127.0.0.1:8080/items","header":{"Content-Type":["application/json"],"A":["1","2"]},"body":"eyJhIjoxfQ==","name":"post","weight":3}

{"url":"http://127.0.0.1:8080/"}
`
	got, err := ReadTargets("t.jsonl", strings.NewReader(in), "", "")
	if err != nil {
		t.Fatal(err)
	}
	want := []Endpoint{
		{Name: "post", Weight: 3, Method: "POST", URL: "http://127.0.0.1:8080/items", Body: []byte(`{"a":1}`),
			Header: []transport.Header{{Name: "A", Value: "1"}, {Name: "A", Value: "2"}, {Name: "Content-Type", Value: "application/json"}}},
		{Method: "GET", URL: "http://127.0.0.1:8080/"},
	}
	if !reflect.DeepEqual(got.Entries, want) {
		t.Errorf("entries:\ngot  %+v\nwant %+v", got.Entries, want)
	}
	if w := got.Where(1); w != "t.jsonl:3" {
		t.Errorf("Where(1): got %q; want t.jsonl:3", w)
	}
}

func TestReadTargetsErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, format, in, want string }{
		{"bad request line", "", "GET http://a/\n\nGTE /\n", `plan: targets.txt:3: want "METHOD URL": URL "/": the URL needs a scheme and a host`},
		{"no URL", "", "GET\n", `targets.txt:1: want "METHOD URL": no URL after the method`},
		{"host template", "", "GET http://{{pick \"a\" \"b\"}}/\n", "not in its scheme or host"},
		{"space in URL", "", "GET http://a/b c\n", "holds a space"},
		{"junk in entry", "", "GET http://a/\nnot a header\n", `targets.txt:2: want a header "Name: value"`},
		{"body before entry", "", "@body.json\n", "targets.txt:1: \"@body.json\": a body file goes after"},
		{"missing body file", "", "POST http://a/\n@nope.json\n", "targets.txt:2: body file:"},
		{"two bodies", "", "POST http://a/\n@" + os.DevNull + "\n@" + os.DevNull + "\n", "targets.txt:3"},
		{"header after body", "", "GET http://a/\n@" + os.DevNull + "\nA: b\n", `targets.txt:3: want a header`},
		{"bad weight", "", "# weight: -1\nGET http://a/\n", "targets.txt:1: # weight"},
		{"name at end", "", "GET http://a/\n# name: x\n", "# name or # weight at the end"},
		{"empty", "", "# nothing\n\n", "no targets"},
		{"json syntax", "json", "{\"url\": \n", "targets.txt:1: want {"},
		{"json unknown field", "", "{\"url\":\"http://a/\",\"headers\":{}}\n", `unknown field "headers"`},
		{"json bad url", "", "{\"url\":\"/x\"}\n", `targets.txt:1: url "/x"`},
		{"json bad method", "", "{\"method\":\"G T\",\"url\":\"http://a/\"}\n", "is not an HTTP method"},
		{"json bad base64", "", "{\"url\":\"http://a/\",\"body\":\"!!\"}\n", "targets.txt:1"},
		{"json two objects", "", "{\"url\":\"http://a/\"} {}\n", "one JSON object per line"},
		{"unknown format", "yaml", "GET http://a/\n", `format "yaml"`},
		// a URL's user-info is a secret: the error shows it REDACTED
		{"space in URL with user-info", "", "GET http://al:pw0rd@a/b c\n", `URL "http://REDACTED@a/b": the URL holds a space`},
		{"json bad url with user-info", "", "{\"url\":\"http://al:pw0rd@a/b c\"}\n", `url "http://REDACTED@a/b c": the URL holds a space`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ReadTargets("targets.txt", strings.NewReader(tt.in), tt.format, t.TempDir())
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ReadTargets(%q): got %v; want an error with %q", tt.in, err, tt.want)
			}
		})
	}
}

// roundTrip writes t in format and reads it back.
func roundTrip(t *Targets, format, dir string) (*Targets, error) {
	var buf bytes.Buffer
	save := func(i int, body []byte) (string, error) {
		name := fmt.Sprintf("body-%d.bin", i)
		return name, os.WriteFile(filepath.Join(dir, name), body, 0o644)
	}
	if err := WriteTargets(&buf, t, format, save); err != nil {
		return nil, err
	}
	return ReadTargets("again", &buf, "", dir)
}

func sameEntries(a, b []Endpoint) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if !bytes.Equal(x.Body, y.Body) || len(x.Header) != len(y.Header) {
			return false
		}
		if len(x.Header) > 0 && !reflect.DeepEqual(x.Header, y.Header) {
			return false
		}
		if x.Name != y.Name || x.Weight != y.Weight || x.Method != y.Method || x.URL != y.URL {
			return false
		}
	}
	return true
}

func TestTargetsRoundTrip(t *testing.T) {
	t.Parallel()
	src := &Targets{}
	src.Add(Endpoint{Name: "get", Weight: 0.5, Method: "GET", URL: "http://127.0.0.1:1/v0/entity?id={{randInt 1 1e8}}",
		Header: []transport.Header{{Name: "A", Value: "1"}, {Name: "A", Value: "2"}}}, "x")
	src.Add(Endpoint{Name: "put item", Method: "PUT", URL: "http://127.0.0.1:1/v0/entity?id={{seq}}", Body: []byte("\x00binary\n{{uuid}}")}, "y")
	src.Add(Endpoint{Method: "DELETE", URL: "https://[::1]:8443/", Body: []byte{}}, "z")
	for _, format := range []string{TargetsHTTP, TargetsJSON} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			once, err := roundTrip(src, format, dir)
			if err != nil {
				t.Fatal(err)
			}
			twice, err := roundTrip(once, format, dir)
			if err != nil {
				t.Fatal(err)
			}
			if !sameEntries(once.Entries, src.Entries) || !sameEntries(twice.Entries, once.Entries) {
				t.Errorf("round trip:\ngot  %+v\nthen %+v\nwant %+v", once.Entries, twice.Entries, src.Entries)
			}
		})
	}
}

func fuzzTargets(f *testing.F, format string, seeds []string) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		dir := t.TempDir()
		got, err := ReadTargets("f", strings.NewReader(s), format, dir)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "plan: f") {
				t.Fatalf("got error %q; want it to name the file", err)
			}
			return
		}
		again, err := roundTrip(got, format, dir)
		if err != nil {
			return // some values cannot be written in a format (e.g. spaces around a JSON header value)
		}
		if !sameEntries(again.Entries, got.Entries) {
			t.Fatalf("round trip of %q:\ngot  %+v\nwant %+v", s, again.Entries, got.Entries)
		}
	})
}

func FuzzReadTargetsHTTP(f *testing.F) {
	fuzzTargets(f, TargetsHTTP, []string{
		"GET http://127.0.0.1:8080/\n",
		"# name: a\n# weight: 2\nPOST http://h/x?id={{seq}}\nA: b\n\nGET http://h/\n",
		"GTE /\n", "@x\n", "GET http://h/\n# name: x\n",
	})
}

func FuzzReadTargetsJSON(f *testing.F) {
	fuzzTargets(f, TargetsJSON, []string{
		`{"method":"GET","url":"http://h/","header":{"A":["1"]},"body":"eA=="}` + "\n",
		`{"name":"n","weight":1.5,"url":"http://h/?a={{uuid}}"}`,
		`{"url":"/"}`, `{`, "\n\n",
	})
}

// A file that is no target file (a link to a password file, a key file) is refused naming its
// line, quoting no more of it than the offending word, and no secret of a URL.
func TestReadTargetsErrorsQuoteNoLine(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, where, hidden string }{
		{"a password file", "root:x:0:0:root:/root:/bin/bash\n", "f:1:", "root"},
		{"words", "SECRETLINE one two\n", "f:1:", "SECRETLINE"},
		{"a netrc line", "machine host login bob password hunter2\n", "f:1:", "hunter2"},
		{"a key alone", "sk-live-0123456789\n", "f:1:", "sk-live"},
		{"a key after an entry", "GET http://a/\nsk-live-0123456789\n", "f:2:", "sk-live"},
		{"a URL with a space and a password", "GET http://bob:hunter2@a/b c\n", "f:1:", "hunter2"},
		{"a JSON target's relative URL with a key", "{\"url\":\"/x?api_key=hunter2\"}\n", "f:1:", "hunter2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ReadTargets("f", strings.NewReader(tt.in), "", t.TempDir())
			if err == nil || !strings.Contains(err.Error(), tt.where) || strings.Contains(err.Error(), tt.hidden) {
				t.Errorf("ReadTargets(%q): got %v; want an error naming %s without %q", tt.in, err, tt.where, tt.hidden)
			}
		})
	}
}
