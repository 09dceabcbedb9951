package jsondiff_test

import (
	"fmt"

	"github.com/rpcbench/rpcbench/tools/jsondiff"
)

// Two nodes answer one call: the quantities are written in hex by one and in decimal by the other,
// the timestamp is ignored, and one transaction hash differs.
func ExampleCompare() {
	a := []byte(`{"jsonrpc":"2.0","id":1,"result":{"number":"0x1b4","timestamp":"0x5f5e100","transactions":["0xaa","0xbb"]}}`)
	b := []byte(`{"jsonrpc":"2.0","id":1,"result":{"number":436,"timestamp":"0x5f5e101","transactions":["0xaa","0xbc"]}}`)
	o := &jsondiff.Options{Ignore: []jsondiff.Pattern{jsondiff.MustPattern("result.timestamp")}}
	diffs, err := jsondiff.Compare(a, b, o)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, d := range diffs {
		fmt.Println(d)
	}
	// Output:
	// result.transactions[1]: changed: "0xbb" (string) ≠ "0xbc" (string)
}
