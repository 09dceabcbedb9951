package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// authServer is a server on loopback that answers every request (a JSON-RPC call with its own id)
// and records the Authorization header and Host of each, by path.
type authServer struct {
	*httptest.Server
	mu   sync.Mutex
	seen map[string][]string // path → "Authorization|Host" of each request
}

func newAuthServer(t *testing.T) *authServer {
	t.Helper()
	s := &authServer{seen: map[string][]string{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.seen[r.URL.Path] = append(s.seen[r.URL.Path], r.Header.Get("Authorization")+"|"+r.Host)
		s.mu.Unlock()
		b, _ := io.ReadAll(r.Body)
		var call struct{ ID json.RawMessage }
		if json.Unmarshal(b, &call) == nil && call.ID != nil {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":"0x1"}`, call.ID)
			return
		}
		w.Write([]byte("ok"))
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *authServer) requests(path string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.seen[path]...)
}

// A URL's user-info is sent as Basic authorization, and never as part of the host, whichever
// source the URL comes from — a targets file in either format, a setup file, a templated URL with
// a data file, a JSON-RPC calls file, a plan file's target with a targets file (run --plan and
// bench) — and the password is in no report, progress line or note.
func TestURLUserInfoFromEverySource(t *testing.T) {
	t.Parallel()
	srv := newAuthServer(t)
	host := strings.TrimPrefix(srv.URL, "http://")
	withInfo := "http://alice:pw0rd%21@" + host // alice:pw0rd!
	const basic = "Basic YWxpY2U6cHcwcmQh"      // base64 of "alice:pw0rd!", by `printf 'alice:pw0rd!' | base64`
	dir := t.TempDir()
	write := func(name, text string) { writeFile(t, dir, name, text) }
	write("t.http", "GET "+withInfo+"/text\n")
	write("given.http", "GET "+withInfo+"/given\nAuthorization: Basic Ym9iOnMzY3IldA==\n") // bob:s3cr%t
	write("t.jsonl", `{"method":"GET","url":"`+withInfo+`/json"}`+"\n")
	write("setup.http", "POST "+withInfo+"/setup\n")
	write("rows.csv", "id\n7\n")
	write("calls.jsonl", `{"method":"eth_chainId"}`+"\n")
	write("rel.http", "GET /bench\n")
	write("bench.yaml", "targets:\n  one:\n    url: "+withInfo+"/\nscenarios:\n  s:\n    targets_file: rel.http\n    requests: 2\n    connections: 1\n")
	// run --plan of a target that has a command says where it sends, as it does not start it
	write("one.yaml", "targets:\n  one:\n    url: "+withInfo+"/\n    command: [\"true\"]\nscenarios:\n  s:\n    targets_file: rel2.http\n    requests: 2\n    connections: 1\n")
	write("rel2.http", "GET /plan\n")
	run := []string{"run", "--requests", "2", "--connections", "1", "--quiet", "--format", "json"}
	for _, tt := range []struct {
		name, path string
		args       []string
		auth       string // "": basic
	}{
		{"--targets (text)", "/text", append(run, "--targets", filepath.Join(dir, "t.http")), ""},
		{"--targets (JSON)", "/json", append(run, "--targets", filepath.Join(dir, "t.jsonl")), ""},
		{"--targets with an Authorization header", "/given", append(run, "--targets", filepath.Join(dir, "given.http")), "Basic Ym9iOnMzY3IldA=="},
		{"--setup", "/setup", append(run, "--setup", filepath.Join(dir, "setup.http"), srv.URL+"/main"), ""},
		{"--data", "/data/7", append(run, "--data", filepath.Join(dir, "rows.csv"), withInfo+"/data/{{.id}}"), ""},
		{"--calls", "/rpc", append(run, "--calls", filepath.Join(dir, "calls.jsonl"), withInfo+"/rpc"), ""},
		{"run --plan", "/plan", []string{"run", "--quiet", "--format", "json", "--plan", filepath.Join(dir, "one.yaml")}, ""},
		{"bench", "/bench", []string{"bench", "--quiet", "--format", "json", "--out-dir", filepath.Join(dir, "out"), filepath.Join(dir, "bench.yaml")}, ""},
	} {
		code, stdout, stderr := mainOut(tt.args...)
		if code != ExitOK {
			t.Errorf("%s: exit %d\n%s", tt.name, code, stderr)
			continue
		}
		got := srv.requests(tt.path)
		want := basic + "|" + host
		if tt.auth != "" {
			want = tt.auth + "|" + host // a header given wins, as curl and vegeta send it
		}
		if len(got) == 0 {
			t.Errorf("%s: no request reached %s", tt.name, tt.path)
		}
		for i, g := range got {
			if g != want {
				t.Errorf("%s: request %d to %s came with Authorization|Host %q; want %q", tt.name, i+1, tt.path, g, want)
				break
			}
		}
		if strings.Contains(stdout+stderr, "pw0rd") {
			t.Errorf("%s: the report shows the password:\n%s%s", tt.name, stdout, stderr)
		}
	}
	code, stdout, stderr := mainOut("bench", "--dry-run", filepath.Join(dir, "bench.yaml"))
	if code != ExitOK || strings.Contains(stdout+stderr, "pw0rd") || !strings.Contains(stdout, "http://REDACTED@"+host+"/") {
		t.Errorf("bench --dry-run: exit %d; want the target's URL with its user-info REDACTED:\n%s%s", code, stdout, stderr)
	}
}
