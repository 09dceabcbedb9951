package schedule_test

import (
	"fmt"
	"time"

	"github.com/rpcbench/rpcbench/schedule"
)

// The second of eight generators sends arrivals 1, 9, 17, … of the whole schedule, at their due
// times in it: 1000/s for 1 s is 125 arrivals each.
func ExampleStripe() {
	seg, err := schedule.ParseSegment("2/8", "")
	if err != nil {
		panic(err)
	}
	stripe, err := schedule.NewStripe(seg)
	if err != nil {
		panic(err)
	}
	whole, err := schedule.Constant(1000, time.Second)
	if err != nil {
		panic(err)
	}
	part := schedule.Striped{S: whole, P: stripe}
	for k := range uint64(3) {
		due, _ := part.At(k)
		fmt.Printf("arrival %d of the part is arrival %d of the whole, due at %v\n", k, stripe.Global(k), due)
	}
	fmt.Println("the part's share of 1000 arrivals:", stripe.Count(1000), "as the range", seg)
	// Output:
	// arrival 0 of the part is arrival 1 of the whole, due at 1ms
	// arrival 1 of the part is arrival 9 of the whole, due at 9ms
	// arrival 2 of the part is arrival 17 of the whole, due at 17ms
	// the part's share of 1000 arrivals: 125 as the range 1/8:1/4
}
