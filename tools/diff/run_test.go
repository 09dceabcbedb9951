package diff

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/runner"
	"github.com/rpcbench/rpcbench/serve/ethrpc"
	"github.com/rpcbench/rpcbench/tools/jsondiff"
	"github.com/rpcbench/rpcbench/transport"
)

// node starts a built-in node of the given length on 127.0.0.1.
func node(t *testing.T, blocks uint64) *ethrpc.Server {
	t.Helper()
	s, err := ethrpc.New(context.Background(), ethrpc.Config{Blocks: blocks, MaxStorageRange: 10})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func call(id int, method, params string) Request {
	body := `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"` + method + `"`
	if params != "" {
		body += `,"params":` + params
	}
	return Request{ID: id, Label: method, Body: []byte(body + "}"), Header: jsonHeader}
}

// runList sends reqs, each once, conns at a time, through Prepare and Run.
func runList(ctx context.Context, cfg Config, reqs []Request, conns int, sink func(*Result) error) error {
	c := FromList(cfg.URLs[0], reqs)
	prep, err := Prepare(cfg, c, plan.Load{Connections: conns}, nil)
	if err != nil {
		return err
	}
	_, err = Run(ctx, cfg, prep, c, runner.Options{}, sink)
	return err
}

// collect runs reqs with conns in flight and returns the results by request id, and the report.
func collect(t *testing.T, cfg Config, conns int, reqs []Request) ([]*Result, Report) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tally := NewTally(cfg.URLs, cfg.URLs[0])
	var got []*Result
	if err := runList(ctx, cfg, reqs, conns, func(r *Result) error { got = append(got, r); tally.Add(r); return nil }); err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(got, func(a, b *Result) int { return a.Request.ID - b.Request.ID })
	return got, tally.Report("")
}

// Two nodes of 100 and 120 blocks share their first 100 blocks: block 0x10 is equal, the head
// differs, a block past 0x63 is null on one side only.
func TestRunTwoNodes(t *testing.T) {
	t.Parallel()
	a, b := node(t, 100), node(t, 120)
	reqs := []Request{
		call(1, "eth_getBlockByNumber", `["0x10",false]`),
		call(2, "eth_blockNumber", ""),
		call(3, "eth_getBlockByNumber", `["0x70",false]`),
		call(4, "eth_chainId", ""),
	}
	for _, conns := range []int{1, 3} {
		got, rep := collect(t, Config{URLs: []string{a.URL(), b.URL()}}, conns, reqs)
		if len(got) != 4 {
			t.Fatalf("connections %d: got %d results; want 4", conns, len(got))
		}
		for i, r := range got {
			if r.Request.ID != i+1 {
				t.Errorf("result %d by id is of request %d; want each request once", i, r.Request.ID)
			}
		}
		want := [][]string{
			nil,
			{`result: changed: "0x63" (string) ≠ "0x77" (string)`},
			{`result: type: null (null) ≠ {`},
			nil,
		}
		for i, r := range got {
			if len(r.Diffs[0]) != 0 {
				t.Errorf("request %d: the reference has differences %v", i+1, r.Diffs[0])
			}
			if len(r.Diffs[1]) != len(want[i]) {
				t.Errorf("request %d: got %v; want %q", i+1, r.Diffs[1], want[i])
				continue
			}
			for j, d := range r.Diffs[1] {
				if !strings.HasPrefix(d.String(), want[i][j]) {
					t.Errorf("request %d: got %s; want %s…", i+1, d, want[i][j])
				}
			}
		}
		if rep.Requests != 4 || rep.Equal != 2 || rep.Different != 2 || rep.Failed != 0 {
			t.Errorf("report: %d requests, %d equal, %d different, %d failed; want 4, 2, 2, 0", rep.Requests, rep.Equal, rep.Different, rep.Failed)
		}
		if m := rep.Methods[0]; m.Name != "eth_getBlockByNumber" || m.Sent != 2 || m.Equal != 1 || m.Different != 1 {
			t.Errorf("first method: %+v; want eth_getBlockByNumber sent 2, equal 1, different 1", m)
		}
		if rep.Latency[0].Answers != 4 || rep.Latency[1].Answers != 4 {
			t.Errorf("latency: %+v; want 4 answers from each", rep.Latency)
		}
	}
}

// A server that answers in its own style: quantities in decimal, other error messages, the
// transactions in another order. The rules take the first two as equal; the order only with
// Unordered.
func TestRunRules(t *testing.T) {
	t.Parallel()
	ref := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, answer(r, `"0x1a"`, `"no such method"`, `["0xaa","0xbb"]`))
	}))
	defer ref.Close()
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, answer(r, `26`, `"the method does not exist"`, `["0xbb","0xaa"]`))
	}))
	defer other.Close()
	reqs := []Request{call(1, "n", ""), call(2, "err", ""), call(3, "txs", "")}
	got, _ := collect(t, Config{URLs: []string{ref.URL, other.URL}}, 1, reqs)
	if !got[0].Equal() || !got[1].Equal() || got[2].Equal() {
		t.Errorf("equal: got %v %v %v; want true true false", got[0].Equal(), got[1].Equal(), got[2].Equal())
	}
	if n := len(got[2].Diffs[1]); n != 2 {
		t.Errorf("ordered transactions: got %d differences; want 2", n)
	}
	got, _ = collect(t, Config{URLs: []string{ref.URL, other.URL},
		Rules: jsondiff.Options{Unordered: []jsondiff.Pattern{jsondiff.MustPattern("result")}}}, 1, reqs)
	if !got[2].Equal() {
		t.Errorf("unordered transactions: got %v; want equal", got[2].Diffs[1])
	}
	got, _ = collect(t, Config{URLs: []string{ref.URL, other.URL}, Rules: jsondiff.Options{StrictNumbers: true, KeepErrorMessages: true}}, 1, reqs)
	if got[0].Equal() || got[1].Equal() {
		t.Errorf("strict: got equal %v %v; want both different", got[0].Equal(), got[1].Equal())
	}
}

// answer answers the test calls by method: n, err and txs.
func answer(r *http.Request, n, msg, txs string) string {
	var c struct {
		ID     json.RawMessage
		Method string
	}
	json.NewDecoder(r.Body).Decode(&c)
	head := `{"jsonrpc":"2.0","id":` + string(c.ID) + `,`
	switch c.Method {
	case "n":
		return head + `"result":` + n + `}`
	case "err":
		return head + `"error":{"code":-32601,"message":` + msg + `}}`
	}
	return head + `"result":` + txs + `}`
}

// A server that is not there is an error of that side; a server that answers text is compared as
// text; StopAtFirst ends at the first request whose answers differ.
func TestRunFailuresAndStop(t *testing.T) {
	t.Parallel()
	a := node(t, 100)
	text := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "busy", http.StatusServiceUnavailable)
	}))
	defer text.Close()
	gone := httptest.NewServer(http.NotFoundHandler())
	goneURL := gone.URL
	gone.Close()
	reqs := []Request{call(1, "eth_chainId", ""), call(2, "eth_chainId", "")}
	got, rep := collect(t, Config{URLs: []string{a.URL(), text.URL, goneURL}}, 1, reqs)
	r := got[0]
	if r.Answers[2].Class != "refused" {
		t.Errorf("closed server: class %q; want refused", r.Answers[2].Class)
	}
	if len(r.Diffs[1]) != 2 || r.Diffs[1][0].Path != "(status)" || r.Diffs[1][1].Path != "(body)" {
		t.Errorf("text answer: got %v; want a (status) and a (body) difference", r.Diffs[1])
	}
	if rep.Failed != 2 || rep.Methods[0].Errors[2] != 2 || rep.Methods[0].Errors[0] != 0 {
		t.Errorf("report: failed %d, errors %v; want 2 failed, all on server C", rep.Failed, rep.Methods[0].Errors)
	}
	if l := rep.Methods[0].Latency[2]; l.Errors != 2 || l.Answers != 0 || l.P99Ratio != 0 || rep.Latency[2].Errors != 2 || rep.Latency[0].Errors != 0 {
		t.Errorf("latency of C: %+v overall %+v; want 2 errors, no answer, no ratio", l, rep.Latency[2])
	}
	// C gave no answer: no latency in the server table, not 0 ms
	for _, write := range []func(io.Writer, Report) error{WriteText, WriteMarkdown, WriteHTML} {
		var b strings.Builder
		if err := write(&b, rep); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		i := strings.Index(out, "p99 ×A") // the server table's head: its rows follow
		i += strings.Index(out[i:], goneURL)
		row, _, _ := strings.Cut(out[i:], "\n")
		row, _, _ = strings.Cut(row, "</tr>")
		if strings.Contains(row, "ms") || strings.Count(row, "-") < 6 {
			t.Errorf("the server table's row of C: %q; want its six figures -", row)
		}
	}
	got, _ = collect(t, Config{URLs: []string{a.URL(), text.URL}, StopAtFirst: true}, 1, reqs)
	if len(got) != 1 {
		t.Errorf("stop at first: got %d results; want 1", len(got))
	}
}

// The same node over HTTP and over WebSocket answers alike: the statuses (200 and the
// handshake's 101) are not compared across the schemes, the bodies are (a longer chain differs).
func TestHTTPAndWebSocketCompareBodies(t *testing.T) {
	t.Parallel()
	a, b := node(t, 100), node(t, 120)
	ws := func(s *ethrpc.Server) string { return strings.Replace(s.URL(), "http://", "ws://", 1) }
	reqs := []Request{call(1, "eth_chainId", ""), call(2, "eth_blockNumber", "")}
	got, _ := collect(t, Config{URLs: []string{a.URL(), ws(a), ws(b)}}, 1, reqs)
	if len(got) != 2 || got[0].Answers[1].Status != 101 || len(got[0].Diffs[1]) != 0 || len(got[1].Diffs[1]) != 0 {
		t.Fatalf("A over WebSocket: got %d results, %+v; want 2, status 101 and no difference", len(got), got)
	}
	if len(got[0].Diffs[2]) != 0 || len(got[1].Diffs[2]) != 1 || got[1].Diffs[2][0].Path != "result" {
		t.Errorf("B over WebSocket: differences %v and %v; want none, then the head (result)", got[0].Diffs[2], got[1].Diffs[2])
	}
}

// countingNodes starts two nodes that answer every call with different results (0x1, 0x2), each
// counting the requests it served.
func countingNodes(t *testing.T) ([]string, *[2]atomic.Int64) {
	served := new([2]atomic.Int64)
	nodes := make([]string, 2)
	for k := range nodes {
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			served[k].Add(1)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":1,"result":"0x%d"}`, k+1)
		}))
		t.Cleanup(s.Close)
		nodes[k] = s.URL
	}
	return nodes, served
}

// StopAtFirst sends nothing after the first difference: with one request in flight, each node
// serves one request of the twenty, counted by the node itself, not by the sink.
func TestStopAtFirstSendsNoMore(t *testing.T) {
	t.Parallel()
	nodes, served := countingNodes(t)
	reqs := make([]Request, 20)
	for i := range reqs {
		reqs[i] = call(i+1, "eth_chainId", "")
	}
	got, _ := collect(t, Config{URLs: nodes, StopAtFirst: true}, 1, reqs)
	if len(got) != 1 || served[0].Load() != 1 || served[1].Load() != 1 {
		t.Errorf("stop at first: %d results, the nodes served %d and %d requests; want 1, 1 and 1", len(got), served[0].Load(), served[1].Load())
	}
}

// Fixtures compare every server with the expected answer: here the node passes one and fails the
// other by its chain id, and a speconly fixture passes on shape.
func TestRunFixtures(t *testing.T) {
	t.Parallel()
	a := node(t, 100)
	in := `>> {"jsonrpc":"2.0","id":1,"method":"eth_chainId"}
<< {"jsonrpc":"2.0","id":1,"result":"0x1"}
>> {"jsonrpc":"2.0","id":2,"method":"eth_blockNumber"}
<< {"jsonrpc":"2.0","id":2,"result":99}
`
	reqs, err := ReadFixture("t.io", strings.NewReader(in), 1)
	if err != nil {
		t.Fatal(err)
	}
	shape, err := ReadFixture("s.io", strings.NewReader("// speconly\n>> {\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"eth_chainId\"}\n<< {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":\"0x1\"}\n"), 3)
	if err != nil {
		t.Fatal(err)
	}
	got, rep := collect(t, Config{URLs: []string{a.URL()}}, 1, append(reqs, shape...))
	if len(got[0].Diffs[0]) != 1 || got[0].Diffs[0][0].String() != `result: changed: "0x1" (string) ≠ "0x539" (string)` {
		t.Errorf("chain id: got %v", got[0].Diffs[0])
	}
	if !got[1].Equal() || !got[2].Equal() {
		t.Errorf("block number and speconly: got %v, %v; want equal", got[1].Diffs[0], got[2].Diffs[0])
	}
	if rep.Different != 1 || rep.Equal != 2 || rep.Mismatches[0].Where != "t.io:1" {
		t.Errorf("report: %d different, %d equal, first mismatch %+v", rep.Different, rep.Equal, rep.Mismatches)
	}
	var rec, log bytes.Buffer
	cw := csv.NewWriter(&log)
	for _, r := range got {
		if err := WriteRecord(&rec, []string{a.URL()}, r); err != nil {
			t.Fatal(err)
		}
		if err := WriteLog(cw, []string{a.URL()}, r); err != nil {
			t.Fatal(err)
		}
	}
	cw.Flush()
	lines := strings.Split(strings.TrimSpace(rec.String()), "\n")
	var first struct {
		Expected json.RawMessage
		Answers  []struct {
			Body  json.RawMessage
			Diffs []jsondiff.Difference
		}
	}
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil || len(lines) != 3 {
		t.Fatalf("record: %v, %d lines:\n%s", err, len(lines), rec.String())
	}
	if string(first.Expected) != `{"jsonrpc":"2.0","id":1,"result":"0x1"}` || string(first.Answers[0].Body) != `{"jsonrpc":"2.0","id":1,"result":"0x539"}` || len(first.Answers[0].Diffs) != 1 {
		t.Errorf("record line 1: %s", lines[0])
	}
	rows, err := csv.NewReader(&log).ReadAll()
	if err != nil || len(rows) != 3 || rows[0][0] != "1" || rows[0][1] != "eth_chainId" || rows[0][6] != "200" || rows[0][8] != "false" || rows[1][8] != "true" {
		t.Errorf("log: %v, %q", err, rows)
	}
}

// jsonrpcServer answers each call on 127.0.0.1 with {"jsonrpc":"2.0","id":ID, then the text its
// method maps to.
func jsonrpcServer(t *testing.T, answers map[string]string) string {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var c struct {
			ID     json.RawMessage
			Method string
		}
		json.NewDecoder(r.Body).Decode(&c)
		io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(c.ID)+`,`+answers[c.Method])
	}))
	t.Cleanup(s.Close)
	return s.URL
}

// Two servers agree on the chain id and differ only in what a client may read alike: a member
// named twice (encoding/json takes the last, 0x2, as the other server says) and bytes that are
// not UTF-8 (a decoder may put U+FFFD in their place, as the other server wrote). Every output
// says both are differences, and says what they are.
func TestRunDuplicateKeyAndInvalidUTF8(t *testing.T) {
	t.Parallel()
	a := jsonrpcServer(t, map[string]string{
		"eth_chainId":        `"result":"0x1"}`,
		"eth_blockNumber":    `"result":"0x1","result":"0x2"}`,
		"web3_clientVersion": "\"result\":\"\xff\xfe\xc3(\"}",
	})
	b := jsonrpcServer(t, map[string]string{
		"eth_chainId":        `"result":"0x1"}`,
		"eth_blockNumber":    `"result":"0x2"}`,
		"web3_clientVersion": `"result":"\ufffd\ufffd\ufffd("}`,
	})
	urls := []string{a, b}
	reqs := []Request{call(1, "eth_chainId", ""), call(2, "eth_blockNumber", ""), call(3, "web3_clientVersion", "")}
	got, rep := collect(t, Config{URLs: urls}, 1, reqs)
	dup := jsondiff.Difference{Path: "result", Kind: jsondiff.Duplicate, TypeA: "duplicate key", TypeB: "string", A: `"0x1", "0x2"`, B: `"0x2"`}
	bad := jsondiff.Difference{Path: "result", Kind: jsondiff.Changed, TypeA: "string, not UTF-8", TypeB: "string", A: `"\xff\xfe\xc3("`, B: "\"\ufffd\ufffd\ufffd(\""}
	want := [][]jsondiff.Difference{nil, {dup}, {bad}}
	for i, r := range got {
		if !reflect.DeepEqual(r.Diffs[1], want[i]) {
			t.Errorf("request %d: got %#v; want %#v", i+1, r.Diffs[1], want[i])
		}
	}
	if rep.Equal != 1 || rep.Different != 2 || rep.Verdict() != "2 of 3 requests differ, 0 failed" {
		t.Errorf("report: %d equal, %d different, %q; want 1, 2, \"2 of 3 requests differ, 0 failed\"", rep.Equal, rep.Different, rep.Verdict())
	}
	dupLine := `result: duplicate: "0x1", "0x2" (duplicate key) ≠ "0x2" (string)`
	badLine := `result: changed: "\xff\xfe\xc3(" (string, not UTF-8) ≠ "` + "\ufffd\ufffd\ufffd" + `(" (string)`

	var text, md, page, js, rec, log bytes.Buffer
	if err := WriteText(&text, rep); err != nil {
		t.Fatal(err)
	}
	if err := WriteMarkdown(&md, rep); err != nil {
		t.Fatal(err)
	}
	if err := WriteHTML(&page, rep); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(&js, rep); err != nil {
		t.Fatal(err)
	}
	cw := csv.NewWriter(&log)
	for _, r := range got {
		if err := WriteRecord(&rec, urls, r); err != nil {
			t.Fatal(err)
		}
		if err := WriteLog(cw, urls, r); err != nil {
			t.Fatal(err)
		}
	}
	cw.Flush()
	for _, c := range []struct {
		name, out string
		want      []string
	}{
		{"text", text.String(), []string{"    " + dupLine + "\n", "    " + badLine + "\n"}},
		{"markdown", md.String(), []string{"`" + dupLine + "`", "`" + badLine + "`"}},
		{"html", page.String(), []string{
			`<td>result</td><td>duplicate</td><td>&#34;0x1&#34;, &#34;0x2&#34; <span class="hint">(duplicate key)</span></td><td>&#34;0x2&#34; <span class="hint">(string)</span></td>`,
			`<td>result</td><td>changed</td><td>&#34;\xff\xfe\xc3(&#34; <span class="hint">(string, not UTF-8)</span></td><td>&#34;` + "\ufffd\ufffd\ufffd" + `(&#34; <span class="hint">(string)</span></td>`}},
	} {
		for _, w := range c.want {
			if !strings.Contains(c.out, w) {
				t.Errorf("%s: no %q in:\n%s", c.name, w, c.out)
			}
		}
	}
	var back Report
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || len(back.Mismatches) != 2 ||
		!reflect.DeepEqual(back.Mismatches[0].Servers[0].Diffs, want[1]) || !reflect.DeepEqual(back.Mismatches[1].Servers[0].Diffs, want[2]) {
		t.Errorf("json: %v, mismatches %+v; want %v and %v", err, back.Mismatches, want[1], want[2])
	}
	lines := strings.Split(strings.TrimSpace(rec.String()), "\n")
	for i, line := range lines {
		var r struct {
			Answers []struct{ Diffs []jsondiff.Difference }
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil || len(r.Answers) != 2 || !reflect.DeepEqual(r.Answers[1].Diffs, want[i]) {
			t.Errorf("record line %d: %v: %s; want the differences %v", i+1, err, line, want[i])
		}
	}
	rows, err := csv.NewReader(&log).ReadAll()
	var equal []string
	for _, row := range rows {
		equal = append(equal, row[8])
	}
	if err != nil || strings.Join(equal, " ") != "true true true false true false" {
		t.Errorf("log: %v, equal column %v; want true true true false true false", err, equal)
	}
}

// A calls corpus places each request by the call its body holds: the JSON-RPC source numbers the
// calls as they are made (ids from 1, the calls in turn by id), which need not be the order of the
// arrivals when several senders draw at once. Arrival 0 filled with id 4 is the second call of
// two. The requests count under the call's name.
func TestCallsCorpusPlaces(t *testing.T) {
	t.Parallel()
	calls := []plan.Call{{Method: "eth_chainId"}, {Method: "eth_getBlockByNumber", Params: []byte(`["0x1",false]`), Name: "block"}}
	a, b := node(t, 100), node(t, 100)
	c := FromCalls(a.URL(), jsonHeader, calls, "calls.jsonl")
	r := &transport.Request{Body: []byte(`{"jsonrpc":"2.0","id":4,"method":"eth_getBlockByNumber","params":["0x1",false]}`)}
	if got := c.where(0, r); got != "calls.jsonl call 2" {
		t.Errorf("arrival 0 with id 4: %q; want calls.jsonl call 2", got)
	}
	cfg := Config{URLs: []string{a.URL(), b.URL()}}
	prep, err := Prepare(cfg, c, plan.Load{Requests: 6}, nil)
	if err != nil {
		t.Fatal(err)
	}
	labels := map[string]string{}
	_, err = Run(context.Background(), cfg, prep, c, runner.Options{}, func(r *Result) error {
		labels[r.Request.Where] = r.Request.Label
		if !r.Equal() {
			t.Errorf("request %d differs: %v", r.Request.ID, r.Diffs)
		}
		return nil
	})
	if want := map[string]string{"calls.jsonl call 1": "eth_chainId", "calls.jsonl call 2": "block"}; err != nil || !reflect.DeepEqual(labels, want) {
		t.Errorf("labels by place %v (%v); want %v", labels, err, want)
	}
}

// StopAtFirst stops the run as soon as a comparison differs, inside Do, before the engine gives
// the Result on: another worker's request that reaches Do after it is not sent, though the first
// difference's Result has not been given yet (no VerifyDetail is called here).
func TestStopAtFirstStopsInsideDo(t *testing.T) {
	t.Parallel()
	nodes, served := countingNodes(t)
	cfg := Config{URLs: nodes, StopAtFirst: true}
	j, err := newJudge(cfg)
	if err != nil {
		t.Fatal(err)
	}
	servers, err := dial(cfg, nodes, plan.Load{Connections: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, s := range servers {
			s.tr.Close()
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	stops := 0
	f := &fanout{j: j, servers: servers, stopAtFirst: true, sink: func(*Result) error { return nil }, cancel: func() { stops++; cancel() }}
	do := func(i uint64) transport.Outcome {
		q := call(int(i)+1, "eth_chainId", "")
		var out transport.Outcome
		f.Do(ctx, &transport.Request{SourceState: &slot{i: i}, Method: "POST", Body: q.Body, Header: q.Header}, &out)
		return out
	}
	first := do(0)
	second := do(1)
	if served[0].Load() != 1 || served[1].Load() != 1 || stops != 1 || second.Class != result.Canceled || first.Class == result.Canceled {
		t.Errorf("after a first difference whose Result is not given yet: the nodes served %d and %d requests, the run was stopped %d times, the second request %q (the first %q); want 1, 1, once, canceled (not canceled)",
			served[0].Load(), served[1].Load(), stops, second.Class, first.Class)
	}
}
