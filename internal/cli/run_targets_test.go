package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/rpcbench/rpcbench/summary"
)

// recorder is a loopback HTTP server that keeps every request it got as "METHOD URI body".
type recorder struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []string
	hdrs []http.Header
	fail string // answer 500 to requests whose URI has this prefix
}

func startRecorder(t *testing.T) *recorder {
	t.Helper()
	rec := &recorder{}
	rec.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rec.mu.Lock()
		rec.reqs = append(rec.reqs, strings.TrimSpace(r.Method+" "+r.RequestURI+" "+string(body)))
		rec.hdrs = append(rec.hdrs, r.Header.Clone())
		fail := rec.fail != "" && strings.HasPrefix(r.RequestURI, rec.fail)
		rec.mu.Unlock()
		if fail {
			http.Error(w, "no such shelf", http.StatusInternalServerError)
			return
		}
		io.WriteString(w, "ok")
	}))
	t.Cleanup(rec.Close)
	return rec
}

func (rec *recorder) requests() []string {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]string(nil), rec.reqs...)
}

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// jsonReport runs Main with args (plus --format json) and returns the report.
func jsonReport(t *testing.T, stdin string, args ...string) (code int, s *summary.Summary, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Main(append(args, "--format", "json"), strings.NewReader(stdin), &out, &errb)
	s = &summary.Summary{}
	if code == ExitOK {
		if err := json.Unmarshal(out.Bytes(), s); err != nil {
			t.Fatalf("report is not JSON: %v\n%s", err, out.String())
		}
	}
	return code, s, errb.String()
}

func TestRunEndpointsWithWeights(t *testing.T) {
	t.Parallel()
	rec := startRecorder(t)
	u := rec.URL
	code, s, stderr := jsonReport(t, "", "run", "--rate", "400", "--requests", "400",
		"--endpoint", "get=GET "+u+"/v0/entity?id={{randInt 1 1e8}}",
		"--endpoint", "put=PUT "+u+"/v0/entity?id={{seq}}", "--body", `{"v":"{{randString 8}}"}`,
		"--weights", "get=8,put=2")
	if code != ExitOK {
		t.Fatalf("exit %d; stderr %s", code, stderr)
	}
	if len(s.Endpoints) != 2 || s.Endpoints[0].Name != "get" || s.Endpoints[1].Name != "put" {
		t.Fatalf("endpoints: got %+v; want get and put", s.Endpoints)
	}
	get, put := s.Endpoints[0].Requests.OK, s.Endpoints[1].Requests.OK
	// 400 picks at p = 0.2: mean 80, σ = 8; 5σ either way
	if get+put != 400 || put < 40 || put > 120 {
		t.Errorf("ok answers: got get %d, put %d; want 400 in all, put 80 ± 40", get, put)
	}
	getRE := regexp.MustCompile(`^GET /v0/entity\?id=[1-9][0-9]{0,8}$`)
	putRE := regexp.MustCompile(`^PUT /v0/entity\?id=[0-9]+ \{"v":"[A-Za-z0-9_-]{8}"\}$`)
	for _, r := range rec.requests() {
		if !getRE.MatchString(r) && !putRE.MatchString(r) {
			t.Errorf("server got %q; want a rendered GET or PUT", r)
		}
	}
	// the text report lists the endpoints too
	code, stdout, stderr := mainOut("run", "--requests", "20", "--connections", "2",
		"--endpoint", "get=GET "+u+"/a", "--endpoint", "put=PUT "+u+"/b")
	if code != ExitOK {
		t.Fatalf("exit %d; stderr %s", code, stderr)
	}
	if !strings.Contains(stdout, "Endpoints") || !regexp.MustCompile(`(?m)^\s*get\b`).MatchString(stdout) || !regexp.MustCompile(`(?m)^\s*put\b`).MatchString(stdout) {
		t.Errorf("text report lacks the endpoints get and put:\n%s", stdout)
	}
}

func TestRunTargetsFiles(t *testing.T) {
	t.Parallel()
	rec := startRecorder(t)
	dir := t.TempDir()
	writeFile(t, dir, "item.json", `{"name":"{{pick "ann" "bob"}}"}`)
	httpFile := writeFile(t, dir, "targets.http", fmt.Sprintf(`# name: list
GET %[1]s/items
Accept: application/json

# name: create
POST %[1]s/items
Content-Type: application/json
@item.json
`, rec.URL))
	code, s, stderr := jsonReport(t, "", "run", "--connections", "2", "--requests", "10", "--targets", httpFile, "-H", "X-Team: blue")
	if code != ExitOK {
		t.Fatalf("text format: exit %d; stderr %s", code, stderr)
	}
	if len(s.Endpoints) != 2 || s.Endpoints[0].Requests.OK+s.Endpoints[1].Requests.OK != 10 {
		t.Errorf("text format: endpoints %+v; want list and create with 10 ok answers", s.Endpoints)
	}
	posts := 0
	for _, r := range rec.requests() {
		if strings.HasPrefix(r, "POST") {
			posts++
			if r != `POST /items {"name":"ann"}` && r != `POST /items {"name":"bob"}` {
				t.Errorf("server got %q; want a rendered item", r)
			}
		}
	}
	if posts == 0 {
		t.Error("server got no POST")
	}
	rec.mu.Lock()
	for _, h := range rec.hdrs {
		if h.Get("X-Team") != "blue" {
			t.Errorf("request headers %v; want X-Team: blue from -H", h)
		}
	}
	rec.mu.Unlock()

	// JSON lines from stdin, in random order
	jsonl := fmt.Sprintf(`{"method":"GET","url":"%[1]s/j/a"}
{"method":"PUT","url":"%[1]s/j/b","body":"aGk="}
`, rec.URL)
	code, s, stderr = jsonReport(t, jsonl, "run", "--rate", "200", "--requests", "20", "--targets", "-", "--targets-order", "random")
	if code != ExitOK {
		t.Fatalf("json format: exit %d; stderr %s", code, stderr)
	}
	if len(s.Endpoints) != 2 || s.Endpoints[0].Name != "GET /j/a" || s.Requests.OK != 20 {
		t.Errorf("json format: got %d ok, endpoints %+v; want 20 ok over GET /j/a and PUT /j/b", s.Requests.OK, s.Endpoints)
	}
}

func TestRunUniqueDataRunsOut(t *testing.T) {
	t.Parallel()
	rec := startRecorder(t)
	data := writeFile(t, t.TempDir(), "users.csv", "user_id,name\nu1,ann\nu2,bob\nu3,cy\nu4,di\nu5,ed\n")
	code, stdout, stderr := mainOut("run", "--connections", "3", "--requests", "100", "--data", data, "--data-order", "unique",
		rec.URL+"/v0/entity?id={{.user_id}}&n={{.name}}")
	if code != ExitUsage || !strings.Contains(stderr, "unique data ran out") || !strings.Contains(stderr, "users.csv") {
		t.Errorf("exit %d, stderr %q; want %d and a message that the unique data of users.csv ran out", code, stderr, ExitUsage)
	}
	if !strings.Contains(stdout, "sent 5") {
		t.Errorf("report does not say 5 were sent:\n%s", stdout)
	}
	seen := map[string]bool{}
	for _, r := range rec.requests() {
		if seen[r] {
			t.Errorf("server got %q twice; want each row once", r)
		}
		seen[r] = true
	}
	if len(seen) != 5 {
		t.Errorf("distinct requests: got %d; want 5", len(seen))
	}
}

func TestRunSetup(t *testing.T) {
	t.Parallel()
	rec := startRecorder(t)
	dir := t.TempDir()
	setup := writeFile(t, dir, "put.http", "PUT "+rec.URL+"/v0/entity?id={{seq}}\n")
	code, s, stderr := jsonReport(t, "", "run", "--connections", "2", "--requests", "10", "--setup", setup, "--setup-count", "50",
		rec.URL+"/v0/entity?id={{randInt 0 49}}")
	if code != ExitOK {
		t.Fatalf("exit %d; stderr %s", code, stderr)
	}
	if !strings.Contains(stderr, "setup: 50 requests") {
		t.Errorf("stderr %q; want it to report the setup", stderr)
	}
	if s.Requests.Sent != 10 {
		t.Errorf("measured requests: got %d; want 10 (the setup outside the figures)", s.Requests.Sent)
	}
	reqs := rec.requests()
	if len(reqs) != 60 {
		t.Fatalf("server got %d requests; want 50 setup PUTs and 10 GETs", len(reqs))
	}
	ids := map[string]bool{}
	for i, r := range reqs {
		if i < 50 != strings.HasPrefix(r, "PUT") {
			t.Fatalf("request %d is %q; want 50 PUTs first, then GETs", i, r)
		}
		if i < 50 {
			ids[r] = true
		}
	}
	for id := range 50 {
		if r := fmt.Sprintf("PUT /v0/entity?id=%d", id); !ids[r] {
			t.Errorf("setup did not send %q; want ids 0 to 49 once each", r)
		}
	}

	// a setup that fails stops before the run, naming the request and its status
	rec.mu.Lock()
	rec.fail = "/shelf"
	rec.mu.Unlock()
	bad := writeFile(t, dir, "bad.http", "PUT "+rec.URL+"/shelf/1\n")
	code, _, stderr = mainOut("run", "--requests", "10", "--setup", bad, rec.URL+"/")
	if code != ExitCannotStart || !strings.Contains(stderr, "PUT http://"+rec.Listener.Addr().String()+"/shelf/1 answered status 500: no such shelf") {
		t.Errorf("exit %d, stderr %q; want %d naming PUT …/shelf/1 and status 500", code, stderr, ExitCannotStart)
	}
}

func TestRunTrafficUsageErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := writeFile(t, dir, "targets.txt", "GET http://127.0.0.1:1/\n\nGTE /\n")
	good := writeFile(t, dir, "ok.txt", "GET http://127.0.0.1:1/\n")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"malformed target", []string{"run", "--targets", bad}, `targets.txt:3: want "METHOD URL": URL "/": the URL needs a scheme and a host`},
		{"missing targets file", []string{"run", "--targets", filepath.Join(dir, "nope")}, "no such file"},
		{"URL and targets", []string{"run", "--targets", good, "http://127.0.0.1:1/"}, "a URL and --targets"},
		{"bad endpoint", []string{"run", "--endpoint", "get=GET /x"}, "--endpoint:"},
		{"bad template", []string{"run", "http://127.0.0.1:1/?id={{randint 1 2}}"}, `template column 8: unknown function "randint"`},
		{"unknown weight name", []string{"run", "--endpoint", "a=http://127.0.0.1:1/", "--weights", "b=1"}, "--weights: no endpoint named b; the names are a"},
		{"missing weight", []string{"run", "--endpoint", "a=http://127.0.0.1:1/", "--endpoint", "b=http://127.0.0.1:1/", "--weights", "a=1"}, "b has no weight"},
		{"field without data", []string{"run", "http://127.0.0.1:1/?id={{.id}}"}, "--data FILE"},
		{"data order alone", []string{"run", "--data-order", "unique", "http://127.0.0.1:1/"}, "without a data file"},
		{"bad targets order", []string{"run", "--targets-order", "zigzag", "http://127.0.0.1:1/"}, `--targets-order: "zigzag"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, _, stderr := mainOut(tt.args...)
			if code != ExitUsage || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, ExitUsage, tt.want)
			}
		})
	}
}

// TestExamplesWork runs the example target and data files of the repository against a server.
func TestExamplesWork(t *testing.T) {
	t.Parallel()
	rec := startRecorder(t)
	root := filepath.Join("..", "..", "examples")
	dir := t.TempDir()
	for _, name := range []string{"targets.http", "targets.jsonl", "users.csv", "item.json", "setup.http"} {
		b, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		// the examples aim at 127.0.0.1:8081 (rpcbench serve kv in docs/requests.md); aim them at the test's server
		writeFile(t, dir, name, strings.ReplaceAll(string(b), "http://127.0.0.1:8081", rec.URL))
	}
	for _, args := range [][]string{
		{"run", "--rate", "200", "--requests", "20", "--targets", filepath.Join(dir, "targets.http")},
		{"run", "--rate", "200", "--requests", "20", "--targets", filepath.Join(dir, "targets.jsonl")},
		{"run", "--rate", "200", "--requests", "3", "--data", filepath.Join(dir, "users.csv"), rec.URL + "/v0/entity?id={{.user_id}}"},
		{"run", "--rate", "200", "--requests", "5", "-X", "PUT", "--body", `{"name":"{{.name}}","plan":"{{.plan}}"}`,
			"--data", filepath.Join(dir, "users.csv"), "--data-order", "unique", rec.URL + "/v0/entity?id={{.user_id}}"},
		{"run", "--setup", filepath.Join(dir, "setup.http"), "--setup-count", "100", "--rate", "200", "--requests", "10",
			rec.URL + "/v0/entity?id=item-{{randInt 0 99}}"},
	} {
		if code, stdout, stderr := mainOut(args...); code != ExitOK {
			t.Errorf("%v: exit %d; stderr %s\n%s", args, code, stderr, stdout)
		}
	}
}
