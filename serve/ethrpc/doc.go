// Package ethrpc is an Ethereum-style JSON-RPC 2.0 node over HTTP and WebSocket that serves a
// synthetic chain: a built-in target for benchmarking JSON-RPC clients and load generators
// without a real node, with answers that have the shape of a real node's and are the same on
// every run for the same seed.
//
// Calls are POSTed to / (a single call or a batch), or sent as WebSocket messages after an
// upgrade on /, where many calls may be in flight on one connection and answers come back in the
// order they finish, matched to calls by id. The methods: eth_blockNumber, eth_getBlockByNumber,
// eth_getBlockByHash, eth_getTransactionByHash, eth_getBalance, eth_call, eth_estimateGas,
// eth_chainId, net_version, web3_clientVersion, and debug_storageRangeAt, a heavy call whose
// cost grows with its maxResult (the "complex request" of node benchmarks). Errors are those of
// the JSON-RPC 2.0 specification (-32700 parse error, -32600 invalid request, -32601 method not
// found, -32602 invalid params), -32000 for a missing block as geth answers, and 3 for a reverted
// call.
//
// What is synthetic, so that nobody mistakes it for Ethereum:
//   - The chain is generated from the seed: block n's transactions, miner, timestamps (12 s apart)
//     and roots come from a PRNG keyed by (seed, n). Hashes are SHA-256 of the fields, not
//     Keccak-256 of RLP, but each block's hash covers its parent's hash and its transactions, so
//     the chain links as a real one does. Transaction signatures (v, r, s) are random bytes.
//   - Balances are a function of (seed, address, block), not sums of the transfers; addresses
//     outside the chain's 1,000 accounts hold 0.
//   - eth_call runs no EVM. The chain has 16 ERC-20-like token contracts that answer
//     balanceOf(address), totalSupply(), decimals(), name() and symbol() with plausible values;
//     another selector sent to a token contract returns a 32-byte hash of (contract, block, call
//     data), a call with too short arguments reverts, and a call to any other address returns
//     empty data, as a call to an account without code does.
//   - eth_estimateGas charges the intrinsic gas Ethereum charges (21,000, plus 16 per non-zero
//     and 4 per zero byte of call data, plus 32,000 to create a contract) and, for a token
//     contract, a fixed 5,000 plus 2,100 per 32-byte argument word: a schedule, not execution.
//   - debug_storageRangeAt walks a token contract's synthetic storage in slot order (not
//     hashed-key order as geth does); keyStart and nextKey are slot positions. Each slot costs
//     three SHA-256 computations and its hex encoding, so a call's cost is linear in maxResult.
//
// Two knobs make answers differ on purpose, to test a diff of two nodes: Config.Noise adds a
// random "noise" member to every answer with a result (a field that differs by nature), and
// Config.InjectShare adds "injected": true to an exact share of them (a real difference at a
// known path; Server.Injected counts them).
// With Config.BlockTime, the chain grows by a block every BlockTime and WebSocket connections can
// subscribe as to geth: eth_subscribe newHeads, logs (address and topics filters; the Transfer
// logs of the token transfers) and newPendingTransactions (the new block's transactions), with
// eth_subscription notifications and eth_unsubscribe; see subscribe.go for the two members each
// notification adds (a sequence number and the event's time), and Config for the stall and drop
// faults.
//
// A Server is like net/http/httptest.Server: New binds 127.0.0.1:0 unless told otherwise, URL
// and WebSocketURL say where it listens, and Close waits for the calls in flight. The package
// imports nothing from the project: any test can use it.
package ethrpc
