package gen

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/serve/ethrpc"
)

func node(t *testing.T, cfg ethrpc.Config) *ethrpc.Server {
	t.Helper()
	s, err := ethrpc.New(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// fetchBlock asks the node for block n with a plain POST: the test's own route to the chain.
func fetchBlock(t *testing.T, url string, n uint64) ethBlock {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"eth_getBlockByNumber","params":["` + quantity(n) + `",true]}`
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var a struct{ Result ethBlock }
	if err := json.NewDecoder(resp.Body).Decode(&a); err != nil {
		t.Fatal(err)
	}
	return a.Result
}

// expected counts the requests a crawl of blocks from…to of the built-in node writes, from the
// blocks themselves: the node has no receipts, logs, traces, code, storage slots or nonces, so
// only these methods are written, each as the walk's order says.
func expected(t *testing.T, url string, from, to uint64, pages int) map[string]int {
	want := map[string]int{"eth_blockNumber": 1}
	for n := from; n <= to; n++ {
		b := fetchBlock(t, url, n)
		want["eth_getBlockByNumber"]++
		want["eth_getBlockByHash"]++
		accounts := map[string]bool{}
		contracts := map[string]bool{}
		for _, tx := range b.Transactions {
			want["eth_getTransactionByHash"]++
			accounts[tx.From] = true
			accounts[*tx.To] = true
			if tx.Input != "0x" { // a token transfer: a call and an estimate
				want["eth_call"]++
				want["eth_estimateGas"]++
				contracts[*tx.To] = true
			}
		}
		want["eth_getBalance"] += len(accounts)
		// every token holds 50,000 slots or more: each page of 16 has a next one
		want["debug_storageRangeAt"] += len(contracts) * pages
	}
	for m, n := range want {
		if n == 0 {
			delete(want, m)
		}
	}
	return want
}

// missing are the methods the built-in node does not have.
var missing = []string{"debug_traceTransaction", "eth_getCode", "eth_getLogs", "eth_getStorageAt", "eth_getTransactionCount", "eth_getTransactionReceipt"}

// checkFiles reads every file back as run and diff read them and counts the lines per method.
func checkFiles(t *testing.T, dir string, st *State) {
	t.Helper()
	for m, n := range st.Requests {
		tf := filepath.Join(dir, TargetsFile(m))
		f, err := os.Open(tf)
		if err != nil {
			t.Fatal(err)
		}
		tg, err := plan.ReadTargets(tf, f, plan.TargetsJSON, dir)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", tf, err)
		}
		if len(tg.Entries) != n {
			t.Errorf("%s: got %d targets; want %d", tf, len(tg.Entries), n)
		}
		for i, e := range tg.Entries {
			var call struct {
				ID     int
				Method string
			}
			if err := json.Unmarshal(e.Body, &call); err != nil || call.Method != m || call.ID != i+1 || e.Method != "POST" {
				t.Errorf("%s:%d: body %s: want a %s call with id %d", tf, i+1, e.Body, m, i+1)
				break
			}
		}
		cf := filepath.Join(dir, CallsFile(m))
		f, err = os.Open(cf)
		if err != nil {
			t.Fatal(err)
		}
		calls, err := plan.ParseCalls(f, cf)
		f.Close()
		if err != nil || len(calls) != n {
			t.Errorf("%s: got %d calls, %v; want %d", cf, len(calls), err, n)
		}
	}
}

// A crawl of the built-in node writes, per method, as many requests as its blocks hold
// transactions, accounts and contracts, and skips the methods the node does not have.
func TestEthereumCorpus(t *testing.T) {
	t.Parallel()
	s := node(t, ethrpc.Config{Seed: 7, Blocks: 10, TxPerBlock: 3})
	dir := t.TempDir()
	sum, err := Ethereum{URL: s.URL(), From: 2, Latest: true, Out: dir, StoragePageSize: 16}.Run(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	st := sum.State
	// Blocks 2 to 9 of seed 7 hold 5, 0, 1, 4, 4, 0, 2 and 1 transactions (17); 4 are token
	// transfers, to 4 tokens in their blocks; no account is met twice in a block. So: 8 blocks by
	// number and by hash, 17 transactions by hash, 34 balances (a sender and a receiver each), a call
	// and an estimate per transfer, and 2 storage pages per token.
	byHand := map[string]int{"eth_blockNumber": 1, "eth_getBlockByNumber": 8, "eth_getBlockByHash": 8,
		"eth_getTransactionByHash": 17, "eth_getBalance": 34, "eth_call": 4, "eth_estimateGas": 4, "debug_storageRangeAt": 8}
	// the same figures from the blocks as the node serves them
	if want := expected(t, s.URL(), 2, 9, DefaultStoragePages); !mapsEqual(want, byHand) {
		t.Fatalf("the chain's blocks give %v; the hand count %v", want, byHand)
	}
	if !mapsEqual(st.Requests, byHand) {
		t.Errorf("requests per method: got %v; want %v", st.Requests, byHand)
	}
	var skipped []string
	for m, note := range st.Skipped {
		skipped = append(skipped, m)
		if !strings.Contains(note, "-32601") {
			t.Errorf("%s skipped with %q; want the node's -32601 answer", m, note)
		}
	}
	slices.Sort(skipped)
	if !slices.Equal(skipped, missing) {
		t.Errorf("skipped %v; want %v", skipped, missing)
	}
	if st.To != 9 || st.Next != 10 || len(st.Errors) != 0 {
		t.Errorf("state: to %d, next %d, errors %v; want 9, 10, none", st.To, st.Next, st.Errors)
	}
	sent := len(missing) // each missing method was asked once
	for _, n := range st.Requests {
		sent += n
	}
	if st.Sent != sent {
		t.Errorf("sent %d requests; want %d: one per request written and one per missing method", st.Sent, sent)
	}
	checkFiles(t, dir, st)
	if _, err := (Ethereum{URL: s.URL(), From: 2, Latest: true, Out: dir}).Run(t.Context()); err == nil || !strings.Contains(err.Error(), "holds a crawl") {
		t.Errorf("a second crawl into the same directory: got %v; want a refusal", err)
	}
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// readAll reads every file of dir but the state, by name.
func readAll(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, e := range ents {
		if e.Name() == StateFile {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = b
	}
	return out
}

// A node that stops answering JSON mid-crawl, or a crawl cut short, leaves files that hold whole
// blocks; resumed, the crawl writes the same files as one that was never stopped.
func TestEthereumResume(t *testing.T) {
	t.Parallel()
	cfg := ethrpc.Config{Seed: 11, Blocks: 8, TxPerBlock: 2}
	full := t.TempDir()
	ref := node(t, cfg)
	if _, err := (Ethereum{URL: ref.URL(), From: 1, To: 7, Out: full, StoragePageSize: 8}).Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	want := readAll(t, full)

	var broken atomic.Value // "": healthy; "html": the node answers HTML; "cut": it drops the connection
	broken.Store("")
	cfg.Wrap = func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch broken.Load() {
			case "html":
				w.Header().Set("Content-Type", "text/html")
				w.WriteHeader(http.StatusBadGateway)
				w.Write([]byte("<html><body>502 Bad Gateway</body></html>"))
			case "cut":
				panic(http.ErrAbortHandler) // the connection is cut
			default:
				h.ServeHTTP(w, r)
			}
		})
	}
	s := node(t, cfg)
	// Blocks 1 to 3 of seed 11 hold 4 transactions, one a token transfer; no account is met twice
	// in a block: 3 blocks by number and by hash, 4 transactions, 8 balances, a call, an estimate
	// and 2 storage pages of the token, and the head.
	byHand := map[string]int{"eth_blockNumber": 1, "eth_getBlockByNumber": 3, "eth_getBlockByHash": 3,
		"eth_getTransactionByHash": 4, "eth_getBalance": 8, "eth_call": 1, "eth_estimateGas": 1, "debug_storageRangeAt": 2}
	if want := expected(t, ref.URL(), 1, 3, DefaultStoragePages); !mapsEqual(want, byHand) {
		t.Fatalf("the chain's blocks give %v; the hand count %v", want, byHand)
	}
	// Sent: the 23 requests written, one per missing method, and block 4's first request when the
	// node fails it; none of block 4 when the crawl is cancelled before it.
	failed := `gen: block 4: eth_getBlockByNumber ["0x4",true]: `
	for _, tt := range []struct {
		name, mode string
		wantErr    string
		sent       int
	}{
		{"non-JSON answer", "html", failed + `the node answered HTTP 502 with text/html, not a JSON-RPC answer: "<html><body>502 Bad Gateway</body></html>" (blocks 1 to 3 are written)`, 30},
		{"connection cut", "cut", failed + `no answer: Post "` + s.URL() + `": EOF (blocks 1 to 3 are written)`, 30},
		{"interrupted", "cancel", "gen: stopped at block 4 (blocks 1 to 3 are written): context canceled", 29},
	} {
		dir := t.TempDir()
		ctx, cancel := context.WithCancel(t.Context())
		stopAfter := uint64(3) // blocks 1 to 3 written, then the node fails in block 4
		g := Ethereum{URL: s.URL(), From: 1, To: 7, Out: dir, StoragePageSize: 8, Progress: func(p Progress) {
			if p.Block == stopAfter {
				if tt.mode == "cancel" {
					cancel()
				} else {
					broken.Store(tt.mode)
				}
			}
		}}
		_, err := g.Run(ctx)
		cancel()
		if err == nil || err.Error() != tt.wantErr {
			t.Fatalf("%s: got %v;\nwant %s", tt.name, err, tt.wantErr)
		}
		st, err := ReadState(dir)
		if err != nil || st.Next != 4 || st.Sent != tt.sent || !mapsEqual(st.Requests, byHand) || len(st.Errors) != 0 {
			t.Fatalf("%s: state %+v, %v; want next block 4, %d sent, requests %v, no errors", tt.name, st, err, tt.sent, byHand)
		}
		checkFiles(t, dir, st)

		broken.Store("") // healthy again
		g.Progress, g.Resume = nil, true
		sum, err := g.Run(t.Context())
		if err != nil || sum.Resumed == nil || *sum.Resumed != 4 {
			t.Fatalf("%s: resume: %v, %+v", tt.name, err, sum)
		}
		got := readAll(t, dir)
		for name, b := range want {
			b = bytes.ReplaceAll(b, []byte(ref.URL()), []byte(s.URL()))
			if !bytes.Equal(got[name], b) {
				t.Errorf("%s: resumed %s differs from an uninterrupted crawl's:\n%s\nwant:\n%s", tt.name, name, got[name], b)
			}
		}
		if len(got) != len(want) {
			t.Errorf("%s: resumed crawl wrote %d files; want %d", tt.name, len(got), len(want))
		}
	}
}

// Progress tells, after each block, the block just written, how many of the crawl's blocks are
// written (a resumed crawl counting those of the run before) out of how many, and the requests
// written so far.
func TestEthereumProgress(t *testing.T) {
	t.Parallel()
	s := node(t, ethrpc.Config{Seed: 7, Blocks: 10, TxPerBlock: 3})
	dir := t.TempDir()
	var got []Progress
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	g := Ethereum{URL: s.URL(), From: 2, To: 6, Out: dir, StoragePageSize: 16, Progress: func(p Progress) {
		got = append(got, p)
		if p.Block == 3 {
			cancel() // blocks 2 and 3 written; the rest is resumed
		}
	}}
	if _, err := g.Run(ctx); err == nil {
		t.Fatal("a cancelled crawl: no error")
	}
	g.Resume = true
	sum, err := g.Run(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	// Blocks 2 to 6 are 5 blocks: block n is the (n-1)th written.
	want := []struct{ block, done uint64 }{{2, 1}, {3, 2}, {4, 3}, {5, 4}, {6, 5}}
	if len(got) != len(want) {
		t.Fatalf("%d progress calls %+v; want %d, one per block", len(got), got, len(want))
	}
	for i, w := range want {
		p := got[i]
		// requests written by the end of block n: the head, and those of blocks 2 to n
		requests := 0
		for _, c := range expected(t, s.URL(), 2, w.block, DefaultStoragePages) {
			requests += c
		}
		if p.Block != w.block || p.Done != w.done || p.Total != 5 || p.Requests != requests || p.Step != "" {
			t.Errorf("progress %d: %+v; want block %d, %d of 5 done, %d requests", i+1, p, w.block, w.done, requests)
		}
	}
	if last := got[len(got)-1]; last.Sent != sum.State.Sent {
		t.Errorf("last progress: %d sent; the state says %d", last.Sent, sum.State.Sent)
	}
}
