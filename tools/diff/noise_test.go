package diff

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/rpcbench/rpcbench/serve/ethrpc"
	"github.com/rpcbench/rpcbench/tools/jsondiff"
)

func noisyNode(t *testing.T, share float64) *ethrpc.Server {
	t.Helper()
	s, err := ethrpc.New(context.Background(), ethrpc.Config{Blocks: 50, Noise: true, InjectShare: share})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// collectNoise runs reqs against the primary, the candidates and the reference, one at a time,
// and reports with the threshold.
func collectNoise(t *testing.T, cfg Config, threshold float64, reqs []Request) ([]*Result, Report) {
	return collectNoiseConns(t, cfg, threshold, 1, reqs)
}

// collectNoiseConns is collectNoise with conns requests in flight.
func collectNoiseConns(t *testing.T, cfg Config, threshold float64, conns int, reqs []Request) ([]*Result, Report) {
	t.Helper()
	urls := append(append([]string(nil), cfg.URLs...), cfg.Reference)
	tally := NewTally(urls, cfg.URLs[0])
	tally.LearnNoise(threshold)
	var got []*Result
	if err := runList(context.Background(), cfg, reqs, conns, func(r *Result) error { got = append(got, r); tally.Add(r); return nil }); err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(got, func(a, b *Result) int { return a.Request.ID - b.Request.ID })
	return got, tally.Report("")
}

// Three built-in nodes put a random "noise" member in every answer; the candidate also puts
// "injected": true in 1 % of its answers, exactly 4 of 400. With the reference the report counts
// those 4 and nothing else, names "injected" as their only path and "noise" as noise in each
// method; without it, every request differs.
func TestNoiseLearnedFromReference(t *testing.T) {
	t.Parallel()
	primary, candidate, reference := noisyNode(t, 0), noisyNode(t, 0.01), noisyNode(t, 0)
	var reqs []Request
	for i := 1; i <= 400; i++ {
		if i%2 == 0 {
			reqs = append(reqs, call(i, "eth_getBlockByNumber", fmt.Sprintf(`["%#x",false]`, i%50)))
		} else {
			reqs = append(reqs, call(i, "eth_chainId", ""))
		}
	}
	cfg := Config{URLs: []string{primary.URL(), candidate.URL()}, Reference: reference.URL()}
	got, rep := collectNoiseConns(t, cfg, 0, 4, reqs)
	if n := candidate.Injected(); n != 4 {
		t.Fatalf("the candidate injected %d differences; want 400 × 1 %% = 4", n)
	}
	if rep.Requests != 400 || rep.Different != 4 || rep.Equal != 396 || rep.NoiseOnly != 396 || rep.Failed != 0 {
		t.Errorf("report: %d requests, %d different, %d equal (%d apart from noise), %d failed; want 400, 4, 396 (396), 0",
			rep.Requests, rep.Different, rep.Equal, rep.NoiseOnly, rep.Failed)
	}
	if len(rep.Mismatches) != 4 || rep.More != 0 {
		t.Fatalf("mismatches: %d shown, %d more; want 4, 0", len(rep.Mismatches), rep.More)
	}
	for _, m := range rep.Mismatches {
		if len(m.Servers) != 1 || m.Servers[0].URL != candidate.URL() || len(m.Servers[0].Diffs) != 1 ||
			m.Servers[0].Diffs[0].String() != "injected: extra: missing ≠ true (boolean)" {
			t.Errorf("mismatch #%d: %+v; want only the candidate's injected member", m.ID, m.Servers)
		}
	}
	if len(rep.Noise) != 2 {
		t.Fatalf("noise: %+v; want the path noise in each of the two methods", rep.Noise)
	}
	for _, n := range rep.Noise {
		if n.Path != "noise" || n.Differ != 200 || n.Compared != 200 || n.Share != 1 || !n.IsNoise || n.Candidates != 200 {
			t.Errorf("noise %+v; want path noise differing in 200 of 200, candidates in 200", n)
		}
	}
	equal := 0
	for _, r := range got {
		if r.Equal() {
			equal++
		}
	}
	if equal != 396 {
		t.Errorf("%d results are Equal; want 396", equal)
	}
	var rec bytes.Buffer
	if err := WriteRecord(&rec, []string{"A", "B", "C"}, got[0]); err != nil {
		t.Fatal(err)
	}
	var line struct {
		Answers []struct {
			URL   string
			Diffs []struct{ Path string }
			Noise []struct{ Path string }
		}
	}
	if err := json.Unmarshal(rec.Bytes(), &line); err != nil || len(line.Answers) != 3 || len(line.Answers[1].Noise) != 1 ||
		line.Answers[1].Noise[0].Path != "noise" || len(line.Answers[1].Diffs) != 0 || len(line.Answers[2].Diffs) != 1 || line.Answers[2].Diffs[0].Path != "noise" {
		t.Errorf("record of request 1: %v\n%s\nwant B's noise apart, C's difference from A at noise", err, rec.String())
	}

	cfg.Reference = ""
	tally := NewTally(cfg.URLs, cfg.URLs[0])
	if err := runList(context.Background(), cfg, reqs, 4, func(r *Result) error { tally.Add(r); return nil }); err != nil {
		t.Fatal(err)
	}
	if rep := tally.Report(""); rep.Different != 400 {
		t.Errorf("without a reference: %d of 400 differ; want all, by their noise", rep.Different)
	}
}

// byID serves answers on 127.0.0.1 by the call's id: answers[id] is the result.
func byID(t *testing.T, answers map[int]string) string {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var c struct{ ID int }
		json.NewDecoder(r.Body).Decode(&c)
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%d,"result":%s}`, c.ID, answers[c.ID])
	}))
	t.Cleanup(s.Close)
	return s.URL
}

// The reference differs from the primary in request 1 only, at t and at l[0]: 1 request of 4,
// 25 %. The candidate differs at a in request 2, at t and l[1] (one path with l[0]: l[*]) in
// requests 3 and 4, where the reference did not differ. With any share as the threshold, t and
// l[*] are noise, learned after requests 3 and 4 were seen: only request 2 differs. With 50 %,
// they are not: requests 2, 3 and 4 differ.
func TestNoiseThreshold(t *testing.T) {
	t.Parallel()
	same := `{"a":1,"t":1,"l":[1,1]}`
	primary := byID(t, map[int]string{1: same, 2: same, 3: same, 4: same})
	reference := byID(t, map[int]string{1: `{"a":1,"t":2,"l":[2,1]}`, 2: same, 3: same, 4: same})
	candidate := byID(t, map[int]string{1: same, 2: `{"a":2,"t":1,"l":[1,1]}`, 3: `{"a":1,"t":3,"l":[1,3]}`, 4: `{"a":1,"t":3,"l":[1,1]}`})
	reqs := []Request{call(1, "m", ""), call(2, "m", ""), call(3, "m", ""), call(4, "m", "")}
	cfg := Config{URLs: []string{primary, candidate}, Reference: reference}

	_, rep := collectNoise(t, cfg, 0, reqs)
	if rep.Different != 1 || rep.Equal != 3 || rep.NoiseOnly != 2 || rep.Methods[0].Different != 1 || rep.Methods[0].NoiseOnly != 2 {
		t.Errorf("any share: %d different, %d equal, %d apart from noise, method %+v; want 1, 3, 2", rep.Different, rep.Equal, rep.NoiseOnly, rep.Methods[0])
	}
	if len(rep.Mismatches) != 1 || rep.Mismatches[0].ID != 2 || rep.More != 0 ||
		len(rep.Mismatches[0].Servers[0].Diffs) != 1 || rep.Mismatches[0].Servers[0].Diffs[0].Path != "result.a" {
		t.Errorf("any share: mismatches %+v (%d more); want request 2 at result.a only", rep.Mismatches, rep.More)
	}
	want := []Noise{
		{Method: "m", Path: "result.l[*]", Differ: 1, Compared: 4, Share: 0.25, IsNoise: true, Candidates: 1},
		{Method: "m", Path: "result.t", Differ: 1, Compared: 4, Share: 0.25, IsNoise: true, Candidates: 2},
	}
	if fmt.Sprint(rep.Noise) != fmt.Sprint(want) {
		t.Errorf("any share: noise\n%v\nwant\n%v", rep.Noise, want)
	}

	_, rep = collectNoise(t, cfg, 0.5, reqs)
	if rep.Different != 3 || rep.Equal != 1 || rep.NoiseOnly != 0 || len(rep.Mismatches) != 3 {
		t.Errorf("50 %%: %d different, %d equal, %d apart from noise, %d mismatches; want 3, 1, 0, 3", rep.Different, rep.Equal, rep.NoiseOnly, len(rep.Mismatches))
	}
	for _, n := range rep.Noise {
		if n.IsNoise {
			t.Errorf("50 %%: %s is noise; want none under the threshold", n)
		}
	}
}

// Error rules, per method: error-code-only takes two errors of one code as equal whatever their
// data, error-presence-only any two errors; neither takes an error for a result. A method's own
// rule applies to it rather than that of * (every method).
func TestErrorRules(t *testing.T) {
	t.Parallel()
	a := jsonrpcServer(t, map[string]string{
		"code": `"error":{"code":-32000,"message":"x","data":"0x01"}}`, "presence": `"error":{"code":-32000,"message":"x"}}`,
		"result": `"result":"0x1"}`})
	b := jsonrpcServer(t, map[string]string{
		"code": `"error":{"code":-32000,"message":"y","data":"0x02"}}`, "presence": `"error":{"code":3,"message":"reverted"}}`,
		"result": `"error":{"code":-32000,"message":"x"}}`})
	reqs := []Request{call(1, "code", ""), call(2, "presence", ""), call(3, "result", "")}
	equal := func(rules map[string]ErrorRule) string {
		got, _ := collect(t, Config{URLs: []string{a, b}, ErrorRules: rules}, 1, reqs)
		return fmt.Sprint(got[0].Equal(), got[1].Equal(), got[2].Equal())
	}
	for _, tt := range []struct {
		rules map[string]ErrorRule
		want  string
	}{
		{nil, "false false false"},
		{map[string]ErrorRule{"code": ErrorCodeOnly, "presence": ErrorCodeOnly}, "true false false"},
		{map[string]ErrorRule{"*": ErrorPresenceOnly}, "true true false"},
		{map[string]ErrorRule{"*": ErrorCodeOnly, "presence": ErrorPresenceOnly}, "true true false"},
		{map[string]ErrorRule{"*": ErrorPresenceOnly, "presence": ErrorCodeOnly}, "true false false"}, // the method's own rule, not *'s
	} {
		if got := equal(tt.rules); got != tt.want {
			t.Errorf("rules %v: equal %s; want %s", tt.rules, got, tt.want)
		}
	}
	for s, want := range map[string]string{"eth_call": "want METHOD=RULE", "eth_call=codes": `unknown rule "codes"`, "=error-code-only": "want METHOD=RULE"} {
		if _, _, err := ParseErrorRule(s); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseErrorRule(%q): %v; want an error with %q", s, err, want)
		}
	}
}

// Nodes of 100 and 120 blocks share their first 100. Pinned to the first node's head, 0x63,
// "latest", "pending" and an omitted block ask both the same question and the answers are
// equal; unpinned, their latest blocks differ. With SkipAboveHead and the longer node first, the pinned block
// 0x77 is above the other's head: those requests are skipped, not sent, while an explicit 0x10
// and a call without a block are compared.
func TestPinBlock(t *testing.T) {
	t.Parallel()
	short, long := node(t, 100), node(t, 120)
	const acct = `"0x00000000000000000000000000000000000000aa"`
	reqs := []Request{
		call(1, "eth_getBlockByNumber", `["latest",false]`),
		call(2, "eth_getBalance", `[`+acct+`,"pending"]`),
		call(3, "eth_estimateGas", `[{"to":`+acct+`,"data":"0x0102"}]`),
		call(4, "eth_getBlockByNumber", `["0x10",false]`),
		call(5, "eth_chainId", ""),
		{ID: 6, Label: "batch", Header: jsonHeader, Body: []byte(`[{"jsonrpc":"2.0","id":1,"method":"eth_getBlockByNumber","params":["latest",false]},{"jsonrpc":"2.0","id":2,"method":"eth_blockNumber"}]`)},
	}
	got, _ := collect(t, Config{URLs: []string{short.URL(), long.URL()}}, 1, reqs)
	if got[0].Equal() {
		t.Fatal("unpinned: the latest blocks of nodes of 100 and 120 blocks are equal")
	}
	got, rep := collect(t, Config{URLs: []string{short.URL(), long.URL()}, PinBlock: true}, 1, reqs)
	for i, want := range []string{"0x63", "0x63", "0x63", "", "", "0x63"} {
		if got[i].Pinned != want {
			t.Errorf("request %d pinned to %q; want %q", i+1, got[i].Pinned, want)
		}
	}
	for i := range 5 {
		if !got[i].Equal() {
			t.Errorf("pinned request %d: %v; want equal", i+1, got[i].Diffs)
		}
	}
	if got[5].Equal() || len(got[5].Diffs[1]) != 1 || got[5].Diffs[1][0].Path != "[1].result" {
		t.Errorf("pinned batch: %v; want only eth_blockNumber's result to differ", got[5].Diffs)
	}
	for i, want := range []string{
		`{"id":1,"jsonrpc":"2.0","method":"eth_getBlockByNumber","params":["0x63",false]}`,
		`{"id":2,"jsonrpc":"2.0","method":"eth_getBalance","params":[` + acct + `,"0x63"]}`,
		`{"id":3,"jsonrpc":"2.0","method":"eth_estimateGas","params":[{"to":` + acct + `,"data":"0x0102"},"0x63"]}`,
	} {
		if string(got[i].Sent) != want {
			t.Errorf("request %d sent %s; want %s", i+1, got[i].Sent, want)
		}
	}
	if got[3].Sent != nil || got[4].Sent != nil {
		t.Errorf("requests without latest, pending or an omitted block were rewritten: %s, %s", got[3].Sent, got[4].Sent)
	}
	if rep.Equal != 5 || rep.Different != 1 || rep.Skipped != 0 {
		t.Errorf("pinned report: %d equal, %d different, %d skipped; want 5, 1, 0", rep.Equal, rep.Different, rep.Skipped)
	}

	got, rep = collect(t, Config{URLs: []string{long.URL(), short.URL()}, PinBlock: true, SkipAboveHead: true}, 1, reqs)
	for i, want := range []bool{true, true, true, false, false, true} {
		if skipped := got[i].Skipped != ""; skipped != want {
			t.Errorf("request %d skipped %v (%q); want %v", i+1, skipped, got[i].Skipped, want)
		}
	}
	if want := "block 0x77 is above the head of B (0x63)"; got[0].Skipped != want {
		t.Errorf("skipped because %q; want %q", got[0].Skipped, want)
	}
	if rep.Skipped != 4 || rep.Equal != 2 || rep.Different != 0 || rep.Latency[1].Answers != 2 {
		t.Errorf("skip report: %d skipped, %d equal, %d different, %d answers of B; want 4, 2, 0, 2", rep.Skipped, rep.Equal, rep.Different, rep.Latency[1].Answers)
	}
	if v := rep.Verdict(); v != "all 2 answers equal; 4 skipped (above a server's head)" {
		t.Errorf("verdict %q", v)
	}
	var rec bytes.Buffer
	if err := WriteRecord(&rec, []string{long.URL(), short.URL()}, got[0]); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rec.String(), `"skipped":"block 0x77 is above the head of B (0x63)","answers":[]`) {
		t.Errorf("record of a skipped request: %s", rec.String())
	}
}

// A head that cannot be read fails the request on that server; the others are not sent it.
func TestPinBlockHeadFails(t *testing.T) {
	t.Parallel()
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no such method"}}`)
	}))
	t.Cleanup(bad.Close)
	a := node(t, 10)
	got, rep := collect(t, Config{URLs: []string{bad.URL, a.URL()}, PinBlock: true}, 1, []Request{call(1, "eth_getBlockByNumber", `["latest",false]`)})
	r := got[0]
	if r.Answers[0].Class != "other" || r.Answers[0].Error != "eth_blockNumber, to pin the block: error -32601: no such method" ||
		r.Answers[1].Class != "not sent" || r.Equal() {
		t.Errorf("answers %+v; want A failed with its error, B not sent", r.Answers)
	}
	if rep.Failed != 1 || rep.Methods[0].Errors[0] != 1 || rep.Methods[0].Errors[1] != 0 {
		t.Errorf("report: %d failed, errors %v; want 1 failed, an error of A only", rep.Failed, rep.Methods[0].Errors)
	}
}

// The candidate differs at t in 150 requests, and at a in the last; the reference differs at t in
// the last only. The first 100 are kept in detail before t is known as noise; once it is, they
// are dropped, and the report counts one difference it has no detail of: 0 shown of 1.
func TestNoiseMismatchesBeyondTheKept(t *testing.T) {
	t.Parallel()
	rep := noisyOf150(t, func(r, c map[int]string) { r[150], c[150] = `{"a":1,"t":3}`, `{"a":2,"t":2}` })
	if rep.Different != 1 || rep.NoiseOnly != 149 || len(rep.Mismatches) != 0 || rep.More != 1 {
		t.Errorf("%d different, %d apart from noise, %d mismatches shown, %d more; want 1, 149, 0, 1", rep.Different, rep.NoiseOnly, len(rep.Mismatches), rep.More)
	}
}

// Every format shows the rules, which server is the second instance, the noise with its share,
// the counts apart from noise and each method's latency per server with its ratio to the first's
// (B's p99 is 3 times A's: 22.5 ms over 7.5 ms).
func TestReportFormatsShowNoiseAndRules(t *testing.T) {
	t.Parallel()
	rep := Report{
		Servers: []string{"http://127.0.0.1:1/", "http://127.0.0.1:2/", "http://127.0.0.1:3/"}, Reference: "http://127.0.0.1:1/",
		NoiseReference: "http://127.0.0.1:3/", NoiseThreshold: 0.5,
		Rules:    []string{"tolerance result.gasPrice=5%", "rule eth_call=error-code-only"},
		Requests: 40, Equal: 38, NoiseOnly: 37, Different: 1, Failed: 0, Skipped: 1,
		Methods: []Method{{Name: "eth_call", Sent: 40, Equal: 38, NoiseOnly: 37, Different: 1, Skipped: 1, Errors: []int{0, 0, 0},
			Latency: []Latency{{Answers: 39, P50MS: 1.25, P99MS: 7.5, MaxMS: 9, P50Ratio: 1, P99Ratio: 1},
				{Answers: 39, P50MS: 2.5, P99MS: 22.5, MaxMS: 30, P50Ratio: 2, P99Ratio: 3},
				{Answers: 38, Errors: 1, P50MS: 1.5, P99MS: 8, MaxMS: 8, P50Ratio: 1.2, P99Ratio: 8 / 7.5}}}},
		Noise: []Noise{{Method: "eth_call", Path: "result.timestamp", Differ: 39, Compared: 39, Share: 1, IsNoise: true, Candidates: 38},
			{Method: "eth_call", Path: "result.peers", Differ: 1, Compared: 39, Share: 1.0 / 39, Candidates: 2}},
	}
	noise := "eth_call: result.timestamp differs between the two references in 100 % (39 of 39), the candidates in 38: noise, not counted"
	under := "eth_call: result.peers differs between the two references in 2.6 % (1 of 39), the candidates in 2: under the threshold, counted"
	note := "C is a second instance of A: a path where the two differ in 50 % of a method's requests or more is noise, not counted against the others"
	verdict := "1 of 39 requests differ, 0 failed; 1 skipped (above a server's head)"
	for _, f := range []struct {
		name  string
		write func(io.Writer, Report) error
		want  []string
	}{
		{"text", WriteText, []string{verdict, "rules: tolerance result.gasPrice=5%; rule eth_call=error-code-only", note, noise, under,
			"noise only", "skipped", "p99 ×A", "22.5ms", "3.00×", "1.07×"}},
		{"markdown", WriteMarkdown, []string{verdict, "`tolerance result.gasPrice=5%`", note, "`" + noise + "`", "`" + under + "`",
			"| method | sent | equal | noise only | different | skipped | errors A | errors B | errors C |", "| latency of | server | requests | errors | p50 | p99 | max | p50 ×A | p99 ×A |",
			"| `eth_call` | A | 39 | 0 | 1.25ms | 7.50ms | 9.00ms | 1.00× | 1.00× |",
			"| `eth_call` | B | 39 | 0 | 2.50ms | 22.5ms | 30.0ms | 2.00× | 3.00× |",
			"| `eth_call` | C | 39 | 1 | 1.50ms | 8.00ms | 8.00ms | 1.20× | 1.07× |"}},
		{"html", WriteHTML, []string{html.EscapeString(verdict), "<code>tolerance result.gasPrice=5%</code>", html.EscapeString(note), "<code>result.timestamp</code>", "39 of 39", "2.6 %",
			"noise, not counted", "under the threshold, counted", "<th>noise only</th>", "<th>p99 ×A</th>",
			`<tr class="bad"><td></td><td>B</td><td>39</td><td>0</td><td>2.50ms</td><td>22.5ms</td><td>30.0ms</td><td>2.00×</td><td>3.00×</td></tr>`}},
		{"json", WriteJSON, []string{`"noise_reference": "http://127.0.0.1:3/"`, `"noise_threshold": 0.5`, `"path": "result.timestamp"`, `"noise": true`,
			`"rules": [`, `"noise_only": 37`, `"skipped": 1`, `"p99_ratio": 3`, `"errors": 1`}},
	} {
		var b bytes.Buffer
		if err := f.write(&b, rep); err != nil {
			t.Fatal(err)
		}
		for _, w := range f.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s lacks %q:\n%s", f.name, w, b.String())
			}
		}
	}
}

// Once t is noise (the reference differed there in request 1), the candidate's later differences
// there take no place among the mismatches kept in detail: the real one of request 150 is shown,
// though 148 requests before it differed at t.
func TestNoiseKnownKeepsMismatchesForRealOnes(t *testing.T) {
	t.Parallel()
	rep := noisyOf150(t, func(r, c map[int]string) {
		r[1], c[1] = `{"a":1,"t":3}`, `{"a":1,"t":1}`
		c[150] = `{"a":2,"t":2}`
	})
	if rep.Different != 1 || rep.NoiseOnly != 148 || len(rep.Mismatches) != 1 || rep.More != 0 {
		t.Fatalf("%d different, %d apart from noise, %d mismatches shown, %d more; want 1, 148, 1, 0", rep.Different, rep.NoiseOnly, len(rep.Mismatches), rep.More)
	}
	if m := rep.Mismatches[0]; m.ID != 150 || len(m.Servers) != 1 || len(m.Servers[0].Diffs) != 1 || m.Servers[0].Diffs[0].Path != "result.a" {
		t.Errorf("mismatch %+v; want request 150 at result.a only", m)
	}
}

// noisyOf150 compares 150 requests: the primary and the reference answer {"a":1,"t":1}, the
// candidate {"a":1,"t":2}, but as change alters the reference's and the candidate's answers by id.
func noisyOf150(t *testing.T, change func(reference, candidate map[int]string)) Report {
	t.Helper()
	p, r, c := map[int]string{}, map[int]string{}, map[int]string{}
	var reqs []Request
	for i := 1; i <= 150; i++ {
		p[i], r[i], c[i] = `{"a":1,"t":1}`, `{"a":1,"t":1}`, `{"a":1,"t":2}`
		reqs = append(reqs, call(i, "m", ""))
	}
	change(r, c)
	_, rep := collectNoise(t, Config{URLs: []string{byID(t, p), byID(t, c)}, Reference: byID(t, r)}, 0, reqs)
	return rep
}

// A long run whose every request differs at noise keeps one pending entry per method and set of
// paths, not one per request: 1,000 requests, all noise at t, hold one entry and count 1,000 equal
// apart from noise.
func TestNoisePendingHeldPerPaths(t *testing.T) {
	t.Parallel()
	tally := NewTally([]string{"A", "B", "C"}, "A")
	tally.LearnNoise(0)
	at := []jsondiff.Difference{{Path: "t", Kind: jsondiff.Changed}}
	for i := 1; i <= 1000; i++ {
		tally.Add(&Result{Request: &Request{ID: i, Label: "m"}, Answers: make([]Answer, 3), Ref: 2,
			Diffs: [][]jsondiff.Difference{nil, nil, at}, Noise: [][]jsondiff.Difference{nil, at, nil}})
	}
	rep := tally.Report("")
	if len(tally.pending) != 1 || rep.Equal != 1000 || rep.NoiseOnly != 1000 || rep.Different != 0 || rep.Noise[0].Candidates != 1000 {
		t.Errorf("%d pending entries; report %d equal (%d apart from noise), %d different, noise %+v; want 1 entry, 1000, 1000, 0, candidates 1000",
			len(tally.pending), rep.Equal, rep.NoiseOnly, rep.Different, rep.Noise)
	}
}
