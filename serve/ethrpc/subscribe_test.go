package ethrpc

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// wsCall sends body on c and returns the next message read (within the test's bound).
func wsCall(t *testing.T, ctx context.Context, c *websocket.Conn, body string) []byte {
	t.Helper()
	if err := c.Write(ctx, websocket.MessageText, []byte(body)); err != nil {
		t.Fatalf("write %s: %v", body, err)
	}
	return wsRead(t, ctx, c)
}

func wsRead(t *testing.T, ctx context.Context, c *websocket.Conn) []byte {
	t.Helper()
	_, m, err := c.Read(ctx)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	return m
}

// keysInOrder lists the members of a JSON object in the order they are written.
func keysInOrder(t *testing.T, obj []byte) []string {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(obj))
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %s", obj)
	}
	var keys []string
	for d.More() {
		k, err := d.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if err := d.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

var subIDForm = regexp.MustCompile(`^0x[1-9a-f][0-9a-f]{0,31}$`)

// The answer and the notifications have geth's shape: the id is 0x and up to 32 hex digits without
// leading zeros; a notification is {"jsonrpc","method":"eth_subscription","params":{"subscription",
// "result"}} (then the two rpcbench members); a header has geth's members in geth's order, each
// equal to what eth_getBlockByNumber says of the same block.
func TestSubscribeNewHeadsGethShape(t *testing.T) {
	t.Parallel()
	s := start(t, Config{Blocks: 5, BlockTime: 20 * time.Millisecond})
	c := dial(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var ans struct {
		Version string `json:"jsonrpc"`
		ID      int
		Result  string
	}
	raw := wsCall(t, ctx, c, `{"jsonrpc":"2.0","id":7,"method":"eth_subscribe","params":["newHeads"]}`)
	if err := json.Unmarshal(raw, &ans); err != nil || ans.ID != 7 || ans.Version != "2.0" || !subIDForm.MatchString(ans.Result) {
		t.Fatalf("answer %s: want {jsonrpc 2.0, id 7, result 0x…} (%v)", raw, err)
	}
	if got := keysInOrder(t, raw); strings.Join(got, ",") != "jsonrpc,id,result" {
		t.Errorf("answer members %v", got)
	}
	wantHeader := "parentHash,sha3Uncles,miner,stateRoot,transactionsRoot,receiptsRoot,logsBloom,difficulty,number,gasLimit,gasUsed,timestamp,extraData,mixHash,nonce,baseFeePerGas,hash"
	lastNumber := ""
	for i := range 3 {
		m := wsRead(t, ctx, c)
		if got := strings.Join(keysInOrder(t, m), ","); got != "jsonrpc,method,params" {
			t.Fatalf("notification members %s in %s", got, m)
		}
		var n struct {
			Method string
			Params struct {
				Subscription string
				Result       json.RawMessage
				Seq          uint64 `json:"rpcbenchSeq"`
				Stamp        int64  `json:"rpcbenchStampNs"`
			}
		}
		if err := json.Unmarshal(m, &n); err != nil {
			t.Fatal(err)
		}
		var params json.RawMessage
		json.Unmarshal(m, &struct{ Params *json.RawMessage }{&params}) //nolint:errcheck // decoded above
		if got := strings.Join(keysInOrder(t, params), ","); got != "subscription,result,rpcbenchSeq,rpcbenchStampNs" {
			t.Errorf("params members %s", got)
		}
		if n.Method != "eth_subscription" || n.Params.Subscription != ans.Result || n.Params.Seq != uint64(i+1) {
			t.Errorf("notification %d: method %q subscription %q seq %d", i, n.Method, n.Params.Subscription, n.Params.Seq)
		}
		if age := time.Since(time.Unix(0, n.Params.Stamp)); age < 0 || age > 10*time.Second {
			t.Errorf("stamp %d is %v from now", n.Params.Stamp, age)
		}
		if got := strings.Join(keysInOrder(t, n.Params.Result), ","); got != wantHeader {
			t.Errorf("header members\n%s, want\n%s", got, wantHeader)
		}
		var head map[string]json.RawMessage
		json.Unmarshal(n.Params.Result, &head) //nolint:errcheck // keysInOrder parsed it
		if n, err := parseQuantity(strings.Trim(string(head["number"]), `"`)); err != nil || n < 5 {
			t.Errorf("new head number %s; the chain was built to 0x4, new heads come after", head["number"])
		}
		if i > 0 && string(head["parentHash"]) != lastNumber {
			t.Errorf("head %s's parent %s is not the hash of the head before, %s", head["number"], head["parentHash"], lastNumber)
		}
		lastNumber = string(head["hash"])
		var blk struct{ Result map[string]json.RawMessage }
		postInto(t, s, `{"jsonrpc":"2.0","id":1,"method":"eth_getBlockByNumber","params":[`+string(head["number"])+`,false]}`, &blk)
		for k, v := range head {
			if string(blk.Result[k]) != string(v) {
				t.Errorf("head %s: %s is %s; eth_getBlockByNumber says %s", head["number"], k, v, blk.Result[k])
			}
		}
	}
}

func postInto(t *testing.T, s *Server, body string, into any) {
	t.Helper()
	_, b := post(t, s, body)
	if err := json.Unmarshal([]byte(b), into); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
}

// A logs subscription with an address filter gets one notification per Transfer of that token in
// each new block, counted independently from the block's transactions (eth_getBlockByNumber):
// those sent to the token with transfer's selector.
func TestSubscribeLogsFilter(t *testing.T) {
	t.Parallel()
	s := start(t, Config{Blocks: 2, BlockTime: 5 * time.Millisecond, TxPerBlock: 200})
	tok := strings.Trim(firstToken(t, s), `"`)
	c := dial(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ans := wsCall(t, ctx, c, `{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["logs",{"address":"`+tok+`","topics":["0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"]}]}`)
	var id struct{ Result string }
	if json.Unmarshal(ans, &id); !subIDForm.MatchString(id.Result) {
		t.Fatalf("answer %s", ans)
	}
	got := map[string]int{} // logs by block number
	for i := range 20 {
		var n struct {
			Params struct {
				Result json.RawMessage
			}
		}
		json.Unmarshal(wsRead(t, ctx, c), &n) //nolint:errcheck // checked by the fields
		// geth's Log, in its order (core/types/gen_log_json.go).
		if got, want := strings.Join(keysInOrder(t, n.Params.Result), ","), "address,topics,data,blockNumber,transactionHash,transactionIndex,blockHash,logIndex,removed"; got != want {
			t.Fatalf("log members %s; want geth's %s", got, want)
		}
		var r struct {
			Address, BlockNumber, Data, TransactionHash, TransactionIndex, BlockHash string
			Topics                                                                   []string
		}
		json.Unmarshal(n.Params.Result, &r) //nolint:errcheck // keysInOrder parsed it
		if r.Address != tok || len(r.Topics) != 3 || len(r.Data) != 66 {
			t.Fatalf("log %+v: want address %s, 3 topics, 32 bytes of data", r, tok)
		}
		if i == 0 { // the log's transaction, as eth_getTransactionByHash tells it
			var tx struct {
				Result struct{ BlockNumber, BlockHash, TransactionIndex, From, To, Input string }
			}
			postInto(t, s, `{"jsonrpc":"2.0","id":1,"method":"eth_getTransactionByHash","params":["`+r.TransactionHash+`"]}`, &tx)
			x := tx.Result
			if x.BlockNumber != r.BlockNumber || x.BlockHash != r.BlockHash || x.TransactionIndex != r.TransactionIndex || x.To != r.Address ||
				r.Topics[1] != "0x000000000000000000000000"+x.From[2:] || r.Topics[2] != "0x"+x.Input[10:74] || r.Data != "0x"+x.Input[74:] {
				t.Errorf("log %+v of transaction %+v", r, x)
			}
		}
		got[r.BlockNumber]++
	}
	// The last block seen may have more logs to come; count the others.
	checked := 0
	for num, n := range got {
		var blk struct {
			Result struct{ Transactions []struct{ To, Input string } }
		}
		postInto(t, s, `{"jsonrpc":"2.0","id":1,"method":"eth_getBlockByNumber","params":["`+num+`",true]}`, &blk)
		want := 0
		for _, x := range blk.Result.Transactions {
			if x.To == tok && strings.HasPrefix(x.Input, "0xa9059cbb") {
				want++
			}
		}
		if n > want {
			t.Errorf("block %s: %d logs of %s, but it has %d transfers of it", num, n, tok, want)
		}
		if n < want {
			checked-- // the last block, cut by the loop's bound: allowed once
		}
	}
	if checked < -1 {
		t.Errorf("%d blocks had fewer logs than transfers; only the last may", -checked)
	}
}

func TestUnsubscribe(t *testing.T) {
	t.Parallel()
	s := start(t, Config{Blocks: 2, BlockTime: time.Hour})
	c := dial(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var id struct{ Result string }
	json.Unmarshal(wsCall(t, ctx, c, `{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newPendingTransactions"]}`), &id) //nolint:errcheck
	for _, tc := range []struct{ body, want string }{
		{`{"jsonrpc":"2.0","id":2,"method":"eth_unsubscribe","params":["` + id.Result + `"]}`, `{"jsonrpc":"2.0","id":2,"result":true}`},
		{`{"jsonrpc":"2.0","id":3,"method":"eth_unsubscribe","params":["` + id.Result + `"]}`, `{"jsonrpc":"2.0","id":3,"error":{"code":-32000,"message":"subscription not found"}}`},
		{`{"jsonrpc":"2.0","id":4,"method":"eth_subscribe","params":["nope"]}`, `{"jsonrpc":"2.0","id":4,"error":{"code":-32601,"message":"no \"nope\" subscription in eth namespace"}}`},
	} {
		if got := wsCall(t, ctx, c, tc.body); string(got) != tc.want {
			t.Errorf("%s\n got %s\nwant %s", tc.body, got, tc.want)
		}
	}
	var e struct{ Error rpcErrorJSON }
	postInto(t, s, `{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}`, &e)
	if e.Error.Code != -32601 || e.Error.Message != "notifications not supported" {
		t.Errorf("over HTTP: %+v, want geth's -32601 notifications not supported", e.Error)
	}
}

type rpcErrorJSON struct {
	Code    int
	Message string
}

// newPendingTransactions notifies each new transaction's hash, one the node then finds.
func TestSubscribePendingTransactions(t *testing.T) {
	t.Parallel()
	s := start(t, Config{Blocks: 2, BlockTime: 10 * time.Millisecond, TxPerBlock: 5})
	c := dial(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	wsCall(t, ctx, c, `{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newPendingTransactions"]}`)
	for range 5 {
		var n struct{ Params struct{ Result string } }
		json.Unmarshal(wsRead(t, ctx, c), &n) //nolint:errcheck // checked below
		var tx struct{ Result struct{ Hash string } }
		postInto(t, s, `{"jsonrpc":"2.0","id":1,"method":"eth_getTransactionByHash","params":["`+n.Params.Result+`"]}`, &tx)
		if len(n.Params.Result) != 66 || tx.Result.Hash != n.Params.Result {
			t.Errorf("pending %q: the node finds %q", n.Params.Result, tx.Result.Hash)
		}
	}
}

// With AwaitSubscriptions, a bounded stream waits for its subscribers: a client that subscribes
// well after New (here 100 ms, when 3 blocks of 5 ms would long be out without it) gets every
// block, the first new one first.
func TestAwaitSubscriptions(t *testing.T) {
	t.Parallel()
	s := start(t, Config{Blocks: 5, BlockTime: 5 * time.Millisecond, NewBlocks: 3, AwaitSubscriptions: 1})
	<-time.After(100 * time.Millisecond) // the slow client
	if h := s.Head(); h != 4 {
		t.Errorf("head %d before any subscription; want 4, the chain as built", h)
	}
	c := dial(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	wsCall(t, ctx, c, `{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}`)
	for i := range 3 {
		var n struct {
			Params struct {
				Seq    uint64 `json:"rpcbenchSeq"`
				Result struct{ Number string }
			}
		}
		if err := json.Unmarshal(wsRead(t, ctx, c), &n); err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("0x%x", 5+i); n.Params.Seq != uint64(i+1) || n.Params.Result.Number != want {
			t.Errorf("notification %d: seq %d, head %s; want %d, %s", i, n.Params.Seq, n.Params.Result.Number, i+1, want)
		}
	}
}
