package gen

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rpcbench/rpcbench/serve/ethrpc"
)

const testSteps = `# the head, blocks 2 to it, their transactions by hash, their senders' balances
- name: head
  method: eth_blockNumber
- name: block
  method: eth_getBlockByNumber
  for_each: {from: 2, to: "{{head.result}}", hex: true}
  params: ["{{item}}", true]
- name: tx
  method: eth_getTransactionByHash
  for_each: "{{block.result.transactions[*].hash}}"
  params: ["{{item}}"]
- name: balance
  method: eth_getBalance
  for_each: "{{block.result.transactions[*]}}"
  params: ["{{item.from}}", "latest"]
- method: eth_getTransactionReceipt
  for_each: "{{tx.result.hash}}"
  params: ["{{item}}"]
- name: byhash
  method: eth_getBlockByHash
  for_each: "{{block.result.hash}}"
  params: ["{{item}}", false]
  limit: 3
- method: net_version
  params: ["{{head.result.nothing}}"]
`

func readSteps(t *testing.T, text string) []Step {
	t.Helper()
	steps, err := ReadSteps("steps.yaml", strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	return steps
}

// A generic crawl of the built-in node writes per method one request per item its steps iterate
// over, fills each from the answers before, and skips what the node does not have.
func TestJSONRPCCorpus(t *testing.T) {
	t.Parallel()
	s := node(t, ethrpc.Config{Seed: 7, Blocks: 10, TxPerBlock: 3})
	dir := t.TempDir()
	var last Progress
	sum, err := JSONRPC{URL: s.URL(), Steps: readSteps(t, testSteps), Out: dir, Progress: func(p Progress) { last = p }}.Run(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	st := sum.State
	// the head is 9; blocks 2 to 9 of seed 7 hold 5, 0, 1, 4, 4, 0, 2 and 1 transactions (17);
	// three blocks by hash (limit: 3); net_version's template selects nothing in "0x9"
	byHand := map[string]int{"eth_blockNumber": 1, "eth_getBlockByNumber": 8, "eth_getTransactionByHash": 17,
		"eth_getBalance": 17, "eth_getBlockByHash": 3}
	txs := 0
	var firstFrom string
	for n := uint64(2); n <= 9; n++ { // the same from the blocks, fetched by the test itself
		b := fetchBlock(t, s.URL(), n)
		txs += len(b.Transactions)
		if firstFrom == "" && len(b.Transactions) > 0 {
			firstFrom = b.Transactions[0].From
		}
	}
	if txs != 17 {
		t.Fatalf("blocks 2 to 9 hold %d transactions; the hand count 17", txs)
	}
	if !mapsEqual(st.Requests, byHand) {
		t.Errorf("requests per method: got %v; want %v", st.Requests, byHand)
	}
	if _, ok := st.Skipped["eth_getTransactionReceipt"]; !ok || len(st.Skipped) != 1 {
		t.Errorf("skipped %v; want eth_getTransactionReceipt alone", st.Skipped)
	}
	if st.Unfilled["net_version"] != 1 || len(st.Unfilled) != 1 {
		t.Errorf("unfilled %v; want net_version 1", st.Unfilled)
	}
	if st.Sent != 1+8+17+17+3+1 || st.Next != 8 || st.To != 7 || len(st.Errors) != 0 {
		t.Errorf("sent %d, next %d of %d, errors %v; want 47 sent (one receipt asked), next 8 of 7, none", st.Sent, st.Next, st.To, st.Errors)
	}
	if last.Step != "byhash" || last.Block != 6 || last.Done != 3 || last.Total != 3 || last.Sent != 47 || last.Requests != 46 {
		t.Errorf("last progress %+v; want step 6 byhash, 3 of 3, 47 sent, 46 written", last)
	}
	checkFiles(t, dir, st)
	b, err := os.ReadFile(filepath.Join(dir, CallsFile("eth_getBalance")))
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(b), "\n")
	if want := `{"method":"eth_getBalance","params":["` + firstFrom + `","latest"]}`; first != want {
		t.Errorf("first balance call %s; want %s", first, want)
	}
	b, _ = os.ReadFile(filepath.Join(dir, CallsFile("eth_getBlockByNumber")))
	if first, _, _ := strings.Cut(string(b), "\n"); first != `{"method":"eth_getBlockByNumber","params":["0x2",true]}` {
		t.Errorf("first block call %s; want block 0x2 with transactions", first)
	}
	var text strings.Builder
	if err := WriteText(&text, "corpus", st); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"corpus: steps 1 to 7, 7 of 7 written; 47 requests sent, 46 written",
		"eth_getBalance            17", "eth_getTransactionReceipt (error -32601", "net_version: 1 calls not made"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("summary without %q:\n%s", want, text.String())
		}
	}
	if _, err := (JSONRPC{URL: s.URL(), Steps: readSteps(t, testSteps), Out: dir}).Run(t.Context()); err == nil || !strings.Contains(err.Error(), "holds a crawl") {
		t.Errorf("a second crawl into the same directory: got %v; want a refusal", err)
	}
}

// A node that fails mid-crawl leaves the steps before written whole.
func TestJSONRPCStopped(t *testing.T) {
	t.Parallel()
	s := node(t, ethrpc.Config{Seed: 7, Blocks: 10, TxPerBlock: 3})
	dir := t.TempDir()
	steps := readSteps(t, testSteps)
	g := JSONRPC{URL: s.URL(), Steps: steps, Out: dir}
	g.Progress = func(p Progress) {
		if p.Step == "tx" && p.Done == 4 {
			s.Close() // the node goes away during step 3
		}
	}
	sum, err := g.Run(t.Context())
	if err == nil || !strings.Contains(err.Error(), "step 3 (tx, line 8): call 5 of 17") || !strings.Contains(err.Error(), "steps 1 to 2 are written") {
		t.Fatalf("got %v; want an error at call 5 of step 3", err)
	}
	st, err := ReadState(dir)
	if err != nil || st.Next != 3 || !mapsEqual(st.Requests, map[string]int{"eth_blockNumber": 1, "eth_getBlockByNumber": 8}) || st.Sent != 1+8+5 {
		t.Fatalf("state %+v, %v; want steps 1 and 2 written, 14 sent", st, err)
	}
	if sum.State.Sent != st.Sent {
		t.Errorf("summary sent %d; the file %d", sum.State.Sent, st.Sent)
	}
	checkFiles(t, dir, st)
	if _, err := os.Stat(filepath.Join(dir, TargetsFile("eth_getTransactionByHash"))); err == nil {
		t.Errorf("the unfinished step's file was written")
	}
}

func TestReadStepsErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ text, want string }{
		{"", "steps.yaml: empty: want a list of steps"},
		{"method: x\n", "steps.yaml:1:1: want a list of steps"},
		{"- method: [x\n", "steps.yaml:1:1: not valid YAML or JSON"},
		{"- name: a\n", "steps.yaml:1:3: want method:"},
		{"- method: a\n  parms: []\n", `steps.yaml:2:3: unknown key "parms"`},
		{"- method: a\n- method: a\n", `steps.yaml:2:3: name "a": line 1 has it already`},
		{"- method: a\n  params: [\"{{b.result}}\"]\n", `steps.yaml:2:12: "{{b.result}}": no earlier step is named b (want item or one of the steps before: )`},
		{"- method: a\n  params: [\"{{item}}\"]\n", `steps.yaml:2:12: "{{item}}": {{item}} is the item of a for_each, and this step has none`},
		{"- method: a\n  for_each: {from: 1, to: 3}\n- method: b\n  params: [\"{{a.result}}\"]\n", `steps.yaml:4:12: "{{a.result}}": step a (line 1) runs once per item of its for_each`},
		{"- method: a\n- method: b\n  params: [\"{{a.result[*]}}\"]\n", `steps.yaml:3:12: "{{a.result[*]}}": a path with * selects many values`},
		{"- method: a\n- method: b\n  params: [\"{{a.result[x]}}\"]\n", `steps.yaml:3:12: {{a.result[x]}}: JSON path "result[x]"`},
		{"- method: a\n  params: [\"{{item\"]\n", `steps.yaml:2:12: "{{item": want }} to close {{`},
		{"- method: a\n  for_each: 3\n", "steps.yaml:2:13: for_each: want \"{{STEP.PATH}}\""},
		{"- method: a\n  for_each: {from: 5, to: 3}\n", "steps.yaml:2:13: for_each: from 5 is after to 3"},
		{"- method: a\n  for_each: {from: -1, to: 3}\n", "steps.yaml:2:20: want a number of 0 or more"},
		{"- method: a\n  for_each: {from: 1}\n", "steps.yaml:2:13: for_each: a range wants from: and to:"},
		{"- method: a\n  limit: 0\n", "steps.yaml:2:10: limit: want a number of calls, 1 or more"},
		{`[{"method": "a"}, {"method": "b", "params": ["{{c}}"]}]`, `steps.yaml:1:46: "{{c}}": no earlier step is named c (want item or one of the steps before: a)`},
	} {
		_, err := ReadSteps("steps.yaml", strings.NewReader(tt.text))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: got %v; want %q", tt.text, err, tt.want)
		}
	}
}

// Templates keep the type of a value they stand for alone, and write the text of one inside a
// longer string.
func TestTemplateRender(t *testing.T) {
	t.Parallel()
	steps := readSteps(t, `- method: a
- method: b
  for_each: "{{a.result[*]}}"
  params: {"n": "{{item.n}}", "s": "x-{{item.s}}-{{item.n}}", "o": "{{item}}", "k": [1, null, true, "t"]}
`)
	item := json.RawMessage(`{"n":12,"s":"str","z":null}`)
	get := func(ref *Ref) ([]json.RawMessage, error) { return ref.Path.Select(item) }
	got, err := steps[1].Params.render(nil, get)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"n":12,"s":"x-str-12","o":{"n":12,"s":"str","z":null},"k":[1,null,true,"t"]}`; string(got) != want {
		t.Errorf("got %s; want %s", got, want)
	}
	steps = readSteps(t, "- method: a\n  for_each: {from: 1, to: 2}\n  params: [\"{{item.z}}\"]\n")
	if _, err := steps[0].Params.render(nil, get); err != errNoValue {
		t.Errorf("a null value: got %v; want errNoValue", err)
	}
}

// A call the node answers with an error is written and counted, and its answer's error member can
// feed later steps.
func TestJSONRPCErrorAnswers(t *testing.T) {
	t.Parallel()
	s := node(t, ethrpc.Config{Seed: 7, Blocks: 10, TxPerBlock: 3})
	dir := t.TempDir()
	steps := readSteps(t, `- name: bad
  method: eth_getBalance
  params: ["not an address", "latest"]
- name: code
  method: eth_getBlockByNumber
  params: ["{{bad.error.code}}", false]
`)
	sum, err := JSONRPC{URL: s.URL(), Steps: steps, Out: dir}.Run(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	st := sum.State
	if st.Requests["eth_getBalance"] != 1 || st.Errors["eth_getBalance"] != 1 || st.Requests["eth_getBlockByNumber"] != 1 {
		t.Fatalf("requests %v, errors %v; want one balance answered with an error, one block", st.Requests, st.Errors)
	}
	b, err := os.ReadFile(filepath.Join(dir, CallsFile("eth_getBlockByNumber")))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"method":"eth_getBlockByNumber","params":[-32602,false]}` + "\n"; string(b) != want {
		t.Errorf("got %s; want the error code of the answer before: %s", b, want)
	}
}
