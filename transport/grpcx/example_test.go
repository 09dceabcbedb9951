package grpcx_test

import (
	"context"
	"fmt"
	"time"

	"github.com/rpcbench/rpcbench/serve/items"
	"github.com/rpcbench/rpcbench/transport"
	"github.com/rpcbench/rpcbench/transport/grpcx"
)

// Call rpz.ItemService/CreateItem with a JSON body, the method described by a .proto file (the
// server here has no reflection; without Resolver the transport would ask reflection).
func Example() {
	s, err := items.New(items.Config{NoReflection: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	r, err := grpcx.FromProto(ctx, []string{"../../proto"}, "../../proto/rpz/items.proto")
	if err != nil {
		fmt.Println(err)
		return
	}
	tr := grpcx.New(grpcx.Options{Resolver: r, Conns: 2, Timeout: 5 * time.Second})
	defer tr.Close()

	req := &transport.Request{
		Scheme: "grpc",
		Host:   s.GRPCAddr(),
		Path:   []byte("/rpz.ItemService/CreateItem"),
		Body:   []byte(`{"id":"42","name":"gear"}`),
		Header: []transport.Header{{Name: "x-run", Value: "example"}},
	}
	if err := tr.Prepare(ctx, req); err != nil { // a wrong method or body fails here, before a run
		fmt.Println(err)
		return
	}
	var out transport.Outcome
	tr.Do(ctx, req, &out)
	fmt.Println(out.Class, out.Status, s.Len())

	req.Path = []byte("rpz.ItemService.GetItem") // ghz's spelling
	req.Body = []byte(`{"id":"43"}`)
	out.Reset()
	tr.Do(ctx, req, &out)
	fmt.Println(out.Class, out.Status, out.Err)
	// Output:
	// ok 0 1
	// status 5 grpc NotFound: items: no item with id "N"
}
