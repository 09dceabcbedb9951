package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/rpcbench/rpcbench/serve/ethrpc"
)

func init() {
	registerServe(serveKind{
		name:    "jsonrpc",
		summary: "Ethereum-style JSON-RPC 2.0 node on a seeded synthetic chain, over HTTP and WebSocket",
		examples: `  rpcbench serve jsonrpc
  rpcbench serve jsonrpc --blocks 100000 --seed 7
  rpcbench serve jsonrpc --blocks 1000 --tx-per-block 100    fewer, fuller blocks
  rpcbench serve jsonrpc --addr 127.0.0.1:18545 --chain-id 1
  rpcbench serve jsonrpc --noise --inject-share 0.001    a random "noise" member in each answer, "injected": true in 0.1 %
  curl -s -d '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"}' http://127.0.0.1:18545/`,
		flags: jsonrpcFlags,
	})
}

func jsonrpcFlags(fs *flag.FlagSet) func(ctx context.Context, se *serveEnv) error {
	var cfg ethrpc.Config
	fs.Uint64Var(&cfg.Blocks, "blocks", ethrpc.DefaultBlocks, "length of the chain: blocks 0 … `n`-1, the last is \"latest\"")
	fs.Uint64Var(&cfg.Seed, "seed", 0, "seed of the chain: the same seed and flags give the same chain, byte for byte (`n`)")
	fs.Uint64Var(&cfg.TxPerBlock, "tx-per-block", ethrpc.DefaultTxPerBlock, "average transactions per block (`n`)")
	fs.Uint64Var(&cfg.ChainID, "chain-id", ethrpc.DefaultChainID, "what eth_chainId and net_version answer (`id`)")
	fs.IntVar(&cfg.MaxStorageRange, "max-storage-range", ethrpc.DefaultMaxStorageRange, "largest maxResult of debug_storageRangeAt, the heavy call (`n`)")
	fs.BoolVar(&cfg.Noise, "noise", false, "add a member \"noise\" with a random value to every answer that has a result (a field that differs by nature, for diff --reference)")
	fs.Float64Var(&cfg.InjectShare, "inject-share", 0, "add \"injected\": true to this `share` (0 to 1) of the answers that have a result: exactly floor(N*share) of the first N")
	return func(ctx context.Context, se *serveEnv) error {
		if err := checkJSONRPCFlags(cfg); err != nil {
			return err
		}
		cfg.Addr = se.Addr
		cfg.Wrap = se.PprofHandler
		began := time.Now()
		s, err := ethrpc.New(ctx, cfg)
		if err != nil {
			if ctx.Err() != nil {
				fmt.Fprintln(se.Out, "jsonrpc: interrupted while building the chain; stopped")
				return nil
			}
			return err
		}
		fmt.Fprintf(se.Out, "jsonrpc: chain of %d blocks (0x0 … %#x), seed %d, chain id %d, built in %s; latest block %s\n",
			s.Head()+1, s.Head(), cfg.Seed, cfg.ChainID, time.Since(began).Round(time.Millisecond), s.BlockHash(s.Head()))
		if cfg.Noise {
			fmt.Fprintln(se.Out, `jsonrpc: every answer with a result carries "noise", a random value`)
		}
		if cfg.InjectShare > 0 {
			fmt.Fprintf(se.Out, "jsonrpc: \"injected\": true in %g %% of the answers with a result (floor(N*%g) of the first N)\n", cfg.InjectShare*100, cfg.InjectShare)
		}
		fmt.Fprintf(se.Out, "jsonrpc listening on %s and %s\n", s.URL(), s.WebSocketURL())
		if se.Pprof {
			fmt.Fprintf(se.Out, "pprof on %sdebug/pprof/\n", s.URL())
		}
		return untilDone(ctx, s.Shutdown)
	}
}

// checkJSONRPCFlags names the flag of every bad value.
func checkJSONRPCFlags(c ethrpc.Config) error {
	var errs []error
	if c.Blocks < 1 || c.Blocks > ethrpc.MaxBlocks {
		errs = append(errs, fmt.Errorf("--blocks %d is out of range; want 1 to %d", c.Blocks, ethrpc.MaxBlocks))
	}
	if c.TxPerBlock < 1 || c.TxPerBlock > ethrpc.MaxTxPerBlock {
		errs = append(errs, fmt.Errorf("--tx-per-block %d is out of range; want 1 to %d", c.TxPerBlock, ethrpc.MaxTxPerBlock))
	}
	if c.ChainID < 1 {
		errs = append(errs, errors.New("--chain-id 0 is not a chain id; want 1 or more"))
	}
	if !(c.InjectShare >= 0 && c.InjectShare <= 1) {
		errs = append(errs, fmt.Errorf("--inject-share %v is out of range; want 0 to 1, e.g. 0.001 for 0.1 %%", c.InjectShare))
	}
	if c.MaxStorageRange < 1 {
		errs = append(errs, fmt.Errorf("--max-storage-range %d is out of range; want 1 or more", c.MaxStorageRange))
	}
	if len(errs) > 0 {
		return usageError{errors.Join(errs...).Error()}
	}
	return nil
}
