package items

import (
	"hash/maphash"
	"sync"
	"time"
)

// item is one stored item. It is immutable once stored: a create replaces the pointer.
type item struct {
	id, name string
	ts       time.Time
	// json is the item encoded as a JSON object without its closing brace and without payload,
	// e.g. {"id":"1","name":"pen","timestamp":"2026-01-01T00:00:00Z"
	json []byte
}

func newItem(id, name string, ts time.Time) *item {
	b := make([]byte, 0, 48+len(id)+len(name))
	b = append(b, `{"id":`...)
	b = appendJSONString(b, id)
	b = append(b, `,"name":`...)
	b = appendJSONString(b, name)
	b = append(b, `,"timestamp":"`...)
	b = ts.AppendFormat(b, time.RFC3339Nano)
	b = append(b, '"')
	return &item{id: id, name: name, ts: ts, json: b}
}

// storeShards is the number of shards of a store: enough that 2–64 cores rarely meet on a lock.
const storeShards = 64

// store is a concurrent map from id to item, split into shards each under its own lock.
// The zero value is not usable; use newStore. Safe for concurrent use.
type store struct {
	seed   maphash.Seed
	shards [storeShards]shard
}

type shard struct {
	mu sync.RWMutex
	m  map[string]*item
	_  [40]byte // keeps neighbouring shards' locks off one cache line
}

func newStore() *store {
	s := &store{seed: maphash.MakeSeed()}
	for i := range s.shards {
		s.shards[i].m = make(map[string]*item)
	}
	return s
}

func (s *store) shard(id string) *shard {
	return &s.shards[maphash.String(s.seed, id)%storeShards]
}

func (s *store) put(it *item) {
	sh := s.shard(it.id)
	sh.mu.Lock()
	sh.m[it.id] = it
	sh.mu.Unlock()
}

func (s *store) get(id string) (*item, bool) {
	sh := s.shard(id)
	sh.mu.RLock()
	it, ok := sh.m[id]
	sh.mu.RUnlock()
	return it, ok
}

func (s *store) len() int {
	n := 0
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.RLock()
		n += len(sh.m)
		sh.mu.RUnlock()
	}
	return n
}
