package ethrpc

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
)

// estimate is the gas schedule of eth_estimateGas and of the chain's own token transfers:
// Ethereum's intrinsic gas (21,000; 16 per non-zero and 4 per zero byte of data; 32,000 more to
// create a contract) plus, for a call to a token contract, 5,000 and 2,100 per argument word.
func estimate(data []byte, toContract, hasTo bool) uint64 {
	g := uint64(21_000)
	for _, b := range data {
		if b == 0 {
			g += 4
		} else {
			g += 16
		}
	}
	if !hasTo {
		g += 32_000
	}
	if toContract {
		var words uint64
		if len(data) > 4 {
			words = uint64(len(data)-4+31) / 32
		}
		g += 5_000 + 2_100*words
	}
	return g
}

// call runs eth_call's stand-in for execution (see the package doc) at block n. A non-empty
// revert means the call reverted, with that reason.
func (c *chain) call(to *address, data []byte, n uint64) (out []byte, revert string) {
	if to == nil {
		return nil, "" // creation: no code runs here
	}
	tok, ok := c.tokenIndex[*to]
	if !ok {
		return nil, "" // an account without code
	}
	if len(data) < 4 {
		return c.fallback(tok, data, n), ""
	}
	sel := binary.BigEndian.Uint32(data)
	args := data[4:]
	var w [32]byte
	switch sel {
	case selBalanceOf:
		if len(args) < 32 {
			return nil, "balanceOf: want a 32-byte address argument"
		}
		v := c.tokenBalance(tok, address(args[12:32]), n)
		return v[:], ""
	case selTransfer:
		if len(args) < 64 {
			return nil, "transfer: want address and amount arguments"
		}
		w[31] = 1 // true
		return w[:], ""
	case selTotalSupply:
		s := hashOf(domSupply, c.seed, uint64(tok))
		copy(w[20:], s[:12])
		return w[:], ""
	case selDecimals:
		w[31] = 18
		return w[:], ""
	case selName:
		return abiString(fmt.Sprintf("Synthetic Token %d", tok)), ""
	case selSymbol:
		return abiString(fmt.Sprintf("SYN%d", tok)), ""
	}
	return c.fallback(tok, data, n), ""
}

// fallback is what a token contract answers to an unknown selector: a 32-byte hash of the
// contract, the block and the call data.
func (c *chain) fallback(tok int, data []byte, n uint64) []byte {
	h := sha256.New()
	var b [32]byte
	binary.BigEndian.PutUint64(b[:], domFallback)
	binary.BigEndian.PutUint64(b[8:], c.seed)
	binary.BigEndian.PutUint64(b[16:], uint64(tok))
	binary.BigEndian.PutUint64(b[24:], n)
	h.Write(b[:])
	h.Write(data)
	return h.Sum(nil)
}

// tokenBalance is holder's balance of token tok at block n, as a uint256 word.
func (c *chain) tokenBalance(tok int, holder address, n uint64) [32]byte {
	var h hasher
	s := h.u64(domTokenBalance).u64(c.seed).u64(uint64(tok)).bytes(holder[:]).u64(n).sum()
	var w [32]byte
	copy(w[21:], s[:11])
	return w
}

// abiString is s ABI-encoded as a function's only return value.
func abiString(s string) []byte {
	out := make([]byte, 64+(len(s)+31)/32*32)
	out[31] = 0x20
	binary.BigEndian.PutUint64(out[56:], uint64(len(s)))
	copy(out[64:], s)
	return out
}

// storageSlots is how many storage slots token tok has.
func (c *chain) storageSlots(tok int) uint64 {
	r := newRNG(c.seed, domSlots, uint64(tok), 0)
	return 50_000 + r.n(450_000)
}

// slot is storage slot i of token tok at block n: its preimage key, hashed key and value. Values
// change every 256 blocks.
func (c *chain) slot(tok int, i, n uint64) (key, hashed, value [32]byte) {
	key = hashOf(domSlotKey, c.seed, uint64(tok), i)
	hashed = sha256.Sum256(key[:])
	v := hashOf(domSlotValue, c.seed, uint64(tok), i, n>>8)
	copy(value[20:], v[:12])
	return key, hashed, value
}
