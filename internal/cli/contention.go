package cli

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rpcbench/rpcbench/tools/contention"
)

func init() {
	register(command{name: "contention", summary: "time counters under contention (mutex, atomic, sharded, channel)", run: runContention})
}

const contentionExamples = `  rpcbench contention
  rpcbench contention --goroutines 500 --iterations 100000 --shards 500
  rpcbench contention --goroutines 8 --iterations 1000000 --counters atomic,sharded,sharded-padded`

// minOneFlag is an int flag that must be ≥ 1; the flag package names the flag in its error.
type minOneFlag int

func (p *minOneFlag) String() string { return strconv.Itoa(int(*p)) }

func (p *minOneFlag) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("want a whole number ≥ 1, got %q", s)
	}
	if n < 1 {
		return fmt.Errorf("want a whole number ≥ 1, got %d", n)
	}
	*p = minOneFlag(n)
	return nil
}

// counterKinds is a comma-separated list of counter kinds.
type counterKinds []contention.Kind

func (k *counterKinds) String() string {
	s := ""
	for i, v := range *k {
		if i > 0 {
			s += ","
		}
		s += string(v)
	}
	return s
}

func (k *counterKinds) Set(s string) error {
	ks, err := contention.ParseKinds(s)
	if err != nil {
		return err
	}
	*k = ks
	return nil
}

func runContention(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "contention", "contention [flags]\n\n"+
		"Starts --goroutines goroutines that each add 1 to a shared counter --iterations times, released\n"+
		"together from a barrier, once per kind of counter; prints the wall time and ns per add of each\n"+
		"and checks that every final count is goroutines × iterations (exit 1 if one is not).\n"+
		"The sharded counters add at shard (g·iterations + i) mod shards for goroutine g, iteration i.",
		contentionExamples)
	goroutines := minOneFlag(contention.DefaultGoroutines)
	iterations := minOneFlag(contention.DefaultIterations)
	shards := minOneFlag(contention.DefaultShards)
	kinds := counterKinds(contention.Kinds())
	fs.Var(&goroutines, "goroutines", "how many goroutines add concurrently (`n` ≥ 1)")
	fs.Var(&iterations, "iterations", "how many adds each goroutine makes (`n` ≥ 1)")
	fs.Var(&shards, "shards", "shards of the sharded counters (`n` ≥ 1)")
	fs.Var(&kinds, "counters", "comma-separated `list` of counters to time")
	if code, done := parseFlags(e, fs, args); done {
		return code
	}
	cfg := contention.Config{Goroutines: int(goroutines), Iterations: int(iterations), Shards: int(shards), Kinds: kinds}
	if err := cfg.Validate(); err != nil {
		// the fields are named as the flags are: Goroutines is --goroutines, and so on
		msg := strings.NewReplacer("Goroutines × Iterations", "--goroutines × --iterations", "Goroutines", "--goroutines",
			"Iterations", "--iterations", "Shards", "--shards", "contention: ", "").Replace(err.Error())
		return fail(e, "contention", usageError{msg}, ExitUsage)
	}
	fmt.Fprintf(e.stdout, "%d goroutines × %d adds, %d shards\n\n", cfg.Goroutines, cfg.Iterations, cfg.Shards)
	rs, err := contention.Run(ctx, cfg)
	printContention(e, rs)
	var ce *contention.CountError
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &ce):
		return fail(e, "contention", err, ExitSLO)
	case ctx.Err() != nil:
		fmt.Fprintln(e.stderr, "rpcbench contention: interrupted")
		return ExitInterrupted
	default:
		return fail(e, "contention", err, ExitCannotStart)
	}
}

func printContention(e *env, rs []contention.Result) {
	if len(rs) == 0 {
		return
	}
	const row = "%-16s %12s %10s %14s  %s\n"
	fmt.Fprintf(e.stdout, row, "counter", "total time", "ns/op", "final count", "check")
	for _, r := range rs {
		check := "ok"
		if !r.OK() {
			check = fmt.Sprintf("WRONG: want %d", r.Ops)
		}
		fmt.Fprintf(e.stdout, row, r.Kind, r.Time.Round(10*time.Microsecond), fmt.Sprintf("%.2f", r.NsPerOp()), strconv.FormatInt(r.Count, 10), check)
	}
}
