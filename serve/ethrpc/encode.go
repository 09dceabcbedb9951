package ethrpc

// The JSON of blocks and transactions, written by hand (members in the order geth writes them)
// because these are the answers a benchmark asks for most.

// emptyUnclesHash is Keccak-256 of the RLP of an empty list: every post-merge block's sha3Uncles.
var emptyUnclesHash = [32]byte{0x1d, 0xcc, 0x4d, 0xe8, 0xde, 0xc7, 0x5d, 0x7a, 0xab, 0x85, 0xb5, 0x67, 0xb6, 0xcc, 0xd4, 0x1a, 0xd3, 0x12, 0x45, 0x1b, 0x94, 0x8a, 0x74, 0x13, 0xf0, 0xa1, 0x42, 0xfd, 0x40, 0xd4, 0x93, 0x47}

// extraData is what the synthetic validators write in each block.
var extraData = []byte("ethrpc synthetic")

// totalDifficulty is what a post-merge mainnet node reports for every block.
var totalDifficulty = []byte{0x0c, 0x70, 0xd8, 0x15, 0xd5, 0x62, 0xd3, 0xcf, 0xa9, 0x55}

func appendBlock(out []byte, b *block, full bool, chainID uint64) []byte {
	out = append(out, `{"baseFeePerGas":`...)
	out = appendQuantityString(out, b.baseFee)
	out = append(out, `,"difficulty":"0x0","extraData":`...)
	out = appendDataString(out, extraData)
	out = append(out, `,"gasLimit":`...)
	out = appendQuantityString(out, blockGasLimit)
	out = append(out, `,"gasUsed":`...)
	out = appendQuantityString(out, b.gasUsed)
	out = append(out, `,"hash":`...)
	out = appendDataString(out, b.hash[:])
	out = append(out, `,"logsBloom":"0x`...)
	for range 256 {
		out = append(out, '0', '0')
	}
	out = append(out, `","miner":`...)
	out = appendDataString(out, b.miner[:])
	out = append(out, `,"mixHash":`...)
	out = appendDataString(out, b.mixHash[:])
	out = append(out, `,"nonce":"0x0000000000000000","number":`...)
	out = appendQuantityString(out, b.number)
	out = append(out, `,"parentHash":`...)
	out = appendDataString(out, b.parent[:])
	out = append(out, `,"receiptsRoot":`...)
	out = appendDataString(out, b.receiptsRoot[:])
	out = append(out, `,"sha3Uncles":`...)
	out = appendDataString(out, emptyUnclesHash[:])
	out = append(out, `,"size":`...)
	out = appendQuantityString(out, b.size)
	out = append(out, `,"stateRoot":`...)
	out = appendDataString(out, b.stateRoot[:])
	out = append(out, `,"timestamp":`...)
	out = appendQuantityString(out, b.timestamp)
	out = append(out, `,"totalDifficulty":"`...)
	out = append(appendQuantityBytes(out, totalDifficulty), '"')
	out = append(out, `,"transactions":[`...)
	for i := range b.txs {
		if i > 0 {
			out = append(out, ',')
		}
		if full {
			out = appendTx(out, &b.txs[i], b.hash, chainID)
		} else {
			out = appendDataString(out, b.txs[i].hash[:])
		}
	}
	out = append(out, `],"transactionsRoot":`...)
	out = appendDataString(out, b.txRoot[:])
	return append(out, `,"uncles":[]}`...)
}

func appendTx(out []byte, t *tx, blockHash [32]byte, chainID uint64) []byte {
	out = append(out, `{"blockHash":`...)
	out = appendDataString(out, blockHash[:])
	out = append(out, `,"blockNumber":`...)
	out = appendQuantityString(out, t.block)
	out = append(out, `,"from":`...)
	out = appendDataString(out, t.from[:])
	out = append(out, `,"gas":`...)
	out = appendQuantityString(out, t.gas)
	out = append(out, `,"gasPrice":`...)
	out = appendQuantityString(out, t.gasPrice)
	if t.typ == 2 {
		out = append(out, `,"maxFeePerGas":`...)
		out = appendQuantityString(out, t.maxFee)
		out = append(out, `,"maxPriorityFeePerGas":`...)
		out = appendQuantityString(out, t.maxTip)
	}
	out = append(out, `,"hash":`...)
	out = appendDataString(out, t.hash[:])
	out = append(out, `,"input":`...)
	out = appendDataString(out, t.input)
	out = append(out, `,"nonce":`...)
	out = appendQuantityString(out, t.nonce)
	out = append(out, `,"to":`...)
	out = appendDataString(out, t.to[:])
	out = append(out, `,"transactionIndex":`...)
	out = appendQuantityString(out, uint64(t.index))
	out = append(out, `,"value":"`...)
	out = append(appendQuantityBytes(out, t.value[:]), '"')
	out = append(out, `,"type":`...)
	out = appendQuantityString(out, uint64(t.typ))
	v := t.yParity
	if t.typ == 2 {
		out = append(out, `,"accessList":[]`...)
	} else {
		v += chainID*2 + 35 // EIP-155
	}
	out = append(out, `,"chainId":`...)
	out = appendQuantityString(out, chainID)
	out = append(out, `,"v":`...)
	out = appendQuantityString(out, v)
	out = append(out, `,"r":"`...)
	out = append(appendQuantityBytes(out, t.sigR[:]), '"')
	out = append(out, `,"s":"`...)
	out = append(appendQuantityBytes(out, t.sigS[:]), '"')
	if t.typ == 2 {
		out = append(out, `,"yParity":`...)
		out = appendQuantityString(out, t.yParity)
	}
	return append(out, '}')
}
