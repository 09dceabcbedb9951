package contention

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unsafe"
)

func TestRunCountsEveryAdd(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		cfg  Config
	}{
		// one goroutine: no contention at all, still counted right
		{"single", Config{Goroutines: 1, Iterations: 1000, Shards: 1}},
		// more shards than adds: most shards stay empty
		{"sparse shards", Config{Goroutines: 3, Iterations: 5, Shards: 64}},
		// iterations a multiple of shards: every goroutine starts on shard 0
		{"aligned", Config{Goroutines: 8, Iterations: 5000, Shards: 50}},
		// iterations not a multiple of shards, and the context check boundary crossed
		{"unaligned", Config{Goroutines: 7, Iterations: checkEvery*2 + 3, Shards: 13}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rs, err := Run(context.Background(), tt.cfg)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if got, want := len(rs), len(Kinds()); got != want {
				t.Fatalf("got %d results; want %d", got, want)
			}
			want := int64(tt.cfg.Goroutines * tt.cfg.Iterations)
			for i, r := range rs {
				if r.Kind != Kinds()[i] {
					t.Errorf("result %d: got kind %q; want %q", i, r.Kind, Kinds()[i])
				}
				if r.Count != want || r.Ops != want || !r.OK() {
					t.Errorf("%s: got count %d of %d ops; want %d", r.Kind, r.Count, r.Ops, want)
				}
				if r.Time <= 0 || r.NsPerOp() <= 0 {
					t.Errorf("%s: got time %v, %.2f ns/op; want both > 0", r.Kind, r.Time, r.NsPerOp())
				}
			}
		})
	}
}

func TestShardIndex(t *testing.T) {
	t.Parallel()
	tests := []struct{ g, i, iterations, shards, want int }{
		{0, 0, 10, 4, 0},
		{0, 5, 10, 4, 1},               // (0+5) mod 4
		{1, 0, 10, 4, 2},               // (10+0) mod 4
		{2, 3, 10, 4, 3},               // (20+3) mod 4
		{499, 99999, 100000, 500, 499}, // last add of the default run
		{1 << 20, 1 << 20, 1 << 30, 7, int((int64(1<<20)*(1<<30) + 1<<20) % 7)}, // product beyond int32
	}
	for _, tt := range tests {
		if got := shardIndex(tt.g, tt.i, tt.iterations, tt.shards); got != tt.want {
			t.Errorf("shardIndex(%d, %d, %d, %d): got %d; want %d", tt.g, tt.i, tt.iterations, tt.shards, got, tt.want)
		}
	}
}

// The sharded counter must put each add on the shard the formula names, not merely count right.
func TestShardedDistribution(t *testing.T) {
	t.Parallel()
	const goroutines, iterations, shards = 3, 7, 5
	c, err := newCounter(Sharded, iterations, shards)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]int64, shards)
	for g := range goroutines {
		for i := range iterations {
			c.add(g, i)
			want[(g*iterations+i)%shards]++
		}
	}
	sc := c.(*shardedCounter)
	for s := range shards {
		if got := sc.shards[s].Load(); got != want[s] {
			t.Errorf("shard %d: got %d; want %d", s, got, want[s])
		}
	}
}

func TestPaddedShardsDoNotShareALine(t *testing.T) {
	t.Parallel()
	var s [2]paddedShard
	gap := uintptr(unsafe.Pointer(&s[1].n)) - uintptr(unsafe.Pointer(&s[0].n))
	if gap < 64 {
		t.Errorf("got %d bytes between padded shards; want ≥ 64", gap)
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		cfg  Config
		want []string // substrings of the error; nil: valid
	}{
		{"zero value is the default run", Config{}, nil},
		{"negative goroutines", Config{Goroutines: -1}, []string{"Goroutines: got -1"}},
		{"negative iterations", Config{Iterations: -5}, []string{"Iterations: got -5"}},
		{"negative shards", Config{Shards: -2}, []string{"Shards: got -2"}},
		{"every problem at once", Config{Goroutines: -1, Shards: -1, Kinds: []Kind{"spin"}}, []string{"Goroutines", "Shards", `Kinds[0]: unknown counter "spin"`}},
		{"too much work", Config{Goroutines: 1 << 20, Iterations: 1 << 20}, []string{"Goroutines × Iterations"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.cfg.Validate()
			if tt.want == nil {
				if err != nil {
					t.Fatalf("got %v; want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("got nil; want an error containing %q", tt.want)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("got %q; want it to contain %q", err, w)
				}
			}
			if _, rerr := Run(context.Background(), tt.cfg); rerr == nil {
				t.Errorf("Run accepted a config Validate rejects")
			}
		})
	}
}

func TestParseKinds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    []Kind
		wantErr bool
	}{
		{"mutex", []Kind{Mutex}, false},
		{"atomic, channel", []Kind{Atomic, Channel}, false},
		{"mutex,mutex", []Kind{Mutex}, false}, // duplicates collapse
		{"sharded-padded,sharded", []Kind{ShardedPadded, Sharded}, false},
		{"", nil, true},
		{"mutex,spin", nil, true},
	}
	for _, tt := range tests {
		got, err := ParseKinds(tt.in)
		if (err != nil) != tt.wantErr {
			t.Errorf("ParseKinds(%q): got error %v; want error %v", tt.in, err, tt.wantErr)
			continue
		}
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("ParseKinds(%q): got %v; want %v", tt.in, got, tt.want)
		}
	}
}

func FuzzParseKinds(f *testing.F) {
	for _, s := range []string{"mutex", "atomic,channel", "", ",", "sharded-padded, sharded", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ks, err := ParseKinds(s)
		if err != nil {
			return
		}
		if len(ks) == 0 {
			t.Fatalf("ParseKinds(%q): no kinds and no error", s)
		}
		for _, k := range ks {
			if !k.valid() {
				t.Fatalf("ParseKinds(%q): returned invalid kind %q", s, k)
			}
		}
	})
}

func TestRunCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rs, err := Run(ctx, Config{Goroutines: 4, Iterations: checkEvery * 4, Shards: 4})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got error %v; want context.Canceled", err)
	}
	if len(rs) != 0 {
		t.Errorf("got %d results; want none from a cancelled run", len(rs))
	}
}

func TestCountError(t *testing.T) {
	t.Parallel()
	e := &CountError{Wrong: []Result{{Kind: Mutex, Ops: 10, Count: 9}}}
	if got, want := e.Error(), "contention: wrong final count: mutex counted 9; want 10"; got != want {
		t.Errorf("got %q; want %q", got, want)
	}
}

func TestNsPerOp(t *testing.T) {
	t.Parallel()
	if got := (Result{Time: 1000, Ops: 10}).NsPerOp(); got != 100 {
		t.Errorf("got %v; want 100", got)
	}
	if got := (Result{}).NsPerOp(); got != 0 {
		t.Errorf("zero result: got %v; want 0", got)
	}
}

// benchmarkKind runs b.N adds spread over 8 goroutines released from the barrier together, so
// ns/op is the wall time per add under contention.
func benchmarkKind(b *testing.B, k Kind) {
	b.ReportAllocs()
	const goroutines = 8
	iters := max(1, b.N/goroutines)
	b.ResetTimer()
	rs, err := Run(context.Background(), Config{Goroutines: goroutines, Iterations: iters, Shards: 64, Kinds: []Kind{k}})
	if err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	b.ReportMetric(rs[0].NsPerOp(), "ns/add")
}

func BenchmarkMutex(b *testing.B)         { benchmarkKind(b, Mutex) }
func BenchmarkAtomic(b *testing.B)        { benchmarkKind(b, Atomic) }
func BenchmarkSharded(b *testing.B)       { benchmarkKind(b, Sharded) }
func BenchmarkShardedPadded(b *testing.B) { benchmarkKind(b, ShardedPadded) }
func BenchmarkChannel(b *testing.B)       { benchmarkKind(b, Channel) }
