package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/tools/gen"
)

func init() {
	register(command{name: "gen", summary: "build request corpora (targets and calls files, one per method) from a live node", run: runGen})
}

const genExamples = `  rpcbench gen ethereum --url http://127.0.0.1:18545/ --from 1 --to 100 --out corpus
  rpcbench gen ethereum --url http://127.0.0.1:18545/ --from 9900 --methods eth_getBlockByNumber,eth_getBalance,debug_storageRangeAt --rate 200 --out corpus
  rpcbench gen ethereum --url http://127.0.0.1:18545/ --from 1 --to 100 --out corpus --resume          continue an interrupted crawl
  rpcbench gen ethereum --url https://node.example/ -H "Authorization: Bearer TOKEN" --storage-pages 4 --storage-page-size 256 --timeout 1m --from 19000000 --to 19000010 --out corpus
  rpcbench gen jsonrpc --url http://127.0.0.1:18545/ --steps examples/gen/steps.yaml --out corpus3     calls of a steps file, filled from earlier answers`

func runGen(ctx context.Context, e *env, args []string) int {
	g := gen.Ethereum{}
	var to, methods string
	var steps string
	fs := newFlagSet(e, "gen", "gen ethereum --url URL [--from N] [--to M|latest] [--methods LIST] --out DIR [flags]\n       rpcbench gen jsonrpc --url URL --steps FILE --out DIR [flags]", genExamples)
	fs.StringVar(&steps, "steps", "", "gen jsonrpc: the steps `FILE` (YAML or JSON): a list of calls whose params take values from earlier answers, e.g. \"{{head.result}}\"")
	fs.StringVar(&g.URL, "url", "", "the node's HTTP JSON-RPC `URL`")
	fs.Var(parsed(&g.From, parseBlock), "from", "first block `N` to walk")
	fs.StringVar(&to, "to", "latest", "last block `N` to walk, or latest (the node's head)")
	fs.StringVar(&methods, "methods", "", "comma-separated `LIST` of methods to write (default: all of "+strings.Join(gen.Methods, ",")+")")
	fs.StringVar(&g.Out, "out", "", "`DIR` to write METHOD.jsonl (targets) and METHOD.calls.jsonl (calls) into")
	rate := rateFlag{v: 50}
	fs.Var(&rate, "rate", "send at most `RATE` requests per second to the node (default 50/s)")
	fs.BoolVar(&g.Resume, "resume", false, "continue the crawl of --out from the last block fully written")
	fs.IntVar(&g.StoragePages, "storage-pages", gen.DefaultStoragePages, "debug_storageRangeAt: `N` pages per contract and block")
	fs.IntVar(&g.StoragePageSize, "storage-page-size", gen.DefaultStoragePageSize, "debug_storageRangeAt: `N` slots per page")
	fs.Var(positiveDurationFlag{durationFlag{&g.Timeout}}, "timeout", "time limit of one request (default 30s)")
	fs.BoolVar(&g.ShowSecrets, "show-secrets", false, "write the key-like query values of --url (api_key=…) into the target files as they are, instead of REDACTED")
	fs.Var(appended(&g.Header, plan.ParseHeader), "H", "request header `\"Name: value\"` sent to the node, not written (repeatable)")
	pos, code, done := parseArgs(e, fs, args)
	if done {
		return code
	}
	if len(pos) > 0 && pos[0] == "jsonrpc" {
		return runGenJSONRPC(ctx, e, fs, pos, g, steps, rate.v)
	}
	if steps != "" {
		return fail(e, "gen", usagef("--steps: for gen jsonrpc only"), ExitUsage)
	}
	if err := genFlags(&g, pos, to, methods, rate.v); err != nil {
		return fail(e, "gen", err, ExitUsage)
	}
	if isTerminal(e.stderr) {
		last := time.Time{}
		g.Progress = func(p gen.Progress) {
			if now := time.Now(); now.Sub(last) >= 250*time.Millisecond || p.Done == p.Total {
				last = now
				fmt.Fprintf(e.stderr, "\r\033[Kblock %d (%d of %d), %d requests sent, %d written", p.Block, p.Done, p.Total, p.Sent, p.Requests)
			}
		}
	}
	sum, err := g.Run(ctx)
	if g.Progress != nil {
		fmt.Fprint(e.stderr, "\r\033[K")
	}
	return genEnd(ctx, e, g.Out, sum, err, "; continue with --resume")
}

// genEnd writes the summary of a crawl and returns its exit code; more follows the error.
func genEnd(ctx context.Context, e *env, out string, sum *gen.Summary, err error, more string) int {
	if sum != nil {
		if werr := gen.WriteText(e.stdout, out, sum.State); werr != nil && err == nil {
			err = werr
		}
	}
	switch {
	case err != nil && ctx.Err() != nil:
		fmt.Fprintf(e.stderr, "rpcbench gen: %v%s\n", err, more)
		return ExitInterrupted
	case err != nil && sum == nil:
		return fail(e, "gen", usageError{strings.TrimPrefix(err.Error(), "gen: ")}, ExitUsage)
	case err != nil:
		fmt.Fprintf(e.stderr, "rpcbench gen: %v%s\n", strings.TrimPrefix(err.Error(), "gen: "), more)
		return ExitCannotStart
	}
	return ExitOK
}

// genFlags checks the flags and maps them onto g.
func genFlags(g *gen.Ethereum, pos []string, to, methods string, rate float64) error {
	switch {
	case len(pos) == 0:
		return usagef("want a kind of node: gen ethereum --url URL --out DIR, or gen jsonrpc --url URL --steps FILE --out DIR")
	case pos[0] != "ethereum":
		return usagef("%q: want ethereum or jsonrpc", pos[0])
	case len(pos) > 1:
		return usagef("unexpected argument %q", pos[1])
	case g.URL == "":
		return usagef("--url: want the node's URL, e.g. --url http://127.0.0.1:18545/")
	case !strings.HasPrefix(g.URL, "http://") && !strings.HasPrefix(g.URL, "https://"):
		return usagef("--url %q: want http://host:port/ or https://…", plan.RedactURL(g.URL))
	case g.Out == "":
		return usagef("--out: want the directory to write the corpus into, e.g. --out corpus")
	case g.StoragePages < 1 || g.StoragePageSize < 1:
		return usagef("--storage-pages and --storage-page-size: want 1 or more")
	}
	if to == "latest" {
		g.Latest = true
	} else {
		n, err := parseBlock(to)
		if err != nil {
			return usagef("--to %q: want a block number or latest", to)
		}
		if n < g.From {
			return usagef("--to %d is before --from %d", n, g.From)
		}
		g.To = n
	}
	if methods != "" {
		for m := range strings.SplitSeq(methods, ",") {
			if m = strings.TrimSpace(m); m != "" {
				g.Methods = append(g.Methods, m)
			}
		}
		if err := g.Validate(); err != nil {
			var msgs []string
			for _, e := range unjoin(err) {
				msgs = append(msgs, e.Error())
			}
			return usagef("--methods: %s", strings.Join(msgs, "; "))
		}
	}
	g.Rate = rate
	return nil
}

func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// parseBlock reads a block number in decimal or 0x-hex.
func parseBlock(s string) (uint64, error) {
	if h, ok := strings.CutPrefix(s, "0x"); ok {
		return strconv.ParseUint(h, 16, 64)
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, errors.New("want a block number, e.g. 100 or 0x64")
	}
	return n, nil
}

// runGenJSONRPC runs gen jsonrpc: the flags of gen ethereum's walk are refused.
func runGenJSONRPC(ctx context.Context, e *env, fs *flag.FlagSet, pos []string, eth gen.Ethereum, steps string, rate float64) int {
	var bad []string
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "from", "to", "methods", "resume", "storage-pages", "storage-page-size":
			bad = append(bad, "--"+f.Name)
		}
	})
	g := gen.JSONRPC{URL: eth.URL, ShowSecrets: eth.ShowSecrets, Header: eth.Header, Out: eth.Out, Rate: rate, Timeout: eth.Timeout, StepsFile: steps}
	var err error
	switch {
	case len(bad) > 0:
		err = usagef("%s: for gen ethereum only; gen jsonrpc makes the calls of --steps", strings.Join(bad, ", "))
	case len(pos) > 1:
		err = usagef("unexpected argument %q", pos[1])
	case g.URL == "":
		err = usagef("--url: want the node's URL, e.g. --url http://127.0.0.1:18545/")
	case !strings.HasPrefix(g.URL, "http://") && !strings.HasPrefix(g.URL, "https://"):
		err = usagef("--url %q: want http://host:port/ or https://…", plan.RedactURL(g.URL))
	case steps == "":
		err = usagef("--steps: want the steps file, e.g. --steps steps.yaml")
	case g.Out == "":
		err = usagef("--out: want the directory to write the corpus into, e.g. --out corpus")
	}
	if err != nil {
		return fail(e, "gen", err, ExitUsage)
	}
	f, err := os.Open(steps)
	if err != nil {
		return fail(e, "gen", usagef("--steps: %v", err), ExitUsage)
	}
	g.Steps, err = gen.ReadSteps(steps, f)
	f.Close()
	if err != nil {
		return fail(e, "gen", usageError{err.Error()}, ExitUsage)
	}
	if isTerminal(e.stderr) {
		last := time.Time{}
		g.Progress = func(p gen.Progress) {
			if now := time.Now(); now.Sub(last) >= 250*time.Millisecond || p.Done == p.Total {
				last = now
				fmt.Fprintf(e.stderr, "\r\033[Kstep %d of %d (%s), call %d of %d, %d requests sent, %d written", p.Block, len(g.Steps), p.Step, p.Done, p.Total, p.Sent, p.Requests)
			}
		}
	}
	sum, err := g.Run(ctx)
	if g.Progress != nil {
		fmt.Fprint(e.stderr, "\r\033[K")
	}
	return genEnd(ctx, e, g.Out, sum, err, "")
}
