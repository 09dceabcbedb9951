package ethrpc

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"sync"
)

// Sizes of the synthetic world.
const (
	numAccounts   = 1000
	numValidators = 8
	numTokens     = 16
	blockGasLimit = 30_000_000
	blockInterval = 12 // seconds between blocks
)

// Domains keep the PRNG streams and hashes of different things apart.
const (
	domAccount uint64 = iota + 1
	domToken
	domBlock
	domTx
	domState
	domRandao
	domBalance
	domTokenBalance
	domSupply
	domSlotKey
	domSlotValue
	domSlots
	domFallback
	domGenesis
)

// emptyRoot is the root of an empty trie, which real nodes show for a block without transactions.
var emptyRoot = [32]byte{0x56, 0xe8, 0x1f, 0x17, 0x1b, 0xcc, 0x55, 0xa6, 0xff, 0x83, 0x45, 0xe6, 0x92, 0xc0, 0xf8, 0x6e, 0x5b, 0x48, 0xe0, 0x1b, 0x99, 0x6c, 0xad, 0xc0, 0x01, 0x62, 0x2f, 0xb5, 0xe3, 0x63, 0xb4, 0x21}

// rng is splitmix64: tiny, fast and the same on every platform and Go version, so a seed gives
// the same chain everywhere.
type rng struct{ s uint64 }

func newRNG(seed, dom, a, b uint64) rng {
	return rng{s: mix(mix(mix(seed^dom*0x9E3779B97F4A7C15)^a) ^ b*0xD1B54A32D192ED03)}
}

func mix(z uint64) uint64 {
	z += 0x9E3779B97F4A7C15
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

func (r *rng) u64() uint64 { r.s += 0x9E3779B97F4A7C15; return mix(r.s) }

// n returns a number in [0, k); the modulo bias is below 2^-40 for the k used here.
func (r *rng) n(k uint64) uint64 { return r.u64() % k }

func (r *rng) fill(b []byte) {
	for i := 0; i < len(b); i += 8 {
		var w [8]byte
		binary.LittleEndian.PutUint64(w[:], r.u64())
		copy(b[i:], w[:])
	}
}

// hasher builds the input of one SHA-256 from numbers and byte strings without allocating.
type hasher struct {
	buf [256]byte
	n   int
}

func (h *hasher) u64(v uint64) *hasher {
	binary.BigEndian.PutUint64(h.buf[h.n:], v)
	h.n += 8
	return h
}

func (h *hasher) bytes(b []byte) *hasher { h.n += copy(h.buf[h.n:], b); return h }

func (h *hasher) sum() [32]byte { return sha256.Sum256(h.buf[:h.n]) }

// hashOf is SHA-256 over a domain, the seed and numbers.
func hashOf(dom, seed uint64, vals ...uint64) [32]byte {
	var h hasher
	h.u64(dom).u64(seed)
	for _, v := range vals {
		h.u64(v)
	}
	return h.sum()
}

type address = [20]byte

// tx is one synthetic transaction.
type tx struct {
	block      uint64
	index      int
	hash       [32]byte
	typ        uint8 // 0 legacy, 2 EIP-1559
	nonce      uint64
	from, to   address
	value      [16]byte // wei, big-endian
	gas        uint64   // the sender's limit
	gasUsed    uint64
	gasPrice   uint64 // what was paid per gas: base fee + tip
	maxFee     uint64 // type 2 only
	maxTip     uint64 // type 2 only
	input      []byte
	yParity    uint64
	sigR, sigS [32]byte
}

// block is one synthetic block with its transactions.
type block struct {
	number       uint64
	hash, parent [32]byte
	timestamp    uint64
	miner        address
	stateRoot    [32]byte
	txRoot       [32]byte
	receiptsRoot [32]byte
	mixHash      [32]byte
	gasUsed      uint64
	baseFee      uint64
	size         uint64
	txs          []tx
}

// chain is the generated world. It is safe for concurrent use: it only grows, by grow (new blocks
// at the server's block time), and mu guards what growing changes.
type chain struct {
	seed, chainID uint64
	avgTxs        uint64
	genesisTime   uint64
	mu            sync.RWMutex // guards hashes, byHash, txByPrefix and txByHash
	hashes        [][32]byte   // block hashes by number
	byHash        map[[32]byte]uint64
	txByPrefix    map[uint64]uint64 // first 8 bytes of a tx hash → number<<16 | index
	txByHash      map[[32]byte]uint64
	accounts      []address
	accountSet    map[address]struct{}
	tokens        []address
	tokenIndex    map[address]int
}

// collided marks a tx hash prefix shared by two transactions: look in txByHash.
const collided = ^uint64(0)

func newChain(ctx context.Context, seed, chainID, blocks, avgTxs uint64) (*chain, error) {
	c := &chain{
		seed: seed, chainID: chainID, avgTxs: avgTxs,
		hashes:     make([][32]byte, blocks),
		byHash:     make(map[[32]byte]uint64, blocks),
		txByPrefix: make(map[uint64]uint64, blocks*avgTxs),
		txByHash:   map[[32]byte]uint64{},
		accountSet: make(map[address]struct{}, numAccounts),
		tokenIndex: make(map[address]int, numTokens),
	}
	g := newRNG(seed, domGenesis, 0, 0)
	c.genesisTime = 1_600_000_000 + g.n(100_000_000)
	for i := range uint64(numAccounts) {
		h := hashOf(domAccount, seed, i)
		a := address(h[12:])
		c.accounts = append(c.accounts, a)
		c.accountSet[a] = struct{}{}
	}
	for i := range numTokens {
		h := hashOf(domToken, seed, uint64(i))
		a := address(h[12:])
		c.tokens = append(c.tokens, a)
		c.tokenIndex[a] = i
	}
	var parent [32]byte
	for n := range blocks {
		if n%4096 == 0 && ctx.Err() != nil {
			return nil, fmt.Errorf("ethrpc: building the chain stopped at block %d of %d: %w", n, blocks, ctx.Err())
		}
		b := c.build(n, parent)
		c.hashes[n] = b.hash
		c.byHash[b.hash] = n
		for i := range b.txs {
			c.indexTx(&b.txs[i])
		}
		parent = b.hash
	}
	return c, nil
}

func (c *chain) indexTx(t *tx) {
	p := binary.BigEndian.Uint64(t.hash[:8])
	loc := t.block<<16 | uint64(t.index)
	old, ok := c.txByPrefix[p]
	if !ok {
		c.txByPrefix[p] = loc
		return
	}
	if old != collided {
		o := c.tx(old>>16, int(old&0xffff), c.baseFee(old>>16))
		c.txByHash[o.hash] = old
		c.txByPrefix[p] = collided
	}
	c.txByHash[t.hash] = loc
}

func (c *chain) head() uint64 {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return uint64(len(c.hashes)) - 1
}

// hashAt is the hash of block n (n ≤ head).
func (c *chain) hashAt(n uint64) [32]byte {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.hashes[n]
}

// number is the number of the block with hash h; ok=false when the chain has none.
func (c *chain) number(h [32]byte) (n uint64, ok bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	n, ok = c.byHash[h]
	return n, ok
}

// grow appends the next block to the chain and returns it.
func (c *chain) grow() block {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := uint64(len(c.hashes))
	b := c.build(n, c.hashes[n-1])
	c.hashes = append(c.hashes, b.hash)
	c.byHash[b.hash] = n
	for i := range b.txs {
		c.indexTx(&b.txs[i])
	}
	return b
}

// blockAt returns block n (n ≤ head).
func (c *chain) blockAt(n uint64) block {
	var parent [32]byte
	if n > 0 {
		parent = c.hashAt(n - 1)
	}
	return c.build(n, parent)
}

// txLookup finds a transaction; ok=false when the chain has none with that hash.
func (c *chain) txLookup(h [32]byte) (t tx, blockHash [32]byte, ok bool) {
	c.mu.RLock()
	loc, ok := c.txByPrefix[binary.BigEndian.Uint64(h[:8])]
	if ok && loc == collided {
		loc, ok = c.txByHash[h]
	}
	if !ok {
		c.mu.RUnlock()
		return tx{}, blockHash, false
	}
	n := loc >> 16
	blockHash = c.hashes[n]
	c.mu.RUnlock()
	t = c.tx(n, int(loc&0xffff), c.baseFee(n))
	return t, blockHash, t.hash == h
}

func (c *chain) baseFee(n uint64) uint64 {
	r := newRNG(c.seed, domBlock, n, 1)
	return 1_000_000_000 + r.n(20_000_000_000)
}

// build generates block n on top of parent.
func (c *chain) build(n uint64, parent [32]byte) block {
	r := newRNG(c.seed, domBlock, n, 0)
	b := block{number: n, parent: parent, timestamp: c.genesisTime + blockInterval*n, baseFee: c.baseFee(n)}
	b.miner = c.accounts[r.n(numValidators)]
	count := uint64(0)
	if n > 0 {
		count = r.n(2*c.avgTxs + 1)
	}
	b.txs = make([]tx, count)
	b.size = 620
	for i := range b.txs {
		b.txs[i] = c.tx(n, i, b.baseFee)
		b.gasUsed += b.txs[i].gasUsed
		b.size += 112 + uint64(len(b.txs[i].input))
	}
	b.txRoot = emptyRoot
	b.receiptsRoot = emptyRoot
	if count > 0 {
		h := sha256.New()
		for i := range b.txs {
			h.Write(b.txs[i].hash[:])
		}
		copy(b.txRoot[:], h.Sum(nil))
		var rh hasher
		b.receiptsRoot = rh.bytes(b.txRoot[:]).u64(b.gasUsed).sum()
	}
	b.stateRoot = hashOf(domState, c.seed, n)
	b.mixHash = hashOf(domRandao, c.seed, n)
	var h hasher
	h.bytes(b.parent[:]).u64(n).u64(b.timestamp).bytes(b.miner[:]).bytes(b.stateRoot[:]).bytes(b.txRoot[:])
	h.bytes(b.receiptsRoot[:]).u64(b.gasUsed).u64(blockGasLimit).u64(b.baseFee).bytes(b.mixHash[:])
	b.hash = h.sum()
	return b
}

// Selectors of the token contracts' functions.
const (
	selTransfer    = 0xa9059cbb // transfer(address,uint256)
	selBalanceOf   = 0x70a08231 // balanceOf(address)
	selTotalSupply = 0x18160ddd // totalSupply()
	selDecimals    = 0x313ce567 // decimals()
	selName        = 0x06fdde03 // name()
	selSymbol      = 0x95d89b41 // symbol()
)

// tx generates transaction i of block n: 70% are ether transfers between accounts, 30% token
// transfers.
func (c *chain) tx(n uint64, i int, baseFee uint64) tx {
	r := newRNG(c.seed, domTx, n, uint64(i))
	t := tx{block: n, index: i, nonce: r.n(100_000)}
	t.from = c.accounts[r.n(numAccounts)]
	if r.n(10) < 7 {
		t.to = c.accounts[r.n(numAccounts)]
		r.fill(t.value[8:])
		t.value[8] >>= 2 // up to ~4.6e18 wei
		t.gasUsed = 21_000
		t.gas = 21_000
	} else {
		t.to = c.tokens[r.n(numTokens)]
		t.input = make([]byte, 4+32+32)
		binary.BigEndian.PutUint32(t.input, selTransfer)
		copy(t.input[4+12:], c.accounts[r.n(numAccounts)][:])
		r.fill(t.input[4+32+20:])
		t.gasUsed = estimate(t.input, true, true)
		t.gas = t.gasUsed + r.n(30_000)
	}
	tip := 100_000_000 + r.n(2_000_000_000)
	t.gasPrice = baseFee + tip
	if r.n(4) != 0 {
		t.typ = 2
		t.maxTip = tip
		t.maxFee = 2*baseFee + tip
	}
	r.fill(t.sigR[:])
	r.fill(t.sigS[:])
	t.yParity = r.n(2)
	var h hasher
	h.u64(uint64(t.typ)).u64(c.chainID).u64(t.nonce).bytes(t.from[:]).bytes(t.to[:]).bytes(t.value[:])
	h.u64(t.gas).u64(t.gasPrice).u64(t.maxFee).u64(t.maxTip).bytes(t.input).bytes(t.sigR[:]).bytes(t.sigS[:])
	t.hash = h.sum()
	return t
}

// balance is the ether balance of a at block n: up to ~4,700 ether for the chain's accounts, 0
// for any other address.
func (c *chain) balance(a address, n uint64) [16]byte {
	var v [16]byte
	if _, ok := c.accountSet[a]; !ok {
		return v
	}
	var h hasher
	s := h.u64(domBalance).u64(c.seed).bytes(a[:]).u64(n).sum()
	copy(v[7:], s[:9])
	return v
}
