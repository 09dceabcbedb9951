package mesh_test

import (
	"context"
	"fmt"

	"github.com/rpcbench/rpcbench/serve/mesh"
)

func ExampleStart() {
	m, err := mesh.Start(mesh.Config{Transport: mesh.GRPC})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer m.Close()
	// The same as POST m.URL()+"/peer/hop" with {"queue":["A","B","C","D","E"],"limit":12}.
	r, err := m.Gateway().Hop(context.Background(), mesh.HopRequest{Queue: mesh.DefaultNames(), Limit: 12})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("hops:", r.State.HopCount, "ended at:", r.State.Last, "next would be:", r.State.Queue[r.State.QueueIdx], "latency measured:", r.State.HopLatency > 0)
	fmt.Println("hops that arrived at A:", m.Peer("A").Hops())
	// Output:
	// hops: 12 ended at: B next would be: C latency measured: true
	// hops that arrived at A: 3
}
