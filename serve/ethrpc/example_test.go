package ethrpc_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/rpcbench/rpcbench/serve/ethrpc"
)

func ExampleNew() {
	s, err := ethrpc.New(context.Background(), ethrpc.Config{Blocks: 100, Seed: 1})
	if err != nil {
		panic(err)
	}
	defer s.Close()

	resp, err := http.Post(s.URL(), "application/json", strings.NewReader(
		`[{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"},{"jsonrpc":"2.0","id":2,"method":"eth_nope"}]`))
	if err != nil {
		panic(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(string(body))
	// Output:
	// [{"jsonrpc":"2.0","id":1,"result":"0x63"},{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"the method eth_nope does not exist/is not available"}}]
}
