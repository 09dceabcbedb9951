package contention

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// Defaults used for the zero values of Config's fields: the shape of the original write-up.
const (
	DefaultGoroutines = 500
	DefaultIterations = 100_000
	DefaultShards     = 500
)

// MaxOps bounds Goroutines × Iterations per counter, so a typo cannot start a run of days.
const MaxOps = 1 << 36

// Config is the shape of a run. The zero value is the default run: DefaultGoroutines goroutines, each
// adding DefaultIterations times, DefaultShards shards, every counter kind. A Config is a plain value,
// safe to copy and to share.
type Config struct {
	// Goroutines is how many goroutines add concurrently; 0 means DefaultGoroutines.
	Goroutines int
	// Iterations is how many times each goroutine adds 1; 0 means DefaultIterations.
	Iterations int
	// Shards is the number of shards of the sharded counters; 0 means DefaultShards.
	Shards int
	// Kinds are the counters to measure, in order; empty means Kinds().
	Kinds []Kind
}

// withDefaults returns c with every zero field replaced by its default.
func (c Config) withDefaults() Config {
	if c.Goroutines == 0 {
		c.Goroutines = DefaultGoroutines
	}
	if c.Iterations == 0 {
		c.Iterations = DefaultIterations
	}
	if c.Shards == 0 {
		c.Shards = DefaultShards
	}
	if len(c.Kinds) == 0 {
		c.Kinds = Kinds()
	}
	return c
}

// Validate reports every problem with c, each naming its field; nil means Run will accept c.
// Limits on a Config, so that a run fits in memory: each goroutine has a stack, each padded shard
// a cache line.
const (
	MaxGoroutines = 100_000
	MaxShards     = 1 << 20
)

func (c Config) Validate() error {
	var errs []error
	if c.Goroutines < 0 {
		errs = append(errs, fmt.Errorf("contention: Goroutines: got %d; want ≥ 1 (0 for %d)", c.Goroutines, DefaultGoroutines))
	}
	if c.Iterations < 0 {
		errs = append(errs, fmt.Errorf("contention: Iterations: got %d; want ≥ 1 (0 for %d)", c.Iterations, DefaultIterations))
	}
	if c.Shards < 0 {
		errs = append(errs, fmt.Errorf("contention: Shards: got %d; want ≥ 1 (0 for %d)", c.Shards, DefaultShards))
	}
	if c.Goroutines > MaxGoroutines {
		errs = append(errs, fmt.Errorf("contention: Goroutines: got %d; want at most %d", c.Goroutines, MaxGoroutines))
	}
	if c.Shards > MaxShards {
		errs = append(errs, fmt.Errorf("contention: Shards: got %d; want at most %d", c.Shards, MaxShards))
	}
	d := c.withDefaults()
	if d.Goroutines > 0 && d.Iterations > 0 && int64(d.Goroutines) > MaxOps/int64(d.Iterations) {
		errs = append(errs, fmt.Errorf("contention: Goroutines × Iterations: got %d × %d; want at most %d", d.Goroutines, d.Iterations, int64(MaxOps)))
	}
	for i, k := range c.Kinds {
		if !k.valid() {
			errs = append(errs, fmt.Errorf("contention: Kinds[%d]: unknown counter %q; want one of %s", i, k, kindList()))
		}
	}
	return errors.Join(errs...)
}

// Result is the measurement of one counter.
type Result struct {
	Kind  Kind          // the counter measured
	Time  time.Duration // from the barrier's release until the last goroutine finished
	Ops   int64         // Goroutines × Iterations: the adds made, and the count expected
	Count int64         // the counter's final count
}

// NsPerOp is the wall time per add: Time / Ops, in nanoseconds.
func (r Result) NsPerOp() float64 {
	if r.Ops == 0 {
		return 0
	}
	return float64(r.Time.Nanoseconds()) / float64(r.Ops)
}

// OK reports whether the final count equals the adds made.
func (r Result) OK() bool { return r.Count == r.Ops }

// CountError says which counters ended with a wrong count. Run returns it beside the results.
type CountError struct{ Wrong []Result }

func (e *CountError) Error() string {
	var s []string
	for _, r := range e.Wrong {
		s = append(s, fmt.Sprintf("%s counted %d; want %d", r.Kind, r.Count, r.Ops))
	}
	return "contention: wrong final count: " + strings.Join(s, "; ")
}

// Run measures every counter of cfg in turn and returns one Result per counter. If a final count is
// wrong, Run returns all results and a *CountError. If ctx is cancelled, Run stops within a few
// thousand adds and returns the results of the counters that finished and ctx.Err().
func Run(ctx context.Context, cfg Config) ([]Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	var out []Result
	var wrong []Result
	for _, k := range cfg.Kinds {
		r, err := runOne(ctx, cfg, k)
		if err != nil {
			return out, err
		}
		out = append(out, r)
		if !r.OK() {
			wrong = append(wrong, r)
		}
	}
	if len(wrong) > 0 {
		return out, &CountError{Wrong: wrong}
	}
	return out, nil
}

// checkEvery is how many adds a goroutine makes between looks at the context.
const checkEvery = 4096

// runOne starts cfg.Goroutines goroutines that wait at a barrier, releases them together, and times
// them until the last one has made its adds.
func runOne(ctx context.Context, cfg Config, k Kind) (Result, error) {
	c, err := newCounter(k, cfg.Iterations, cfg.Shards)
	if err != nil {
		return Result{}, err
	}
	defer c.close()
	var ready, done sync.WaitGroup
	start := make(chan struct{})
	stop := ctx.Done()
	ready.Add(cfg.Goroutines)
	done.Add(cfg.Goroutines)
	for g := range cfg.Goroutines {
		go func() {
			defer done.Done()
			ready.Done()
			<-start
			for i := range cfg.Iterations {
				if i%checkEvery == checkEvery-1 {
					select {
					case <-stop:
						return
					default:
					}
				}
				c.add(g, i)
			}
		}()
	}
	ready.Wait()
	t0 := time.Now()
	close(start)
	done.Wait()
	elapsed := time.Since(t0)
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	return Result{
		Kind:  k,
		Time:  elapsed,
		Ops:   int64(cfg.Goroutines) * int64(cfg.Iterations),
		Count: c.total(),
	}, nil
}
