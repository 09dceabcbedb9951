package contention_test

import (
	"context"
	"fmt"

	"github.com/rpcbench/rpcbench/tools/contention"
)

func ExampleRun() {
	rs, err := contention.Run(context.Background(), contention.Config{Goroutines: 4, Iterations: 1000, Shards: 4})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range rs {
		fmt.Println(r.Kind, r.Count, r.OK())
	}
	// Output:
	// mutex 4000 true
	// atomic 4000 true
	// sharded 4000 true
	// sharded-padded 4000 true
	// channel 4000 true
}
