package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/coder/websocket"

	"github.com/rpcbench/rpcbench/serve/ethrpc"
	"github.com/rpcbench/rpcbench/summary"
)

// rpcNode is a JSON-RPC 2.0 server on 127.0.0.1 over HTTP (POST /) and WebSocket (upgrade on /):
// eth_blockNumber answers "0x10", eth_fail the error -32601, eth_wrongid an answer with another
// id; batches are answered in reverse order. It keeps every id it was sent.
type rpcNode struct {
	url string // http://…/
	mu  sync.Mutex
	ids []int64
}

func startRPCNode(t *testing.T) *rpcNode {
	t.Helper()
	n := &rpcNode{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: n}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	n.url = "http://" + ln.Addr().String() + "/"
	return n
}

func (n *rpcNode) wsURL() string { return "ws" + strings.TrimPrefix(n.url, "http") }

func (n *rpcNode) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Upgrade") != "" {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		for {
			_, msg, err := c.Read(r.Context())
			if err != nil {
				return
			}
			if c.Write(r.Context(), websocket.MessageText, n.answer(msg)) != nil {
				return
			}
		}
	}
	body, _ := io.ReadAll(r.Body)
	w.Header().Set("Content-Type", "application/json")
	w.Write(n.answer(body))
}

type testCall struct {
	ID     int64  `json:"id"`
	Method string `json:"method"`
}

func (n *rpcNode) one(q testCall) map[string]any {
	n.mu.Lock()
	n.ids = append(n.ids, q.ID)
	n.mu.Unlock()
	a := map[string]any{"jsonrpc": "2.0", "id": q.ID}
	switch q.Method {
	case "eth_fail":
		a["error"] = map[string]any{"code": -32601, "message": "Method not found"}
	case "eth_wrongid":
		a["id"], a["result"] = q.ID+1_000_000, "0x1"
	default:
		a["result"] = "0x10"
	}
	return a
}

func (n *rpcNode) answer(msg []byte) []byte {
	var b []byte
	if bytes.HasPrefix(bytes.TrimSpace(msg), []byte("[")) {
		var qs []testCall
		_ = json.Unmarshal(msg, &qs)
		as := make([]map[string]any, len(qs))
		for i, q := range qs {
			as[len(qs)-1-i] = n.one(q)
		}
		b, _ = json.Marshal(as)
	} else {
		var q testCall
		_ = json.Unmarshal(msg, &q)
		b, _ = json.Marshal(n.one(q))
	}
	return b
}

// uniqueIDs returns how many ids the node saw and whether any came twice.
func (n *rpcNode) uniqueIDs() (count int, repeated bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	seen := map[int64]bool{}
	for _, id := range n.ids {
		repeated = repeated || seen[id]
		seen[id] = true
	}
	return len(n.ids), repeated
}

// rpcRun runs Main with args plus --format json and returns the exit code, report and stderr.
func rpcRun(t *testing.T, args ...string) (int, *summary.Summary, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(append(args, "--format", "json", "--quiet"), strings.NewReader(""), &out, &errb)
	s := &summary.Summary{}
	if code == ExitOK || code == ExitSLO { // a run in which nothing succeeded exits 1 with its report
		if err := json.Unmarshal(out.Bytes(), s); err != nil {
			t.Fatalf("report is not JSON: %v\n%s", err, out.String())
		}
	}
	return code, s, errb.String()
}

func failures(st summary.Stats) map[string]uint64 {
	m := map[string]uint64{}
	for _, e := range st.ErrorMessages {
		m[e.Class+": "+e.Message] += e.Count
	}
	return m
}

func TestRunJSONRPCCallsByMethod(t *testing.T) {
	t.Parallel()
	for _, scheme := range []string{"http", "ws"} {
		t.Run(scheme, func(t *testing.T) {
			t.Parallel()
			node := startRPCNode(t)
			url, third := node.url, "eth_wrongid"
			if scheme == "ws" {
				// over ws an answer with another id reaches nobody (the transport's tests cover
				// that): the third call is a plain one
				url, third = node.wsURL(), "eth_chainId"
			}
			calls := writeFile(t, t.TempDir(), "calls.jsonl", `{"method":"eth_blockNumber"}
{"method":"eth_fail","params":[],"name":"bad"}
{"method":"`+third+`","params":{"a":1}}
`)
			code, s, stderr := rpcRun(t, "run", "--calls", calls, "--requests", "30", "--connections", "3", url)
			if code != ExitOK {
				t.Fatalf("exit %d; stderr %s", code, stderr)
			}
			if len(s.Endpoints) != 3 || s.Endpoints[0].Name != "eth_blockNumber" || s.Endpoints[1].Name != "bad" || s.Endpoints[2].Name != third {
				t.Fatalf("endpoints %+v; want eth_blockNumber, bad, %s", s.Endpoints, third)
			}
			if got := s.Requests.Sent; got != 30 {
				t.Errorf("sent %d; want 30", got)
			}
			ok, bad := s.Endpoints[0], s.Endpoints[1]
			if ok.Requests.OK != ok.Requests.Sent || ok.Requests.Sent < 9 {
				t.Errorf("eth_blockNumber: sent %d, ok %d; want about 10, all ok", ok.Requests.Sent, ok.Requests.OK)
			}
			want := map[string]uint64{"status: jsonrpc -32601 Method not found": bad.Requests.Sent}
			if got := failures(bad.Stats); len(got) != 1 || got["status: jsonrpc -32601 Method not found"] != bad.Requests.Sent || bad.Requests.Sent < 9 {
				t.Errorf("bad: failures %v; want %v", got, want)
			}
			wrong := s.Endpoints[2]
			if scheme == "http" { // over HTTP the answer with another id arrives and is a protocol error
				if got := failures(wrong.Stats)["protocol: jsonrpc: answer id does not match the request"]; got != wrong.Requests.Sent || got < 9 {
					t.Errorf("wrong id: failures %v; want all %d as protocol errors", failures(wrong.Stats), wrong.Requests.Sent)
				}
			} else if wrong.Requests.OK != wrong.Requests.Sent || wrong.Requests.Sent < 9 {
				t.Errorf("%s over ws: sent %d, ok %d; want about 10, all ok", third, wrong.Requests.Sent, wrong.Requests.OK)
			}
			if n, repeated := node.uniqueIDs(); n != 30 || repeated {
				t.Errorf("server saw %d ids, repeated %v; want 30 unique", n, repeated)
			}
		})
	}
}

func TestRunJSONRPCBatchAndWebSocket(t *testing.T) {
	t.Parallel()
	node := startRPCNode(t)
	code, s, stderr := rpcRun(t, "run", "--jsonrpc", "eth_blockNumber", "--params", "[]", "--batch", "5", "--requests", "40", "--connections", "4", node.url)
	if code != ExitOK {
		t.Fatalf("exit %d; stderr %s", code, stderr)
	}
	if s.Requests.OK != 40 || s.Status["200"] != 40 {
		t.Errorf("batches: ok %d, status %v; want 40 ok with 200", s.Requests.OK, s.Status)
	}
	if n, repeated := node.uniqueIDs(); n != 200 || repeated {
		t.Errorf("server saw %d ids, repeated %v; want 200 unique", n, repeated)
	}
	// closed model: the connections asked for
	code, s, stderr = rpcRun(t, "run", "--jsonrpc", "eth_blockNumber", "--requests", "200", "--connections", "2",
		"--check-json", "result=0x10", node.wsURL())
	if code != ExitOK {
		t.Fatalf("ws: exit %d; stderr %s", code, stderr)
	}
	if s.Requests.OK != 200 || s.Status["101"] != 200 || s.Connections.Opened != 2 {
		t.Errorf("ws: ok %d, status %v, connections %d; want 200 ok with 101 over 2 connections", s.Requests.OK, s.Status, s.Connections.Opened)
	}
	// open model: --connections caps the calls in flight; a few connections carry them
	code, s, stderr = rpcRun(t, "run", "--jsonrpc", "eth_blockNumber", "--rate", "400", "--requests", "200", "--connections", "50", node.wsURL())
	if code != ExitOK {
		t.Fatalf("ws, open model: exit %d; stderr %s", code, stderr)
	}
	if s.Requests.OK != 200 || s.Connections.Opened == 0 || s.Connections.Opened >= 50 {
		t.Errorf("ws, open model: ok %d, connections %d; want 200 ok over fewer connections than the 50 allowed", s.Requests.OK, s.Connections.Opened)
	}
}

func TestRunChecksCountedByName(t *testing.T) {
	t.Parallel()
	node := startRPCNode(t)
	code, s, stderr := rpcRun(t, "run", "--jsonrpc", "eth_blockNumber", "--requests", "30", "--connections", "2",
		"--check-json-exists", "result", "--check", "is ten: json result == 0x10", "--check-body-contains", "0x99", node.url)
	if code != ExitSLO { // every request fails a check: no request succeeded
		t.Fatalf("exit %d; want %d; stderr %s", code, ExitSLO, stderr)
	}
	if got := failures(s.Stats); len(got) != 1 || got[`check: body contains "0x99"`] != 30 {
		t.Errorf("failures %v; want 30 of the check body contains \"0x99\"", got)
	}
	// checks without JSON-RPC, and expected statuses
	code, s, stderr = rpcRun(t, "run", "--requests", "10", "--connections", "1", "--expect-status", "201",
		"-X", "POST", "--body", `{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"}`, node.url)
	if code != ExitSLO {
		t.Fatalf("exit %d; want %d; stderr %s", code, ExitSLO, stderr)
	}
	if s.Errors["status"] != 10 {
		t.Errorf("--expect-status 201 with 200 answers: errors %v; want 10 status", s.Errors)
	}
}

func TestRunJSONRPCUsageErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--params", "[]"}, "--params and --batch go with --jsonrpc or --calls"},
		{[]string{"--jsonrpc", "m", "--body", "x"}, "drop --body"},
		{[]string{"--jsonrpc", "m", "--params", "5"}, "want an array or an object"},
		{[]string{"--jsonrpc", "m", "--calls", "x"}, "give one of them"},
		{[]string{"--calls", "/nonexistent/calls.jsonl"}, "--calls:"},
		{[]string{"--check-json", "a..b=1"}, "--check-json: JSON path"},
		{[]string{"--check-json", "noequals"}, "want PATH=VALUE"},
		{[]string{"--expect-status", "2zz"}, "--expect-status"},
		{[]string{"--check", "what"}, "--check:"},
	} {
		var out, errb bytes.Buffer
		code := Main(append(append([]string{"run"}, tc.args...), "http://127.0.0.1:1/"), strings.NewReader(""), &out, &errb)
		if code != ExitUsage || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("run %v: exit %d, stderr %q; want %d and %q", tc.args, code, errb.String(), ExitUsage, tc.want)
		}
	}
}

// Random addresses from {{randAddress}} are valid params for the built-in node: every call succeeds.
func TestRunJSONRPCRandomAddress(t *testing.T) {
	t.Parallel()
	node, err := ethrpc.New(context.Background(), ethrpc.Config{Addr: "127.0.0.1:0", Blocks: 10})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { node.Close() })
	code, s, stderr := rpcRun(t, "run", "--jsonrpc", "eth_getBalance", "--params", `["{{randAddress}}","latest"]`,
		"--requests", "50", "--connections", "2", node.URL())
	if code != ExitOK {
		t.Fatalf("exit %d; stderr %s", code, stderr)
	}
	if s.Requests.OK != 50 || s.Requests.Errors != 0 {
		t.Errorf("got ok %d, errors %d (%v); want 50 ok, 0 errors", s.Requests.OK, s.Requests.Errors, failures(s.Stats))
	}
}

// With --batch, an answer is a batch: the report gives calls per second too, batch × answers/s.
func TestRunJSONRPCBatchCallsPerSecond(t *testing.T) {
	t.Parallel()
	node := startRPCNode(t)
	code, stdout, stderr := mainOut("run", "--jsonrpc", "eth_blockNumber", "--batch", "5", "--rate", "100", "--requests", "20", "--quiet", node.url)
	if code != ExitOK {
		t.Fatalf("exit %d; stderr %s", code, stderr)
	}
	m := regexp.MustCompile(`throughput ([0-9.]+) answers/s[a-z ]* \(([0-9.]+) calls/s in batches of 5\)`).FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("got no \"(N calls/s in batches of 5)\" in:\n%s", stdout)
	}
	answers, _ := strconv.ParseFloat(m[1], 64)
	calls, _ := strconv.ParseFloat(m[2], 64)
	if answers <= 0 || math.Abs(calls-5*answers) > 0.5 {
		t.Errorf("got %v answers/s and %v calls/s; want calls = 5 × answers", answers, calls)
	}
}

// Over WebSocket the text report shows each call's JSON-RPC outcome, not the upgrade's 101.
func TestRunWebSocketOutcomes(t *testing.T) {
	t.Parallel()
	node := startRPCNode(t)
	code, stdout, stderr := mainOut("run", "--jsonrpc", "eth_fail", "--requests", "10", "--connections", "1", "--quiet", node.wsURL())
	if code != ExitSLO { // every call fails: no request succeeded
		t.Fatalf("exit %d; want %d; stderr %s", code, ExitSLO, stderr)
	}
	for _, want := range []string{"JSON-RPC outcomes", "  result         0 (0.0%)", "  error -32601   10 (100.0%)"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("report lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "Status codes") {
		t.Errorf("report shows status codes (every one 101):\n%s", stdout)
	}
}

// --weights names the calls of a calls file (by name, or method), and a line's "weight" works alike.
func TestRunJSONRPCCallsWeighted(t *testing.T) {
	t.Parallel()
	node := startRPCNode(t)
	dir := t.TempDir()
	plain := writeFile(t, dir, "calls.jsonl", `{"method":"eth_blockNumber"}
{"method":"eth_chainId","name":"chain"}
`)
	weighted := writeFile(t, dir, "weighted.jsonl", `{"method":"eth_blockNumber","weight":9}
{"method":"eth_chainId","name":"chain","weight":1}
`)
	for _, args := range [][]string{
		{"--calls", plain, "--weights", "eth_blockNumber=9,chain=1"},
		{"--calls", weighted},
	} {
		code, s, stderr := rpcRun(t, append([]string{"run", "--requests", "2000", "--connections", "4"}, append(args, node.url)...)...)
		if code != ExitOK {
			t.Fatalf("%v: exit %d; stderr %s", args, code, stderr)
		}
		// 9 in 10 of 2,000: 1,800 ± 4·√(2,000·0.9·0.1) ≈ 1,800 ± 54
		if len(s.Endpoints) != 2 || s.Endpoints[0].Requests.Sent < 1746 || s.Endpoints[0].Requests.Sent > 1854 {
			t.Errorf("%v: endpoints %+v; want eth_blockNumber with 1,800 ± 54 of 2,000", args, s.Endpoints)
		}
	}
	code, _, stderr := rpcRun(t, "run", "--calls", plain, "--weights", "nope=1", "--requests", "1", node.url)
	if code != ExitUsage || !strings.Contains(stderr, `--weights: no call is named "nope"; the calls are eth_blockNumber, chain`) {
		t.Errorf("unknown name: exit %d, stderr %q; want %d and the names there are", code, stderr, ExitUsage)
	}
}
