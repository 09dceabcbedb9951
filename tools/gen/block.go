package gen

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// ethBlock is what the walk reads of a block with full transactions.
type ethBlock struct {
	Hash         string  `json:"hash"`
	Transactions []ethTx `json:"transactions"`
}

type ethTx struct {
	Hash  string  `json:"hash"`
	From  string  `json:"from"`
	To    *string `json:"to"`
	Input string  `json:"input"`
	Data  string  `json:"data"` // older nodes
	Index string  `json:"transactionIndex"`
}

type ethReceipt struct {
	ContractAddress *string `json:"contractAddress"`
	Logs            []struct {
		Address string `json:"address"`
	} `json:"logs"`
}

// ordered is a set that keeps the order of first insertion.
type ordered[T comparable] struct {
	seen map[T]bool
	list []T
}

func (o *ordered[T]) add(v T) {
	if o.seen == nil {
		o.seen = map[T]bool{}
	}
	if !o.seen[v] {
		o.seen[v] = true
		o.list = append(o.list, v)
	}
}

// contract is an account with code met in a block, and a transaction of the block that touched it
// (debug_storageRangeAt reads the storage after that transaction).
type contract struct {
	addr  string
	index uint64
}

// block walks block n: the block itself, its transactions, then its accounts and contracts.
func (w *walker) block(ctx context.Context, n uint64) error {
	num := quantity(n)
	res, err := w.send(ctx, "eth_getBlockByNumber", mustJSON([]any{num, true}), w.want["eth_getBlockByNumber"])
	if errors.Is(err, errSkipped) {
		return fmt.Errorf("the node does not have eth_getBlockByNumber (%s), which the walk needs", w.corpus.state.Skipped["eth_getBlockByNumber"])
	}
	if err != nil {
		return err // the walk needs the block: an error answer stops it too
	}
	var b ethBlock
	if err := json.Unmarshal(res, &b); err != nil {
		return fmt.Errorf("eth_getBlockByNumber: the node answered %s; want a block with full transactions: %v", clip(res, 120), err)
	}
	if string(res) == "null" || b.Hash == "" {
		return fmt.Errorf("eth_getBlockByNumber: the node has no block %d (it answered %s)", n, clip(res, 60))
	}
	if _, err := w.maybe(ctx, "eth_getBlockByHash", b.Hash, true); err != nil {
		return err
	}
	if _, err := w.maybe(ctx, "eth_getLogs", map[string]string{"fromBlock": num, "toBlock": num}); err != nil {
		return err
	}
	var accounts ordered[string]
	var contracts ordered[string]
	touched := map[string]uint64{}
	touch := func(addr string, index uint64) {
		contracts.add(addr)
		if _, ok := touched[addr]; !ok {
			touched[addr] = index
		}
	}
	for i, tx := range b.Transactions {
		if err := w.tx(ctx, num, uint64(i), tx, &accounts, touch); err != nil {
			return err
		}
	}
	for _, a := range accounts.list {
		for _, m := range []string{"eth_getBalance", "eth_getTransactionCount", "eth_getCode"} {
			if _, err := w.maybe(ctx, m, a, num); err != nil {
				return err
			}
		}
	}
	for _, c := range contracts.list {
		if _, err := w.maybe(ctx, "eth_getStorageAt", c, "0x0", num); err != nil {
			return err
		}
		if err := w.storageRange(ctx, b.Hash, touched[c], c); err != nil {
			return err
		}
	}
	return nil
}

// tx walks one transaction: by hash, its receipt and trace, and a call and gas estimate that
// repeat it when it calls a contract. It adds its accounts and contracts to the block's.
func (w *walker) tx(ctx context.Context, num string, i uint64, tx ethTx, accounts *ordered[string], touch func(string, uint64)) error {
	if tx.Hash == "" {
		return fmt.Errorf("eth_getBlockByNumber: transaction %d has no hash; want full transactions", i)
	}
	if _, err := w.maybe(ctx, "eth_getTransactionByHash", tx.Hash); err != nil {
		return err
	}
	res, err := w.maybe(ctx, "eth_getTransactionReceipt", tx.Hash)
	if err != nil {
		return err
	}
	var r ethReceipt
	if res != nil && json.Unmarshal(res, &r) == nil {
		if r.ContractAddress != nil && *r.ContractAddress != "" {
			touch(*r.ContractAddress, i)
		}
		for _, l := range r.Logs {
			if l.Address != "" {
				touch(l.Address, i)
			}
		}
	}
	if _, err := w.maybe(ctx, "debug_traceTransaction", tx.Hash); err != nil {
		return err
	}
	if tx.From != "" {
		accounts.add(tx.From)
	}
	if tx.To == nil || *tx.To == "" {
		return nil
	}
	accounts.add(*tx.To)
	input := tx.Input
	if input == "" {
		input = tx.Data
	}
	if input == "" || input == "0x" {
		return nil
	}
	touch(*tx.To, i)
	args := struct {
		From string `json:"from,omitempty"`
		To   string `json:"to"`
		Data string `json:"data"`
	}{tx.From, *tx.To, input}
	for _, m := range []string{"eth_call", "eth_estimateGas"} {
		if _, err := w.maybe(ctx, m, args, num); err != nil {
			return err
		}
	}
	return nil
}

// storageRange walks up to StoragePages pages of a contract's storage after transaction index of
// the block, following nextKey.
func (w *walker) storageRange(ctx context.Context, blockHash string, index uint64, addr string) error {
	key := "0x"
	for range w.cfg.StoragePages {
		res, err := w.maybe(ctx, "debug_storageRangeAt", blockHash, index, addr, key, w.cfg.StoragePageSize)
		if err != nil || res == nil {
			return err
		}
		var page struct {
			NextKey *string `json:"nextKey"`
		}
		if json.Unmarshal(res, &page) != nil || page.NextKey == nil || *page.NextKey == "" {
			return nil
		}
		key = *page.NextKey
	}
	return nil
}
