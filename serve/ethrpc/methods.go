package ethrpc

import (
	"encoding/binary"
	"encoding/json"
	"strconv"
)

// methodFunc appends a call's result (JSON) to out, or returns an error answer.
type methodFunc func(s *Server, out []byte, p params) ([]byte, *rpcError)

// lookup returns the method called name, or nil.
func lookup(name string) methodFunc {
	switch name {
	case "eth_blockNumber":
		return blockNumber
	case "eth_chainId":
		return chainID
	case "net_version":
		return netVersion
	case "web3_clientVersion":
		return clientVersion
	case "eth_getBlockByNumber":
		return getBlockByNumber
	case "eth_getBlockByHash":
		return getBlockByHash
	case "eth_getTransactionByHash":
		return getTransactionByHash
	case "eth_getBalance":
		return getBalance
	case "eth_call":
		return ethCall
	case "eth_estimateGas":
		return estimateGas
	case "debug_storageRangeAt":
		return storageRangeAt
	}
	return nil
}

// ClientVersion is what web3_clientVersion answers.
const ClientVersion = "ethrpc/synthetic/v1"

func blockNumber(s *Server, out []byte, p params) ([]byte, *rpcError) {
	if e := p.count(0, 0); e != nil {
		return out, e
	}
	return appendQuantityString(out, s.chain.head()), nil
}

func chainID(s *Server, out []byte, p params) ([]byte, *rpcError) {
	if e := p.count(0, 0); e != nil {
		return out, e
	}
	return appendQuantityString(out, s.chain.chainID), nil
}

func netVersion(s *Server, out []byte, p params) ([]byte, *rpcError) {
	if e := p.count(0, 0); e != nil {
		return out, e
	}
	out = append(out, '"')
	return append(strconv.AppendUint(out, s.chain.chainID, 10), '"'), nil
}

func clientVersion(s *Server, out []byte, p params) ([]byte, *rpcError) {
	if e := p.count(0, 0); e != nil {
		return out, e
	}
	return appendJSONString(out, ClientVersion), nil
}

const blockTagHelp = "want a block number (0x-prefixed hex quantity without leading zeros) or latest, earliest, pending, safe, finalized"

// blockArg reads argument i as a block number or tag, or (byHash) an EIP-1898 object
// {"blockNumber": …} or {"blockHash": …}. exists=false: a number past the head.
func (s *Server) blockArg(p params, i int, byHash bool) (n uint64, exists bool, e *rpcError) {
	raw := p.at(i)
	if byHash && len(raw) > 0 && raw[0] == '{' {
		var o struct {
			BlockNumber *string `json:"blockNumber"`
			BlockHash   *string `json:"blockHash"`
		}
		if err := json.Unmarshal(raw, &o); err != nil || (o.BlockNumber == nil) == (o.BlockHash == nil) {
			return 0, false, errorf(CodeInvalidParams, "invalid argument %d: want {\"blockNumber\": …} or {\"blockHash\": …}", i)
		}
		if o.BlockNumber != nil {
			return s.blockTag(*o.BlockNumber, i)
		}
		h, err := parseFixed(*o.BlockHash, 32)
		if err != nil {
			return 0, false, errorf(CodeInvalidParams, "invalid argument %d: blockHash %q: %v", i, clip(*o.BlockHash), err)
		}
		n, ok := s.chain.number([32]byte(h))
		if !ok {
			return 0, false, errorf(CodeServerError, "header for hash not found")
		}
		return n, true, nil
	}
	tag, e := p.str(i)
	if e != nil {
		return 0, false, errorf(CodeInvalidParams, "invalid argument %d: %s", i, blockTagHelp)
	}
	return s.blockTag(tag, i)
}

func (s *Server) blockTag(tag string, i int) (uint64, bool, *rpcError) {
	switch tag {
	case "latest", "pending", "safe", "finalized":
		return s.chain.head(), true, nil
	case "earliest":
		return 0, true, nil
	}
	n, err := parseQuantity(tag)
	if err != nil {
		return 0, false, errorf(CodeInvalidParams, "invalid argument %d: %q: %v; %s", i, clip(tag), err, blockTagHelp)
	}
	return n, n <= s.chain.head(), nil
}

// stateBlock is blockArg for methods that read state: a block past the head is an error.
func (s *Server) stateBlock(p params, i int) (uint64, *rpcError) {
	if !p.present(i) {
		return s.chain.head(), nil
	}
	n, ok, e := s.blockArg(p, i, true)
	if e == nil && !ok {
		e = errorf(CodeServerError, "header not found")
	}
	return n, e
}

func getBlockByNumber(s *Server, out []byte, p params) ([]byte, *rpcError) {
	if e := p.count(2, 2); e != nil {
		return out, e
	}
	n, ok, e := s.blockArg(p, 0, false)
	if e != nil {
		return out, e
	}
	full, e := p.boolean(1)
	if e != nil {
		return out, e
	}
	if !ok {
		return append(out, "null"...), nil
	}
	b := s.chain.blockAt(n)
	return appendBlock(out, &b, full, s.chain.chainID), nil
}

func getBlockByHash(s *Server, out []byte, p params) ([]byte, *rpcError) {
	if e := p.count(2, 2); e != nil {
		return out, e
	}
	h, e := p.fixed(0, 32, "a block hash")
	if e != nil {
		return out, e
	}
	full, e := p.boolean(1)
	if e != nil {
		return out, e
	}
	n, ok := s.chain.number([32]byte(h))
	if !ok {
		return append(out, "null"...), nil
	}
	b := s.chain.blockAt(n)
	return appendBlock(out, &b, full, s.chain.chainID), nil
}

func getTransactionByHash(s *Server, out []byte, p params) ([]byte, *rpcError) {
	if e := p.count(1, 1); e != nil {
		return out, e
	}
	h, e := p.fixed(0, 32, "a transaction hash")
	if e != nil {
		return out, e
	}
	t, bh, ok := s.chain.txLookup([32]byte(h))
	if !ok {
		return append(out, "null"...), nil
	}
	return appendTx(out, &t, bh, s.chain.chainID), nil
}

func getBalance(s *Server, out []byte, p params) ([]byte, *rpcError) {
	if e := p.count(2, 2); e != nil {
		return out, e
	}
	a, e := p.fixed(0, 20, "an address")
	if e != nil {
		return out, e
	}
	n, e := s.stateBlock(p, 1)
	if e != nil {
		return out, e
	}
	v := s.chain.balance(address(a), n)
	out = append(out, '"')
	return append(appendQuantityBytes(out, v[:]), '"'), nil
}

// integer reads argument i as a non-negative JSON integer or hex quantity.
func (p params) integer(i int, what string) (uint64, *rpcError) {
	raw := p.at(i)
	if len(raw) > 0 && raw[0] == '"' {
		s, _ := p.str(i)
		if v, err := parseQuantity(s); err == nil {
			return v, nil
		}
	} else if v, err := strconv.ParseUint(string(raw), 10, 64); err == nil {
		return v, nil
	}
	return 0, errorf(CodeInvalidParams, "invalid argument %d: want %s, a non-negative integer", i, what)
}

func storageRangeAt(s *Server, out []byte, p params) ([]byte, *rpcError) {
	if e := p.count(5, 5); e != nil {
		return out, e
	}
	bh, e := p.fixed(0, 32, "a block hash")
	if e != nil {
		return out, e
	}
	txIndex, e := p.integer(1, "a transaction index")
	if e != nil {
		return out, e
	}
	contract, e := p.fixed(2, 20, "a contract address")
	if e != nil {
		return out, e
	}
	ks, e := p.str(3)
	var keyStart []byte
	if e == nil {
		var err error
		if keyStart, err = parseData(ks); err != nil || len(keyStart) > 32 {
			e = errorf(CodeInvalidParams, "invalid argument 3: want a key of at most 32 bytes (0x and hex digits)")
		}
	}
	if e != nil {
		return out, e
	}
	maxResult, e := p.integer(4, "maxResult")
	if e != nil {
		return out, e
	}
	if maxResult > uint64(s.maxStorageRange) {
		return out, errorf(CodeInvalidParams, "invalid argument 4: maxResult %d is over this server's limit of %d", maxResult, s.maxStorageRange)
	}
	n, ok := s.chain.number([32]byte(bh))
	if !ok {
		return out, errorf(CodeServerError, "block %s not found", appendData(nil, bh))
	}
	if txs := s.chain.blockAt(n).txs; txIndex > uint64(len(txs)) {
		return out, errorf(CodeServerError, "transaction index %d out of range for block %s", txIndex, appendData(nil, bh))
	}
	// keyStart is a slot position, big-endian; one past 2^64 is past every slot.
	start, slots := uint64(0), uint64(0)
	tok, isToken := s.chain.tokenIndex[address(contract)]
	if isToken {
		slots = s.chain.storageSlots(tok)
		var w [32]byte
		copy(w[32-len(keyStart):], keyStart)
		start = binary.BigEndian.Uint64(w[24:])
		for _, c := range w[:24] {
			if c != 0 {
				start = slots
			}
		}
	}
	out = append(out, `{"storage":{`...)
	i := start
	for ; i < slots && i-start < maxResult; i++ {
		key, hashed, value := s.chain.slot(tok, i, n)
		if i > start {
			out = append(out, ',')
		}
		out = appendDataString(out, hashed[:])
		out = append(out, `:{"key":`...)
		out = appendDataString(out, key[:])
		out = append(out, `,"value":`...)
		out = appendDataString(out, value[:])
		out = append(out, '}')
	}
	out = append(out, `},"nextKey":`...)
	if i >= slots {
		return append(out, "null}"...), nil
	}
	var next [32]byte
	binary.BigEndian.PutUint64(next[24:], i)
	return append(appendDataString(out, next[:]), '}'), nil
}
