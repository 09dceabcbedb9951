// Package gen builds request corpora from a live JSON-RPC node: it walks an Ethereum node's blocks
// (eth_getBlockByNumber with full transactions, then the transactions' hashes, senders, receivers
// and contracts) and writes, for each method, the requests it made in two forms that rpcbench
// reads: vegeta's JSON-lines target format (METHOD.jsonl, for run --targets and diff --targets)
// and the calls format (METHOD.calls.jsonl, for run --calls and diff --calls).
//
// It sits before plan in the flow: its files are what a plan reads. Each request is sent once to
// the node, at a bounded rate, so that the corpus holds only requests the node answers; a method
// the node does not have (-32601) is dropped with a note. The files are written block by block,
// whole lines only, and a state file (gen-state.json) records the last block fully written, so
// that an interrupted crawl leaves valid files and Resume continues it.
//
// JSONRPC is the generic crawl, for APIs that are not Ethereum's: the calls of a steps file
// (ReadSteps), whose params are templates filled from earlier answers by JSON path (jsondiff's
// patterns), made once or once per item of a for_each; it writes the same files, a step at a time.
package gen
