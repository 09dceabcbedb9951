package kv_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/rpcbench/rpcbench/serve/kv"
)

func ExampleNew() {
	s, err := kv.New(context.Background(), kv.Config{Prefill: kv.Prefill{Keys: 1000, ValueBytes: 8}})
	if err != nil {
		panic(err)
	}
	defer s.Close() // waits for requests in flight, closes the store, removes its temporary dir

	req, _ := http.NewRequest(http.MethodPut, s.URL()+"/v0/entity?id=greeting", strings.NewReader("hello"))
	resp, _ := http.DefaultClient.Do(req)
	resp.Body.Close()
	fmt.Println("PUT:", resp.StatusCode)

	resp, _ = http.Get(s.URL() + "/v0/entity?id=greeting")
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println("GET:", resp.StatusCode, string(body))

	resp, _ = http.Get(s.URL() + "/v0/entity?id=" + kv.PrefillKey(999))
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println("prefilled:", resp.StatusCode, string(body) == string(kv.PrefillValue(999, 8)))
	// Output:
	// PUT: 201
	// GET: 200 hello
	// prefilled: 200 true
}
