package contention

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/cpu"
)

// Kind names one counter implementation.
type Kind string

// The counters, in the order Run measures them.
const (
	// Mutex is an int64 guarded by a sync.Mutex.
	Mutex Kind = "mutex"
	// Atomic is a single atomic.Int64 that every goroutine adds to.
	Atomic Kind = "atomic"
	// Sharded is a slice of atomic.Int64 shards laid out next to each other, so neighbouring shards
	// share a cache line (false sharing). Goroutine g at iteration i adds to shard
	// (g·Iterations + i) mod Shards; the total is the sum of the shards.
	Sharded Kind = "sharded"
	// ShardedPadded is Sharded with every shard padded to a cache line of its own, which removes the
	// false sharing and leaves only the true sharing of the shard choice.
	ShardedPadded Kind = "sharded-padded"
	// Channel is a count owned by one goroutine that receives every increment on an unbuffered
	// channel: each Add is a hand-off between two goroutines.
	Channel Kind = "channel"
)

// Kinds returns every counter kind, in the order Run measures them.
func Kinds() []Kind { return []Kind{Mutex, Atomic, Sharded, ShardedPadded, Channel} }

// ParseKinds parses a comma-separated list of counter kinds, such as "mutex,atomic".
func ParseKinds(s string) ([]Kind, error) {
	var ks []Kind
	seen := map[Kind]bool{}
	for _, f := range strings.Split(s, ",") {
		k := Kind(strings.TrimSpace(f))
		if !k.valid() {
			return nil, fmt.Errorf("unknown counter %q; want one of %s", f, kindList())
		}
		if !seen[k] {
			seen[k] = true
			ks = append(ks, k)
		}
	}
	return ks, nil
}

func (k Kind) valid() bool {
	for _, v := range Kinds() {
		if k == v {
			return true
		}
	}
	return false
}

func kindList() string {
	var s []string
	for _, k := range Kinds() {
		s = append(s, string(k))
	}
	return strings.Join(s, ", ")
}

// counter is what the runner drives: add is called by goroutine g at iteration i; total is read
// once every goroutine has finished. close releases any goroutine the counter owns.
type counter interface {
	add(g, i int)
	total() int64
	close()
}

// newCounter returns a fresh counter of kind k for a run of the given shape.
func newCounter(k Kind, iterations, shards int) (counter, error) {
	switch k {
	case Mutex:
		return &mutexCounter{}, nil
	case Atomic:
		return &atomicCounter{}, nil
	case Sharded:
		return &shardedCounter{shards: make([]atomic.Int64, shards), iterations: iterations}, nil
	case ShardedPadded:
		return &paddedCounter{shards: make([]paddedShard, shards), iterations: iterations}, nil
	case Channel:
		return newChannelCounter(), nil
	}
	return nil, fmt.Errorf("unknown counter %q; want one of %s", k, kindList())
}

type mutexCounter struct {
	mu sync.Mutex
	n  int64
}

func (c *mutexCounter) add(int, int) {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
}

func (c *mutexCounter) total() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

func (c *mutexCounter) close() {}

type atomicCounter struct{ n atomic.Int64 }

func (c *atomicCounter) add(int, int) { c.n.Add(1) }
func (c *atomicCounter) total() int64 { return c.n.Load() }
func (c *atomicCounter) close()       {}

// shardIndex is (g·iterations + i) mod shards, computed without overflow for any int inputs that
// Config.Validate accepts.
func shardIndex(g, i, iterations, shards int) int {
	return int((int64(g)*int64(iterations) + int64(i)) % int64(shards))
}

type shardedCounter struct {
	shards     []atomic.Int64
	iterations int
}

func (c *shardedCounter) add(g, i int) {
	c.shards[shardIndex(g, i, c.iterations, len(c.shards))].Add(1)
}

func (c *shardedCounter) total() int64 {
	var t int64
	for i := range c.shards {
		t += c.shards[i].Load()
	}
	return t
}

func (c *shardedCounter) close() {}

// paddedShard keeps its count on a cache line that no other shard's count shares: the pad is a whole
// cache line of the running CPU, so consecutive counts are at least that far apart.
type paddedShard struct {
	n atomic.Int64
	_ cpu.CacheLinePad
}

type paddedCounter struct {
	shards     []paddedShard
	iterations int
}

func (c *paddedCounter) add(g, i int) {
	c.shards[shardIndex(g, i, c.iterations, len(c.shards))].n.Add(1)
}

func (c *paddedCounter) total() int64 {
	var t int64
	for i := range c.shards {
		t += c.shards[i].n.Load()
	}
	return t
}

func (c *paddedCounter) close() {}

// channelCounter owns its count in one goroutine; add sends on an unbuffered channel, total asks the
// owner for the count through a request channel, close stops the owner.
type channelCounter struct {
	inc  chan struct{}
	read chan chan int64
	stop chan struct{}
	done chan struct{}
}

func newChannelCounter() *channelCounter {
	c := &channelCounter{
		inc:  make(chan struct{}),
		read: make(chan chan int64),
		stop: make(chan struct{}),
		done: make(chan struct{}),
	}
	go c.own()
	return c
}

func (c *channelCounter) own() {
	defer close(c.done)
	var n int64
	for {
		select {
		case <-c.inc:
			n++
		case r := <-c.read:
			r <- n
		case <-c.stop:
			return
		}
	}
}

func (c *channelCounter) add(int, int) { c.inc <- struct{}{} }

func (c *channelCounter) total() int64 {
	r := make(chan int64)
	c.read <- r
	return <-r
}

func (c *channelCounter) close() {
	close(c.stop)
	<-c.done
}
