package jsondiff

import (
	"fmt"
	"strings"
	"testing"
)

// block writes an eth_getBlockByNumber answer with n transactions, its quantities in hex or, with
// decimal, as JSON numbers.
func block(n int, decimal bool) []byte {
	q := func(v int) string {
		if decimal {
			return fmt.Sprint(v)
		}
		return fmt.Sprintf(`"0x%x"`, v)
	}
	var txs []string
	for i := range n {
		txs = append(txs, fmt.Sprintf(`{"blockHash":"0x%064x","blockNumber":%s,"from":"0x%040x","gas":%s,"gasPrice":%s,`+
			`"hash":"0x%064x","input":"0x","nonce":%s,"to":"0x%040x","transactionIndex":%s,"value":%s,"type":"0x2",`+
			`"accessList":[],"chainId":"0x1","v":"0x1","r":"0x%064x","s":"0x%064x","yParity":"0x1"}`,
			7, q(1000), i, q(21000), q(1e9+i), i+1, q(i), i+2, q(i), q(i*1000), i+3, i+4))
	}
	return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"result":{"number":%s,"hash":"0x%064x","parentHash":"0x%064x",`+
		`"miner":"0x%040x","gasLimit":%s,"gasUsed":%s,"timestamp":%s,"extraData":"0x","uncles":[],"transactions":[%s]}}`,
		q(1000), 7, 6, 1, q(30e6), q(21000*n), q(1.7e9), strings.Join(txs, ",")))
}

// The cost of comparing two answers of a block of 100 transactions, one in hex and one in decimal.
func BenchmarkCompare(b *testing.B) {
	x, y := block(100, false), block(100, true)
	if d, err := Compare(x, y, nil); err != nil || len(d) != 0 {
		b.Fatalf("%v %v", d, err)
	}
	b.SetBytes(int64(len(x) + len(y)))
	b.ReportAllocs()
	for b.Loop() {
		Compare(x, y, nil)
	}
}

func BenchmarkDecode(b *testing.B) {
	x := block(100, false)
	b.SetBytes(int64(len(x)))
	b.ReportAllocs()
	for b.Loop() {
		Decode(x)
	}
}
