package cli

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rpcbench/rpcbench/serve/ethrpc"
)

func diffNode(t *testing.T, cfg ethrpc.Config) string {
	t.Helper()
	s, err := ethrpc.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s.URL()
}

func TestDiffUsage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, dir, "bad.io", "// one request, no answer\n>> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"eth_chainId\"}\n")
	writeFile(t, dir, "calls.jsonl", "{\"method\":\"eth_chainId\"}\n")
	calls := filepath.Join(dir, "calls.jsonl")
	a, b := "http://127.0.0.1:1/", "http://127.0.0.1:2/"
	runCLICases(t, []string{"diff"}, []cliCase{
		{"help", []string{"--help"}, ExitOK, []string{"rpcbench diff --fixtures examples/fixtures", "--ignore", "--stop-at-first"}, nil},
		{"no corpus", []string{a, b}, ExitUsage, nil, []string{"give one of --targets FILE, --calls FILE, --jsonrpc METHOD or --fixtures DIR"}},
		{"two corpora", []string{"--calls", calls, "--jsonrpc", "eth_chainId", a, b}, ExitUsage, nil, []string{"give one of"}},
		{"one URL", []string{"--calls", calls, a}, ExitUsage, nil, []string{"got 1 URL; want two or more"}},
		{"bad URL", []string{"--calls", calls, a, "ftp://x/"}, ExitUsage, nil, []string{`URL "ftp://x/"`}},
		{"bad ignore", []string{"--calls", calls, "--ignore", "a..b", a, b}, ExitUsage, nil, []string{"--ignore", "member name after '.'"}},
		{"bad unordered", []string{"--calls", calls, "--unordered", "a[x]", a, b}, ExitUsage, nil, []string{"--unordered", "an index of 0 or more"}},
		{"missing calls", []string{"--calls", filepath.Join(dir, "nope.jsonl"), a, b}, ExitUsage, nil, []string{"--calls", "nope.jsonl"}},
		{"bad fixture", []string{"--fixtures", filepath.Join(dir, "bad.io"), a}, ExitUsage, nil, []string{"bad.io:2: the \">>\" request has no \"<<\" answer"}},
		{"fixtures without URL", []string{"--fixtures", dir}, ExitUsage, nil, []string{"--fixtures: want the URL"}},
		{"bad params", []string{"--jsonrpc", "eth_getBalance", "--params", "[oops", a, b}, ExitUsage, nil, []string{"--params"}},
		{"zero connections", []string{"--calls", calls, "--connections", "0", a, b}, ExitUsage, nil, []string{"--connections 0"}},
		{"bad format", []string{"--calls", calls, "--format", "xml", a, b}, ExitUsage, nil, []string{"--format"}},
	})
}

// A node URL that does not parse, has no host or a bad port is a usage error (exit 2) that names
// the URL with its password and token REDACTED, as a URL or as --reference; nothing is sent.
func TestDiffBadURLRedacted(t *testing.T) {
	t.Parallel()
	calls := writeFile(t, t.TempDir(), "calls.jsonl", "{\"method\":\"eth_chainId\"}\n")
	good := "http://127.0.0.1:1/"
	for _, c := range []struct{ url, want string }{
		{"http://bob:pw2Secret@127.0.0.1:abc/?token=TOKSECRET", `URL "http://REDACTED@127.0.0.1:abc/?token=REDACTED": invalid port ":abc" after host`},
		{"http://bob:pw2Secret@127.0.0.1:70000/?token=TOKSECRET", `URL "http://REDACTED@127.0.0.1:70000/?token=REDACTED": port "70000": want a number from 1 to 65535`},
		{"ws://bob:pw2Secret@:8545/?token=TOKSECRET", `URL "ws://REDACTED@:8545/?token=REDACTED": no host`},
	} {
		for _, args := range [][]string{{good, c.url}, {"--reference", c.url, good, good}} {
			code, stdout, stderr := mainOut(append([]string{"diff", "--calls", calls}, args...)...)
			if code != ExitUsage || !strings.Contains(stderr, c.want) {
				t.Errorf("diff %q: exit %d, stderr %q; want exit %d and %q", args, code, stderr, ExitUsage, c.want)
			}
			if strings.Contains(stdout+stderr, "pw2Secret") || strings.Contains(stdout+stderr, "TOKSECRET") {
				t.Errorf("diff %q: the output shows the secrets:\n%s%s", args, stdout, stderr)
			}
		}
	}
}

// Two nodes of 100 and 120 blocks: the head differs, block 0x10 does not; --ignore result hides
// the difference. The files written hold every request, the mismatches and a row per server.
func TestDiffTwoNodes(t *testing.T) {
	t.Parallel()
	a := diffNode(t, ethrpc.Config{Blocks: 100})
	b := diffNode(t, ethrpc.Config{Blocks: 120})
	dir := t.TempDir()
	writeFile(t, dir, "calls.jsonl", `{"method":"eth_blockNumber"}
{"method":"eth_getBlockByNumber","params":["0x10",false],"name":"block"}
`)
	calls := filepath.Join(dir, "calls.jsonl")
	rec, errs, log := filepath.Join(dir, "pairs.jsonl"), filepath.Join(dir, "mismatches.jsonl"), filepath.Join(dir, "requests.csv")
	code, stdout, stderr := mainOut("diff", "--calls", calls, "--record", rec, "--errors", errs, "--log", log, a, b)
	if code != ExitSLO {
		t.Fatalf("exit %d; want 1\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{"2 requests to 2 servers, compared with " + a + ": 1 of 2 requests differ, 0 failed",
		`result: changed: "0x63" (string) ≠ "0x77" (string)`, "#1 eth_blockNumber (" + calls + " call 1)"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	for path, lines := range map[string]int{rec: 2, errs: 1, log: 1 + 2*2} {
		b, err := os.ReadFile(path)
		if n := strings.Count(string(b), "\n"); err != nil || n != lines {
			t.Errorf("%s: %v, %d lines; want %d:\n%s", path, err, n, lines, b)
		}
	}
	if code, stdout, _ := mainOut("diff", "--calls", calls, "--ignore", "result", a, b); code != ExitOK || !strings.Contains(stdout, "all 2 answers equal") {
		t.Errorf("--ignore result: exit %d; want 0:\n%s", code, stdout)
	}
	out := filepath.Join(dir, "first.rb")
	code, stdout, _ = mainOut("diff", "--jsonrpc", "eth_blockNumber", "--requests", "5", "--format", "json", "--stop-at-first", "--out", out, a, b)
	var rep struct {
		Requests, Different int
		Stopped             string
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil || code != ExitSLO || rep.Requests != 1 || rep.Different != 1 || rep.Stopped != "first difference" {
		t.Errorf("--stop-at-first --format json: exit %d, %+v, %v:\n%s", code, rep, err, stdout)
	}
	// its result file says why it stopped, not that someone interrupted it
	code, stdout, stderr = mainOut("report", out)
	if code != ExitOK || strings.Contains(stdout, "INTERRUPTED") || !strings.Contains(stdout, "stopped early: stopped at the first difference") {
		t.Errorf("report of a --stop-at-first result file: exit %d; want it stopped early at the first difference, not INTERRUPTED:\n%s%s", code, stdout, stderr)
	}
}

// A target file's requests go to each URL; the repository's fixtures pass against the built-in
// node as docs/diff-and-corpora.md starts it.
func TestDiffTargetsAndFixtures(t *testing.T) {
	t.Parallel()
	a := diffNode(t, ethrpc.Config{})
	b := diffNode(t, ethrpc.Config{Blocks: 5000})
	dir := t.TempDir()
	body := func(s string) string { b, _ := json.Marshal([]byte(s)); return string(b) }
	writeFile(t, dir, "t.jsonl", `{"method":"POST","url":"http://127.0.0.1:18545/","header":{"Content-Type":["application/json"]},"body":`+
		body(`{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}`)+`}
{"method":"POST","url":"http://127.0.0.1:18545/","header":{"Content-Type":["application/json"]},"body":`+
		body(`{"jsonrpc":"2.0","id":2,"method":"eth_blockNumber"}`)+`}
`)
	code, stdout, stderr := mainOut("diff", "--targets", filepath.Join(dir, "t.jsonl"), "--format", "markdown", a, b)
	if code != ExitSLO || !strings.Contains(stdout, "| `eth_chainId` | 1 | 1 | 0 | 0 | 0 |") ||
		!strings.Contains(stdout, "| `eth_blockNumber` | 1 | 0 | 1 | 0 | 0 |") || !strings.Contains(stdout, "t.jsonl:2") {
		t.Errorf("exit %d; want 1 with eth_blockNumber different (10000 blocks and 5000):\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = mainOut("diff", "--fixtures", filepath.Join("..", "..", "examples", "fixtures"), a)
	if code != ExitOK || !strings.Contains(stdout, "all 7 answers equal") {
		t.Errorf("examples/fixtures: exit %d; want 0:\n%s%s", code, stdout, stderr)
	}
	code, stdout, _ = mainOut("diff", "--fixtures", filepath.Join("..", "..", "examples", "fixtures"), diffNode(t, ethrpc.Config{ChainID: 1}))
	if code != ExitSLO || !strings.Contains(stdout, `chain-id.io:2`) || !strings.Contains(stdout, `result: changed: "0x539" (string) ≠ "0x1" (string)`) {
		t.Errorf("examples/fixtures against chain id 1: exit %d; want 1 and the chain id fixture failed:\n%s", code, stdout)
	}
}

// Answers that clients read differently are not equal: a member named twice against the value
// encoding/json would keep, and bytes that are not UTF-8 against the U+FFFD it would put in their
// place. The exit code is 1 and the text says what each difference is.
func TestDiffDuplicateKeyAndInvalidUTF8(t *testing.T) {
	t.Parallel()
	server := func(blockNumber, version string) string {
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var c struct {
				ID     json.RawMessage
				Method string
			}
			json.NewDecoder(r.Body).Decode(&c)
			result := map[string]string{"eth_chainId": `"result":"0x1"`, "eth_blockNumber": blockNumber, "web3_clientVersion": version}[c.Method]
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(c.ID)+`,`+result+`}`)
		}))
		t.Cleanup(s.Close)
		return s.URL + "/"
	}
	a := server(`"result":"0x1","result":"0x2"`, "\"result\":\"\xff\xfe\xc3(\"")
	b := server(`"result":"0x2"`, `"result":"\ufffd\ufffd\ufffd("`)
	dir := t.TempDir()
	calls := writeFile(t, dir, "calls.jsonl", "{\"method\":\"eth_chainId\"}\n{\"method\":\"eth_blockNumber\"}\n{\"method\":\"web3_clientVersion\"}\n")
	code, stdout, stderr := mainOut("diff", "--calls", calls, a, b)
	if code != ExitSLO {
		t.Errorf("exit %d; want 1\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{
		"3 requests to 2 servers, compared with " + a + ": 2 of 3 requests differ, 0 failed",
		`result: duplicate: "0x1", "0x2" (duplicate key) ≠ "0x2" (string)`,
		`result: changed: "\xff\xfe\xc3(" (string, not UTF-8) ≠ "` + "\ufffd\ufffd\ufffd" + `(" (string)`,
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
}
