package diff

import (
	"strings"
	"testing"
	"testing/fstest"
)

func TestReadFixture(t *testing.T) {
	t.Parallel()
	in := `// speconly: shapes only
>> {"jsonrpc":"2.0","id":1,"method":"eth_chainId"}
<< {"jsonrpc":"2.0","id":1,"result":"0x1"}

>> [{"jsonrpc":"2.0","id":2,"method":"eth_blockNumber"}]
<< [{"jsonrpc":"2.0","id":2,"result":"0x2"}]
`
	reqs, err := ReadFixture("a.io", strings.NewReader(in), 7)
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 2 {
		t.Fatalf("got %d requests; want 2", len(reqs))
	}
	want := []struct {
		id             int
		label, where   string
		body, expected string
	}{
		{7, "eth_chainId", "a.io:2", `{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}`, `{"jsonrpc":"2.0","id":1,"result":"0x1"}`},
		{8, "batch", "a.io:5", `[{"jsonrpc":"2.0","id":2,"method":"eth_blockNumber"}]`, `[{"jsonrpc":"2.0","id":2,"result":"0x2"}]`},
	}
	for i, w := range want {
		r := reqs[i]
		if r.ID != w.id || r.Label != w.label || r.Where != w.where || string(r.Body) != w.body || string(r.Expected) != w.expected || !r.ShapeOnly {
			t.Errorf("request %d: got %d %q %q %s %s shape=%v; want %d %q %q %s %s shape=true", i, r.ID, r.Label, r.Where, r.Body, r.Expected, r.ShapeOnly,
				w.id, w.label, w.where, w.body, w.expected)
		}
	}
}

func TestReadFixtureErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"request without answer", ">> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\"}\n", `x.io:1: the ">>" request has no "<<" answer`},
		{"two requests in a row", ">> {\"method\":\"a\"}\n>> {\"method\":\"b\"}\n<< {}\n", `x.io:2: a second ">>" request before the "<<" answer of the request of x.io:1`},
		{"answer without request", "// c\n<< {}\n", `x.io:2: an "<<" answer with no ">>" request`},
		{"request not JSON", ">> {method}\n", `x.io:1: want ">> {JSON-RPC request}"`},
		{"request without method", ">> {\"id\":1}\n", "x.io:1: want \">> {JSON-RPC request}\" with a method"},
		{"answer not JSON", ">> {\"method\":\"a\"}\n<< {\n", `x.io:2: want "<< {JSON-RPC answer}"`},
		{"stray line", "hello\n", `x.io:1: want ">> request", "<< answer" or "// comment", got "hello"`},
		{"empty", "// nothing\n", `x.io: no ">> request" line`},
	}
	for _, tt := range tests {
		if _, err := ReadFixture("x.io", strings.NewReader(tt.in), 1); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: got %v; want an error with %q", tt.name, err, tt.want)
		}
	}
}

func TestReadFixtures(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{
		"b/two.io":   {Data: []byte(">> {\"method\":\"b\"}\n<< {}\n")},
		"a/one.io":   {Data: []byte(">> {\"method\":\"a\"}\n<< {}\n>> {\"method\":\"a2\"}\n<< {}\n")},
		"a/notes.md": {Data: []byte("not a fixture")},
	}
	reqs, err := ReadFixtures(fsys, ".", "tests")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range reqs {
		got = append(got, r.Where+" "+r.Label)
	}
	if want := "tests/a/one.io:1 a,tests/a/one.io:3 a2,tests/b/two.io:1 b"; strings.Join(got, ",") != want {
		t.Errorf("got %s; want %s", strings.Join(got, ","), want)
	}
	if reqs[2].ID != 3 {
		t.Errorf("third request's id: got %d; want 3", reqs[2].ID)
	}
	if _, err := ReadFixtures(fstest.MapFS{"x.txt": {}}, ".", "tests"); err == nil || !strings.Contains(err.Error(), "no .io fixture file") {
		t.Errorf("no fixture: got %v", err)
	}
}

// A fixture file read is requests that each have an expected answer; a refusal names the file.
func FuzzReadFixture(f *testing.F) {
	f.Add("// c\n>> {\"method\":\"a\"}\n<< {}\n")
	f.Add(">> {\"method\":\"a\"}\n>> {}\n")
	f.Add("<< []\n")
	f.Fuzz(func(t *testing.T, in string) {
		reqs, err := ReadFixture("f.io", strings.NewReader(in), 1)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "diff: f.io") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		for i, r := range reqs {
			if r.ID != i+1 || r.Expected == nil || r.Label == "" || !strings.HasPrefix(r.Where, "f.io:") {
				t.Fatalf("request %d: %+v", i, r)
			}
		}
	})
}
