package cli

import (
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rpcbench/rpcbench/serve/ethrpc"
	"github.com/rpcbench/rpcbench/serve/lab"
)

// The secrets of the requests the tests send: an Authorization header, a key-like header, a URL's
// password and an api_key query value.
var testSecrets = []string{"s3cr3tBearer", "t0kenValue", "pw0rdSecret", "k3yValue"}

// secretHeaders are the -H flags that carry two of testSecrets.
var secretHeaders = []string{"-H", "Authorization: Bearer s3cr3tBearer", "-H", "X-Api-Token: t0kenValue"}

// withSecrets returns base (http://HOST:PORT/…) with the password and the api_key of testSecrets.
func withSecrets(base, path string) string {
	return strings.Replace(strings.TrimSuffix(base, "/"), "http://", "http://alice:pw0rdSecret@", 1) + path + "?api_key=k3yValue&page=1"
}

// checkSecrets fails t for each of testSecrets text holds (want false) or lacks (want true).
func checkSecrets(t *testing.T, what, text string, want bool) {
	t.Helper()
	for _, sec := range testSecrets {
		if strings.Contains(text, sec) != want {
			t.Errorf("%s: holds %q: %v; want %v", what, sec, !want, want)
		}
	}
}

// Secrets never reach what rpcbench writes: an Authorization header, a key-like header, a URL's
// password and an api_key query value are REDACTED by every command that writes requests, in
// every format it prints, every file it writes and its messages, unless --show-secrets. Each case
// runs one command in one format against a loopback server; its stdout, its stderr and every
// file it wrote are read.
func TestSecretsRedactedEverywhere(t *testing.T) {
	t.Parallel()
	srv := startLab(t, lab.Config{})
	node := diffNode(t, ethrpc.Config{Seed: 3, Blocks: 4, TxPerBlock: 1})
	url, nodeURL := withSecrets(srv.URL(), "/a"), withSecrets(node, "/")
	src := t.TempDir()
	// result files that hold the secrets, for report and compare
	shown := []string{filepath.Join(src, "a.rb"), filepath.Join(src, "b.rb")}
	for _, f := range shown {
		code, _, stderr := mainOut(append(append([]string{"run", "--show-secrets", "--requests", "3", "--connections", "1", "--quiet", "--out", f}, secretHeaders...), url)...)
		if code != ExitOK {
			t.Fatalf("run --show-secrets: exit %d\n%s", code, stderr)
		}
		b, _ := os.ReadFile(f)
		for _, sec := range []string{"s3cr3tBearer", "t0kenValue", "k3yValue"} { // the password goes as Basic authorization
			if !strings.Contains(string(b), sec) {
				t.Fatalf("the result file of run --show-secrets lacks %q", sec)
			}
		}
	}
	calls := writeFile(t, src, "calls.jsonl", "{\"method\":\"eth_blockNumber\"}\n{\"method\":\"eth_chainId\"}\n")
	benchPlan := writeFile(t, src, "plan.yaml", `targets:
  lab:
    url: `+url+`
scenarios:
  load:
    requests: 3
    connections: 1
    header: {Authorization: Bearer s3cr3tBearer, X-Api-Token: t0kenValue}
  search:
    header: {Authorization: Bearer s3cr3tBearer, X-Api-Token: t0kenValue}
    capacity: {slo: "errors<1%", start: 50, max: 100, step: 200ms, warmup: 0s, max_steps: 4}
`)
	type tcase struct {
		name string
		args func(dir string) []string
		// redacted: the output names the requests, so REDACTED stands in it somewhere
		redacted bool
	}
	var cases []tcase
	add := func(name string, redacted bool, args func(dir, format string) []string, formats ...string) {
		for _, f := range formats {
			cases = append(cases, tcase{name + " --format " + f, func(dir string) []string { return args(dir, f) }, redacted})
		}
	}
	add("run", true, func(dir, f string) []string {
		return append(append([]string{"run", "--requests", "3", "--connections", "1", "--quiet", "--format", f, "--out", filepath.Join(dir, "run.rb"),
			"--html", filepath.Join(dir, "run.html"), "--live", filepath.Join(dir, "live.jsonl"), "--log", filepath.Join(dir, "requests.csv"),
			"--report-file", filepath.Join(dir, "report."+f)}, secretHeaders...), url)
	}, "text", "json", "csv", "markdown", "html")
	capArgs := []string{"capacity", "--slo", "errors<1%", "--start", "50", "--max", "100", "--step", "200ms", "--step-warmup", "0", "--max-steps", "2", "--confirm", "1", "--quiet"}
	add("capacity", true, func(dir, f string) []string {
		ext := map[string]string{"text": "txt", "markdown": "md"}[f]
		if ext == "" {
			ext = f
		}
		return append(append(append(capArgs, "--format", f, "--report-file", filepath.Join(dir, "capacity."+ext)), secretHeaders...), url)
	}, "text", "json", "markdown", "html")
	add("bench", true, func(dir, f string) []string {
		return []string{"bench", "--quiet", "--format", f, "--out-dir", filepath.Join(dir, "run"), benchPlan}
	}, "text", "json", "markdown", "html")
	add("diff", true, func(dir, f string) []string {
		return append(append([]string{"diff", "--calls", calls, "--format", f, "--record", filepath.Join(dir, "record.jsonl"),
			"--errors", filepath.Join(dir, "errors.jsonl"), "--log", filepath.Join(dir, "log.csv")}, secretHeaders...), nodeURL, nodeURL)
	}, "text", "json", "markdown", "html")
	add("report", true, func(dir, f string) []string {
		return []string{"report", "--format", f, "-o", filepath.Join(dir, "report"), shown[0]}
	}, "text", "json", "markdown", "html")
	add("report", false, func(dir, f string) []string { return []string{"report", "--format", f, shown[0]} }, "csv", "hgrm", "hlog")
	add("report of two", true, func(dir, f string) []string { return []string{"report", "--format", f, shown[0], shown[1]} }, "text", "json", "markdown", "html")
	add("compare", false, func(dir, f string) []string { return []string{"compare", "--format", f, shown[0], shown[1]} }, "text", "json", "markdown")
	cases = append(cases, tcase{"gen ethereum (target files)", func(dir string) []string {
		return append([]string{"gen", "ethereum", "--url", nodeURL, "--from", "1", "--to", "2", "--methods", "eth_getBlockByNumber", "--out", filepath.Join(dir, "corpus")}, secretHeaders...)
	}, true})
	cases = append(cases, tcase{"gen ethereum (a node that does not answer)", func(dir string) []string {
		return []string{"gen", "ethereum", "--url", withSecrets("http://127.0.0.1:1/", "/"), "--from", "1", "--to", "2", "--timeout", "2s", "--out", filepath.Join(dir, "corpus")}
	}, false})
	// a live output whose receiver is not there: its closing line names the receiver, redacted
	cases = append(cases, tcase{"run --out prometheus-rw (a receiver that is not there)", func(dir string) []string {
		return append(append([]string{"run", "--requests", "3", "--connections", "1", "--quiet", "--out", "prometheus-rw=" + withSecrets("http://127.0.0.1:1/", "/api/v1/write")}, secretHeaders...), url)
	}, false})
	// a target whose command holds the secrets, swept: started, started again (its progress line,
	// its log), and --dry-run's lines for both
	relayPlan := writeFile(t, src, "relay.yaml", fmt.Sprintf(`targets:
  relay:
    url: http://%[1]s/
    command: "exec %[2]s -test.run=^TestHelperProcess$ -- serve relay --addr %[1]s --upstream '%[3]s' --max-idle 4"
    env: {RPCBENCH_HELPER_PROCESS: "1"}
scenarios:
  pool:
    requests: 2
    connections: 1
    jsonrpc: {calls: [{method: eth_blockNumber}]}
    sweep: {relay --max-idle: [1, 2]}
`, freeAddr(t), os.Args[0], nodeURL))
	cases = append(cases, tcase{"bench of a swept target's command", func(dir string) []string {
		return []string{"bench", "--format", "json", "--out-dir", filepath.Join(dir, "run"), relayPlan}
	}, true})
	cases = append(cases, tcase{"bench --dry-run of a swept target's command", func(dir string) []string {
		return []string{"bench", "--dry-run", relayPlan}
	}, true})
	// -H= and --header= flags: the result file's command holds them REDACTED
	cases = append(cases, tcase{"run --header=VALUE -H=VALUE", func(dir string) []string {
		return []string{"run", "--requests", "3", "--connections", "1", "--quiet", "--format", "json", "--out", filepath.Join(dir, "hx.rb"),
			"--header=Authorization: Bearer s3cr3tBearer", "-H=X-Api-Token: t0kenValue", url}
	}, true})
	// a command scenario whose build and command hold the secrets in quoted shell words: its run's
	// lines, and --dry-run's, with a started target's ready URL too
	cmdScenario := `scenarios:
  e2e:
    build: "true -H 'Authorization: Bearer s3cr3tBearer'"
    command: "true --header=\"X-Api-Token: t0kenValue\" '` + withSecrets("http://127.0.0.1:1/", "/") + `'"
`
	cmdPlan := writeFile(t, src, "cmd.yaml", "targets:\n  lab:\n    url: "+url+"\n"+cmdScenario)
	readyPlan := writeFile(t, src, "ready.yaml", "targets:\n  lab: {url: \"http://127.0.0.1:1/\", command: \"exec sleep 9\", ready: \""+withSecrets("http://127.0.0.1:1/", "/ready")+"\"}\n"+cmdScenario)
	cases = append(cases, tcase{"bench of a command scenario", func(dir string) []string {
		return []string{"bench", "--format", "json", "--out-dir", filepath.Join(dir, "run"), cmdPlan}
	}, true})
	cases = append(cases, tcase{"bench --dry-run of a command scenario", func(dir string) []string {
		return []string{"bench", "--dry-run", readyPlan}
	}, true})
	// a header value h2 cannot send: its error names the header, not the value (the secret)
	cases = append(cases, tcase{"run --h2c, a header value it cannot send", func(dir string) []string {
		return []string{"run", "--h2c", "--requests", "2", "--connections", "1", "--quiet", "--format", "json", "--out", filepath.Join(dir, "bad.rb"),
			"--log", filepath.Join(dir, "requests.csv"), "-H", "Authorization: Bearer s3cr3tBearer\x01", url}
	}, false})
	// subscriptions alone: the report names the node's URL
	cases = append(cases, tcase{"run --subscribe alone", func(dir string) []string {
		return []string{"run", "--subscribe", `eth_subscribe ["newHeads"]`, "--duration", "300ms", "--format", "json", "--report-file", filepath.Join(dir, "subs.json"),
			"--out", filepath.Join(dir, "subs.rb"), strings.Replace(nodeURL, "http://", "ws://", 1)}
	}, false})
	// a node that does not answer: the transport's error quotes the URL, secrets and all
	down := withSecrets("http://127.0.0.1:1/", "/")
	cases = append(cases, tcase{"diff (a ws node that does not answer)", func(dir string) []string {
		return []string{"diff", "--calls", calls, "--requests", "2", "--errors", filepath.Join(dir, "errors.jsonl"), "--record", filepath.Join(dir, "record.jsonl"),
			"--log", filepath.Join(dir, "log.csv"), "--out", filepath.Join(dir, "diff.rb"), "--format", "json", nodeURL, strings.Replace(down, "http://", "ws://", 1)}
	}, true})
	cases = append(cases, tcase{"run --subscribe alone (a node that does not answer)", func(dir string) []string {
		return []string{"run", "--subscribe", `eth_subscribe ["newHeads"]`, "--subscriptions", "2", "--duration", "300ms", "--format", "json",
			"--out", filepath.Join(dir, "subs.rb"), strings.Replace(down, "http://", "ws://", 1)}
	}, false})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			args := c.args(dir)
			code, stdout, stderr := mainOut(args...)
			if code != ExitOK && !strings.Contains(c.name, "does not answer") && !strings.Contains(c.name, "cannot send") {
				t.Fatalf("%q: exit %d\n%s", args, code, stderr)
			}
			all := stdout + stderr
			checkSecrets(t, "stdout", stdout, false)
			checkSecrets(t, "stderr", stderr, false)
			err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				b, err := os.ReadFile(path)
				checkSecrets(t, path[len(dir):], string(b), false)
				all += string(b)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			if c.redacted && !strings.Contains(all, "REDACTED") {
				t.Errorf("%q: no output says REDACTED; want the requests named with their secrets REDACTED:\n%.600s", args, stdout)
			}
		})
	}
}

// The secrets asked for: run, report, capacity, diff and gen --show-secrets write them.
func TestSecretsShownWhenAsked(t *testing.T) {
	t.Parallel()
	srv := startLab(t, lab.Config{})
	node := diffNode(t, ethrpc.Config{Seed: 3, Blocks: 4, TxPerBlock: 1})
	url := withSecrets(srv.URL(), "/a")
	dir := t.TempDir()
	rb := filepath.Join(dir, "run.rb")
	// the URL's password goes as Basic authorization, base64-encoded: not in a report as it is
	code, stdout, stderr := mainOut(append(append([]string{"run", "--show-secrets", "--requests", "1", "--quiet", "--format", "json", "--out", rb}, secretHeaders...), url)...)
	if code != ExitOK {
		t.Fatalf("run --show-secrets: exit %d\n%s", code, stderr)
	}
	for what, out := range map[string]string{"run --show-secrets": stdout} {
		for _, sec := range []string{"s3cr3tBearer", "t0kenValue", "k3yValue"} {
			if !strings.Contains(out, sec) {
				t.Errorf("%s: lacks %q", what, sec)
			}
		}
	}
	code, stdout, _ = mainOut("report", "--show-secrets", "--format", "json", rb)
	if code != ExitOK || !strings.Contains(stdout, "s3cr3tBearer") || !strings.Contains(stdout, "k3yValue") {
		t.Errorf("report --show-secrets: exit %d; want the file's secrets:\n%.400s", code, stdout)
	}
	code, stdout, stderr = mainOut(append(append([]string{"capacity", "--show-secrets", "--slo", "errors<1%", "--start", "50", "--max", "50", "--step", "200ms",
		"--step-warmup", "0", "--max-steps", "1", "--confirm", "1", "--quiet", "--format", "json"}, secretHeaders...), url)...)
	if code != ExitOK || !strings.Contains(stdout, "s3cr3tBearer") || !strings.Contains(stdout, "k3yValue") {
		t.Errorf("capacity --show-secrets: exit %d; want the secrets:\n%.400s%s", code, stdout, stderr)
	}
	search := writeFile(t, dir, "search.yaml", `targets:
  lab:
    url: `+url+`
scenarios:
  search:
    header: {Authorization: Bearer s3cr3tBearer}
    capacity: {slo: "errors<1%", start: 50, max: 50, step: 200ms, warmup: 0s, max_steps: 3}
`)
	code, stdout, stderr = mainOut("bench", "--show-secrets", "--quiet", "--format", "json", "--out-dir", filepath.Join(dir, "bench"), search)
	if code != ExitOK || !strings.Contains(stdout, "s3cr3tBearer") || !strings.Contains(stdout, "k3yValue") {
		t.Errorf("bench --show-secrets of a capacity search: exit %d; want the secrets in its steps:\n%.400s%s", code, stdout, stderr)
	}
	nodeURL := withSecrets(node, "/")
	calls := writeFile(t, dir, "calls.jsonl", "{\"method\":\"eth_blockNumber\"}\n")
	code, stdout, stderr = mainOut("diff", "--show-secrets", "--calls", calls, nodeURL, nodeURL)
	if code != ExitOK || !strings.Contains(stdout, "pw0rdSecret") || !strings.Contains(stdout, "k3yValue") {
		t.Errorf("diff --show-secrets: exit %d; want the URLs as given:\n%s%s", code, stdout, stderr)
	}
	corpus := filepath.Join(dir, "corpus")
	code, _, stderr = mainOut("gen", "ethereum", "--show-secrets", "--url", nodeURL, "--from", "1", "--to", "1", "--methods", "eth_getBlockByNumber", "--out", corpus)
	if b, _ := os.ReadFile(filepath.Join(corpus, "eth_getBlockByNumber.jsonl")); code != ExitOK || !strings.Contains(string(b), "k3yValue") {
		t.Errorf("gen --show-secrets: exit %d; want the api_key in the target file:\n%s%s", code, b, stderr)
	}
}

// A bad URL's error names it with its secrets REDACTED.
func TestSecretsRedactedInErrors(t *testing.T) {
	t.Parallel()
	bad := withSecrets("http://127.0.0.1:99999/", "/a")
	for _, args := range [][]string{
		{"run", "--requests", "1", bad},
		{"capacity", "--slo", "p99<1s", bad},
		{"diff", "--jsonrpc", "eth_chainId", bad, "ftp" + strings.TrimPrefix(bad, "http")},
		{"gen", "ethereum", "--url", "ftp" + strings.TrimPrefix(bad, "http"), "--out", t.TempDir()},
	} {
		code, _, stderr := mainOut(args...)
		if code != ExitUsage {
			t.Errorf("%s: exit %d; want %d\n%s", args[0], code, ExitUsage, stderr)
		}
		checkSecrets(t, args[0]+"'s error", stderr, false)
	}
}

// freeAddr returns a loopback host:port no one listens on now, for a target a bench starts.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}
