package ethrpc

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"testing"
)

// benchPost sends body over loopback HTTP from parallel clients, b.N times in all.
func benchPost(b *testing.B, s *Server, body []byte) {
	tr := &http.Transport{MaxIdleConnsPerHost: 64}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr}
	b.ReportAllocs()
	b.SetParallelism(4)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			resp, err := c.Post(s.URL(), "application/json", bytes.NewReader(body))
			if err != nil {
				b.Error(err)
				return
			}
			n, _ := io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || n == 0 {
				b.Errorf("got %d with %d bytes", resp.StatusCode, n)
				return
			}
		}
	})
}

func BenchmarkBlockNumber(b *testing.B) {
	s := start(b, Config{Blocks: 1000})
	benchPost(b, s, []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}`))
}

// BenchmarkGetBlock asks for a block with its full transactions (8 on average, ~10 kB of JSON).
func BenchmarkGetBlock(b *testing.B) {
	s := start(b, Config{Blocks: 1000})
	benchPost(b, s, []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_getBlockByNumber","params":["0x1f4",true]}`))
}

// BenchmarkStorageRange is the heavy call: 1,000 storage slots.
func BenchmarkStorageRange(b *testing.B) {
	s := start(b, Config{Blocks: 10})
	token := string(appendData(nil, s.chain.tokens[0][:]))
	benchPost(b, s, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":1,"method":"debug_storageRangeAt","params":[%q,0,%q,"0x",1000]}`, s.BlockHash(5), token))
}

// BenchmarkHandleGetBlock is the JSON-RPC layer alone, without HTTP.
func BenchmarkHandleGetBlock(b *testing.B) {
	s := start(b, Config{Blocks: 1000})
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_getBlockByNumber","params":["0x1f4",true]}`)
	var out []byte
	b.ReportAllocs()
	for b.Loop() {
		out = s.handle(body, out[:0])
	}
}

// BenchmarkNewChain builds a 10,000-block chain (what New does with the default Config).
func BenchmarkNewChain(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := newChain(b.Context(), 1, DefaultChainID, DefaultBlocks, DefaultTxPerBlock); err != nil {
			b.Fatal(err)
		}
	}
}
