package ethrpc

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/rpcbench/rpcbench/internal/testnet"
)

func dial(t *testing.T, s *Server) *websocket.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, s.WebSocketURL(), nil)
	if err != nil {
		t.Fatalf("dial %s: %v", s.WebSocketURL(), err)
	}
	c.SetReadLimit(64 << 20)
	t.Cleanup(func() { c.CloseNow() })
	return c
}

func TestWebSocketConcurrentCalls(t *testing.T) {
	t.Parallel()
	s := start(t, Config{Blocks: 200})
	c := dial(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	// 4 writers send 30 calls each, of several methods, with distinct ids; one reader matches
	// the answers to the calls by id, whatever their order.
	const writers, perWriter = 4, 30
	bodies := map[int]string{}
	for w := range writers {
		for i := range perWriter {
			id := w*perWriter + i
			var call string
			switch id % 4 {
			case 0:
				call = `"method":"eth_blockNumber"`
			case 1:
				call = fmt.Sprintf(`"method":"eth_getBlockByNumber","params":["0x%x",true]`, id%200)
			case 2:
				call = fmt.Sprintf(`"method":"debug_storageRangeAt","params":[%q,0,%s,"0x",%d]`, s.BlockHash(7), firstToken(t, s), 10+id)
			case 3:
				call = `"method":"eth_nope"`
			}
			bodies[id] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,%s}`, id, call)
		}
	}
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range perWriter {
				if err := c.Write(ctx, websocket.MessageText, []byte(bodies[w*perWriter+i])); err != nil {
					t.Errorf("write: %v", err)
					return
				}
			}
		})
	}
	got := map[int]string{}
	for len(got) < writers*perWriter {
		_, msg, err := c.Read(ctx)
		if err != nil {
			t.Fatalf("read after %d answers: %v", len(got), err)
		}
		var a answer
		if err := json.Unmarshal(msg, &a); err != nil {
			t.Fatalf("answer %q: %v", msg, err)
		}
		var id int
		if err := json.Unmarshal(a.ID, &id); err != nil {
			t.Fatalf("answer %q has id %s; want a number", msg, a.ID)
		}
		if _, dup := got[id]; dup {
			t.Fatalf("two answers for id %d", id)
		}
		got[id] = string(msg)
	}
	wg.Wait()
	// Every answer is the one HTTP gives for the same call.
	for id, body := range bodies {
		if _, want := post(t, s, body); got[id] != want {
			t.Errorf("id %d: WebSocket answer\n%.200s\ndiffers from HTTP's\n%.200s", id, got[id], want)
		}
	}
}

func TestWebSocketBatchAndNotification(t *testing.T) {
	t.Parallel()
	s := start(t, Config{Blocks: 10})
	c := dial(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// A notification gets no answer, so the first answer read is the batch's.
	for _, m := range []string{
		`{"jsonrpc":"2.0","method":"eth_blockNumber"}`,
		`[{"jsonrpc":"2.0","id":1,"method":"eth_chainId"},{"jsonrpc":"2.0","method":"eth_chainId"},{"jsonrpc":"2.0","id":2,"method":"net_version"}]`,
		`[]`,
		`{bad`,
	} {
		if err := c.Write(ctx, websocket.MessageText, []byte(m)); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{
		`[{"jsonrpc":"2.0","id":1,"result":"0x539"},{"jsonrpc":"2.0","id":2,"result":"1337"}]`,
		fmt.Sprintf(`"code":%d`, CodeInvalidRequest),
		fmt.Sprintf(`"code":%d`, CodeParseError),
	}
	got := map[string]bool{}
	for range want {
		_, msg, err := c.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got[string(msg)] = true
	}
	if !got[want[0]] {
		t.Errorf("batch over WebSocket: got %v; want %s", got, want[0])
	}
	for _, w := range want[1:] {
		found := false
		for m := range got {
			found = found || strings.Contains(m, w)
		}
		if !found {
			t.Errorf("got %v; want an answer with %s", got, w)
		}
	}
}

func TestCloseSaysGoingAway(t *testing.T) {
	t.Parallel()
	s, err := New(context.Background(), Config{Blocks: 10})
	if err != nil {
		t.Fatal(err)
	}
	c := dial(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// One call answered proves the connection is up before Close.
	if err := c.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}`)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Read(ctx); err != nil {
		t.Fatal(err)
	}
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	_, _, err = c.Read(ctx)
	if got := websocket.CloseStatus(err); got != websocket.StatusGoingAway {
		t.Errorf("read after Close: got %v (status %d); want status %d", err, got, websocket.StatusGoingAway)
	}
	select {
	case err := <-closed:
		if err != nil {
			t.Errorf("Close: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("Close did not return")
	}
	// The listener is closed. (Asked of the listener itself: listening again on the freed port
	// would fail whenever a parallel test had been given it, and a refused dial proves nothing
	// when such a test answers.)
	if err := testnet.Closed(s.ln); err != nil {
		t.Errorf("after Close: %v", err)
	}
}
