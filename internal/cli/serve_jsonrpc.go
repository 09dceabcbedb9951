package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
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
  rpcbench serve jsonrpc --block-time 100ms    a new block every 100 ms for eth_subscribe (WebSocket)
  rpcbench serve jsonrpc --block-time 10ms --stall 1s/5s --drop-every 100   faults for subscribers
  rpcbench serve jsonrpc --block-time 50ms --push-delay-per-call 1ms   delivery that slows as calls rise
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
	fs.DurationVar(&cfg.BlockTime, "block-time", 0, "grow the chain by a block every `D` and push it to eth_subscribe subscribers (newHeads, logs, newPendingTransactions); 0: no new blocks")
	var stall string
	fs.StringVar(&stall, "stall", "", "fault: hold subscription notifications for `D/P`, D at every multiple of P (e.g. 1s/5s)")
	fs.IntVar(&cfg.DropEvery, "drop-every", 0, "fault: the first subscription loses every `k`-th notification")
	fs.DurationVar(&cfg.PushDelayPerCall, "push-delay-per-call", 0, "fault: hold each block's notifications `D` for every call the node ran since the block before (push delivery that slows as call load rises)")
	return func(ctx context.Context, se *serveEnv) error {
		if stall != "" {
			d, p, ok := strings.Cut(stall, "/")
			var err1, err2 error
			cfg.StallFor, err1 = time.ParseDuration(d)
			cfg.StallEvery, err2 = time.ParseDuration(p)
			if !ok || err1 != nil || err2 != nil || cfg.StallFor <= 0 || cfg.StallFor >= cfg.StallEvery {
				return usageError{fmt.Sprintf("--stall %q: want D/P, two durations with 0 < D < P (e.g. 1s/5s)", stall)}
			}
		}
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
		if cfg.BlockTime > 0 {
			fmt.Fprintf(se.Out, "jsonrpc: a new block every %v for eth_subscribe on %s\n", cfg.BlockTime, s.WebSocketURL())
			if d := cfg.PushDelayPerCall; d > 0 {
				fmt.Fprintf(se.Out, "jsonrpc: each block's notifications held %v for every call run since the block before\n", d)
			}
		}
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
	if c.BlockTime < 0 {
		errs = append(errs, fmt.Errorf("--block-time %v is negative; want 0 (no new blocks) or more", c.BlockTime))
	}
	if c.DropEvery < 0 {
		errs = append(errs, fmt.Errorf("--drop-every %d is negative; want 0 (none) or more", c.DropEvery))
	}
	if c.PushDelayPerCall < 0 {
		errs = append(errs, fmt.Errorf("--push-delay-per-call %v is negative; want 0 (none) or more", c.PushDelayPerCall))
	}
	if c.BlockTime == 0 && (c.DropEvery > 0 || c.StallFor > 0 || c.PushDelayPerCall > 0) {
		errs = append(errs, errors.New("--stall, --drop-every and --push-delay-per-call act on subscription notifications: give --block-time too"))
	}
	if c.MaxStorageRange < 1 {
		errs = append(errs, fmt.Errorf("--max-storage-range %d is out of range; want 1 or more", c.MaxStorageRange))
	}
	if len(errs) > 0 {
		return usageError{errors.Join(errs...).Error()}
	}
	return nil
}
