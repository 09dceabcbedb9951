package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The example log of docs/replay.md replays as printed: every line it holds reaches the server,
// with its recorded path and User-Agent, and the report counts them.
func TestReplayExampleLog(t *testing.T) {
	t.Parallel()
	rec := startRecorder(t)
	log := filepath.Join("..", "..", "examples", "replay", "access.log")
	code, stdout, stderr := mainOut("replay", "--speed", "20", "--format", "json", "--quiet", log, rec.URL)
	if code != ExitOK {
		t.Fatalf("exit %d; stderr %s", code, stderr)
	}
	// the example holds 20 lines over 4 s (written by hand, see examples/replay/access.log)
	want := []string{"GET /", "GET /v0/items?id=1", "GET /v0/items?id=2", "GET /v0/items/17", "GET /health", "GET /v0/items?id=3", "GET /v0/items/42", "GET /"}
	var wantAll []string
	for k := range 20 {
		wantAll = append(wantAll, want[k%len(want)])
	}
	got := rec.requests()
	slices.Sort(got)
	slices.Sort(wantAll)
	if !slices.Equal(got, wantAll) {
		t.Errorf("requests %q; want %q", got, wantAll)
	}
	rec.mu.Lock()
	for _, h := range rec.hdrs {
		if ua := h.Get("User-Agent"); ua != "curl/8.5.0" {
			t.Errorf("User-Agent %q; want the recorded curl/8.5.0", ua)
		}
	}
	rec.mu.Unlock()
	if !strings.Contains(stderr, "rpcbench replay: 20 records, recorded over 4s from 2024-03-01T10:00:00Z, sent at 20× the recorded pace, the last 200ms after the first") {
		t.Errorf("stderr %q; want the replay described (20 records over 4 s, at 20×: the last 200 ms in)", stderr)
	}
	var report struct {
		Requests struct{ Intended, Sent, OK uint64 } `json:"requests"`
	}
	if err := json.Unmarshal([]byte(stdout), &report); err != nil {
		t.Fatalf("report: %v\n%s", err, stdout)
	}
	if r := report.Requests; r.Intended != 20 || r.Sent != 20 || r.OK != 20 {
		t.Errorf("report: intended %d, sent %d, ok %d; want 20 each", r.Intended, r.Sent, r.OK)
	}
}

// Bad input is a usage error (exit 2) that names the flag or the file and line, and what was
// expected; nothing is sent.
func TestReplayUsageErrors(t *testing.T) {
	t.Parallel()
	rec := startRecorder(t)
	dir := t.TempDir()
	good := writeFile(t, dir, "good.log", `127.0.0.1 - - [01/Mar/2024:10:00:00 +0000] "GET / HTTP/1.1" 200 1 "-" "-"`+"\n")
	garbage := writeFile(t, dir, "garbage.log", "not a log\nnor this\n")
	var back strings.Builder
	for k := range 5 {
		fmt.Fprintf(&back, "127.0.0.1 - - [01/Mar/2024:10:00:0%d +0000] \"GET /%d HTTP/1.1\" 200 1\n", 5-k, k)
	}
	backwards := writeFile(t, dir, "backwards.log", back.String())
	cases := []struct {
		args []string
		want string
	}{
		{nil, "want FILE… URL, got 0 arguments"},
		{[]string{good}, "want FILE… URL, got 1 arguments"},
		{[]string{good, "127.0.0.1:9"}, `the last argument, "127.0.0.1:9", is not a URL`},
		{[]string{"--speed", "0", good, rec.URL}, "--speed 0: want a number above 0"},
		{[]string{"--sample", "2", good, rec.URL}, "--sample 2: want a fraction from 0 to 1"},
		{[]string{"--include", "(", good, rec.URL}, `--include "(": error parsing regexp`},
		{[]string{"--from", "yesterday", good, rec.URL}, `--from "yesterday": want a time such as 2024-03-01T10:00:00Z or an offset`},
		{[]string{"--input-format", "pcap", good, rec.URL}, `--input-format: "pcap": want one of combined, common, har`},
		{[]string{"--log-format", "$remote_addr $status", good, rec.URL}, "no $request, $request_uri or $uri"},
		{[]string{filepath.Join(dir, "missing.log"), rec.URL}, "missing.log: no such file"},
		{[]string{"-", rec.URL}, "FILE -: standard input cannot be replayed"},
		{[]string{garbage, rec.URL}, "garbage.log: no record to send (2 lines skipped as unreadable)"},
		{[]string{"--reorder", "2", backwards, rec.URL}, "backwards.log:3: recorded at 2024-03-01T10:00:03Z, earlier than " + backwards + ":2 (2024-03-01T10:00:04Z)"},
		{[]string{"--out", good, good, rec.URL}, "--out"},
	}
	for _, c := range cases {
		code, _, stderr := mainOut(append([]string{"replay"}, c.args...)...)
		if code != ExitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("replay %q: exit %d, stderr %q; want exit 2 saying %q", c.args, code, stderr, c.want)
		}
		if strings.Contains(stderr, "panic") {
			t.Errorf("replay %q panicked: %s", c.args, stderr)
		}
	}
	if got := rec.requests(); len(got) > 0 {
		t.Errorf("bad input sent %q; want nothing sent", got)
	}
}

// --expect-recorded-status: the example of docs/replay.md fails the one answer whose status differs
// from the recorded one (the recorder answers 200 where 404 was recorded).
func TestReplayExpectRecordedStatus(t *testing.T) {
	t.Parallel()
	rec := startRecorder(t)
	log := filepath.Join("..", "..", "examples", "replay", "statuses.log")
	code, stdout, stderr := mainOut("replay", "--expect-recorded-status", "--speed", "20", "--format", "json", "--quiet", log, rec.URL)
	if code != ExitOK {
		t.Fatalf("exit %d; stderr %s", code, stderr)
	}
	var report struct {
		Requests struct{ Sent, OK, Errors uint64 } `json:"requests"`
	}
	if err := json.Unmarshal([]byte(stdout), &report); err != nil {
		t.Fatalf("report: %v", err)
	}
	if r := report.Requests; r.Sent != 4 || r.OK != 3 || r.Errors != 1 {
		t.Errorf("sent %d, ok %d, errors %d; want 4, 3, 1 (the 404 recorded for /missing)", r.Sent, r.OK, r.Errors)
	}
	if !strings.Contains(stdout, "status differs from the recording") {
		t.Errorf("the report does not name the failure: %s", stdout)
	}
}

// A JSON-RPC request log replays over HTTP and over WebSocket with its recorded ids, batches kept
// as batches, and the answers judged as JSON-RPC answers: an error member is a failure.
func TestReplayJSONRPCLog(t *testing.T) {
	t.Parallel()
	node := startRPCNode(t)
	log := writeFile(t, t.TempDir(), "rpc.jsonl", `{"time":"2024-03-01T10:00:00.00Z","request":{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"}}
{"time":"2024-03-01T10:00:00.05Z","request":{"jsonrpc":"2.0","id":2,"method":"eth_fail"}}
{"time":"2024-03-01T10:00:00.10Z","request":[{"jsonrpc":"2.0","id":3,"method":"eth_blockNumber"},{"jsonrpc":"2.0","id":4,"method":"eth_blockNumber"}]}
{"time":"2024-03-01T10:00:00.15Z","request":{"jsonrpc":"2.0","id":5,"method":"eth_blockNumber"}}
`)
	for _, url := range []string{node.url, node.wsURL()} {
		node.mu.Lock()
		node.ids = nil
		node.mu.Unlock()
		code, stdout, stderr := mainOut("replay", "--format", "json", "--quiet", log, url)
		if code != ExitOK {
			t.Fatalf("%s: exit %d; stderr %s", url, code, stderr)
		}
		var report struct {
			Requests struct{ Sent, OK, Errors uint64 } `json:"requests"`
		}
		if err := json.Unmarshal([]byte(stdout), &report); err != nil {
			t.Fatalf("%s: report: %v", url, err)
		}
		if r := report.Requests; r.Sent != 4 || r.OK != 3 || r.Errors != 1 {
			t.Errorf("%s: sent %d, ok %d, errors %d; want 4 requests (one a batch), 3 ok, eth_fail's error", url, r.Sent, r.OK, r.Errors)
		}
		node.mu.Lock()
		ids := slices.Clone(node.ids)
		node.mu.Unlock()
		slices.Sort(ids)
		if !slices.Equal(ids, []int64{1, 2, 3, 4, 5}) {
			t.Errorf("%s: ids sent %v; want the recorded 1 to 5", url, ids)
		}
	}
}
