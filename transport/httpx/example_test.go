package httpx_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/rpcbench/rpcbench/transport"
	"github.com/rpcbench/rpcbench/transport/httpx"
)

// A Transport sends reusable Requests and fills Outcomes; failures are data in the Outcome.
func ExampleTransport() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "item "+r.URL.Query().Get("id"))
	}))
	defer srv.Close()

	tr, err := httpx.New(httpx.Options{KeepBody: true})
	if err != nil {
		panic(err)
	}
	defer tr.Close()
	req := &transport.Request{
		Method: "GET", Scheme: "http", Host: srv.Listener.Addr().String(),
		Path: []byte("/v0/entity?id=42"),
	}
	var out transport.Outcome
	for range 2 {
		out.Reset()
		tr.Do(context.Background(), req, &out)
		fmt.Printf("%v %d %q opened=%v\n", out.Class, out.Status, out.Body, out.Opened)
	}
	// Output:
	// ok 200 "item 42" opened=true
	// ok 200 "item 42" opened=false
}
