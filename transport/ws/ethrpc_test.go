package ws

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/rpcbench/rpcbench/check"
	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/serve/ethrpc"
	"github.com/rpcbench/rpcbench/transport"
)

func startNode(t testing.TB) *ethrpc.Server {
	t.Helper()
	srv, err := ethrpc.New(context.Background(), ethrpc.Config{Blocks: 100})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// TestEthRPCNode runs calls, batches and failing calls concurrently over two connections to the
// built-in node, which answers in the order calls finish: every answer must be its call's.
func TestEthRPCNode(t *testing.T) {
	t.Parallel()
	node := startNode(t)
	tr := New(Options{Conns: 2, KeepBody: true})
	defer tr.Close()
	v := &check.Verifier{JSONRPC: true}
	var id atomic.Int64
	var wg sync.WaitGroup
	var mu sync.Mutex
	got := map[string]int{}
	for g := range 8 {
		wg.Go(func() {
			for k := range 25 {
				n := id.Add(2)
				var body string
				switch (g + k) % 4 {
				case 0:
					body = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"eth_getBlockByNumber","params":["0x%x",true]}`, n, k)
				case 1:
					body = fmt.Sprintf(`[{"jsonrpc":"2.0","id":%d,"method":"eth_blockNumber"},{"jsonrpc":"2.0","id":%d,"method":"eth_chainId"}]`, n-1, n)
				case 2:
					body = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"eth_nosuch"}`, n)
				default:
					body = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"eth_getBlockByNumber","params":["0x%x",false]}`, n, 1000+k)
				}
				r := request(node.WebSocketURL(), body)
				var out transport.Outcome
				tr.Do(context.Background(), r, &out)
				key := out.Class.String()
				if out.Class == result.OK {
					cl, err := v.Verify(r, &out)
					key = cl.String()
					if err != nil {
						key += ": " + err.Error()
					}
				}
				mu.Lock()
				got[key]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	// blocks past the head answer a null result, as geth does
	want := map[string]int{"ok": 150, "status: jsonrpc -32601 the method eth_nosuch does not exist/is not available": 50}
	if len(got) != len(want) {
		t.Errorf("outcomes %v; want %v", got, want)
	}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("%q: got %d; want %d (all: %v)", k, got[k], n, got)
		}
	}
}

// BenchmarkEthRPCParallel measures calls per second over 4 connections to the built-in node.
func BenchmarkEthRPCParallel(b *testing.B) {
	node := startNode(b)
	tr := New(Options{Conns: 4})
	defer tr.Close()
	var id atomic.Int64
	b.ReportAllocs()
	b.SetParallelism(8)
	b.RunParallel(func(pb *testing.PB) {
		var out transport.Outcome
		r := request(node.WebSocketURL(), "")
		for pb.Next() {
			r.Body = fmt.Appendf(r.Body[:0], `{"jsonrpc":"2.0","id":%d,"method":"eth_blockNumber"}`, id.Add(1))
			out.Reset()
			tr.Do(context.Background(), r, &out)
			if out.Class != result.OK {
				b.Error(out.Err)
				return
			}
		}
	})
}
