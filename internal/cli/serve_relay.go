package cli

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/serve/relay"
)

func init() {
	registerServe(serveKind{
		name:    "relay",
		summary: "an RPC daemon in front of a node: forwards every request to --upstream (the node alone against the node behind a daemon)",
		examples: `  rpcbench serve relay --upstream http://127.0.0.1:18545/ --addr 127.0.0.1:18546
  rpcbench serve relay --upstream http://127.0.0.1:18545/ --max-idle 64   at most 64 idle connections to the node
  rpcbench serve jsonrpc --addr 127.0.0.1:18545 & rpcbench serve relay --upstream http://127.0.0.1:18545/ --addr 127.0.0.1:18546`,
		flags: relayFlags,
	})
}

func relayFlags(fs *flag.FlagSet) func(ctx context.Context, se *serveEnv) error {
	var cfg relay.Config
	fs.StringVar(&cfg.Upstream, "upstream", "", "the `URL` every request is forwarded to (required)")
	fs.IntVar(&cfg.MaxIdle, "max-idle", relay.DefaultMaxIdle, "idle connections kept to the upstream (`n`)")
	return func(ctx context.Context, se *serveEnv) error {
		if strings.TrimSpace(cfg.Upstream) == "" {
			return usagef("--upstream: give the URL to forward to, e.g. --upstream http://127.0.0.1:18545/")
		}
		cfg.Addr, cfg.Wrap = se.Addr, se.PprofHandler
		s, err := relay.New(cfg)
		if err != nil {
			return usageError{strings.Replace(strings.TrimPrefix(err.Error(), "relay: "), "upstream", "--upstream", 1)}
		}
		fmt.Fprintf(se.Out, "relay listening on %s, forwarding to %s\n", s.URL(), plan.RedactURL(s.Upstream()))
		return untilDone(ctx, s.Shutdown)
	}
}
