package kv

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/cockroachdb/pebble"
	"github.com/cockroachdb/pebble/objstorage/objstorageprovider"
	"github.com/cockroachdb/pebble/sstable"
	"github.com/cockroachdb/pebble/vfs"
)

// DefaultPrefillValueBytes is the size of a prefilled value when Prefill.ValueBytes is zero.
const DefaultPrefillValueBytes = 100

// MaxPrefillValueBytes is the largest Prefill.ValueBytes.
const MaxPrefillValueBytes = 64 << 20

// Prefill describes the keys to load before serving: keys PrefillKey(0) … PrefillKey(n-1) ("0",
// "1", … in decimal), each with the value PrefillValue(i, ValueBytes). Set Keys or Bytes, not
// both. The zero value loads nothing. Keys that exist are overwritten, so a prefill on a kept
// directory is repeatable. The records are written as sorted table files and ingested into the
// store, not sent through its write-ahead log: 1 GB takes seconds, and is on disk when New returns.
type Prefill struct {
	// Keys is how many keys to load.
	Keys int64
	// Bytes is how many value bytes to load: Keys becomes Bytes/ValueBytes, rounded up.
	Bytes int64
	// ValueBytes is the size of each value. Zero: DefaultPrefillValueBytes.
	ValueBytes int
	// Progress, if set, is called from New's goroutine after each batch is written, with the keys
	// written so far and the total.
	Progress func(done, total int64)
}

// PrefillStats says what a prefill loaded.
type PrefillStats struct {
	Keys       int64         // keys written
	ValueBytes int64         // value bytes written
	Took       time.Duration // from the first write until the data was flushed to disk
}

// String says what the prefill loaded, as GET /v0/prefill answers it: "prefilled 100000 keys,
// 10000000 bytes of values, in 1.234s", or "no prefill".
func (p PrefillStats) String() string {
	if p.Keys == 0 {
		return "no prefill"
	}
	return fmt.Sprintf("prefilled %d keys, %d bytes of values, in %s", p.Keys, p.ValueBytes, p.Took.Round(time.Millisecond))
}

// Count is the number of keys p loads.
func (p Prefill) Count() int64 {
	if p.Bytes > 0 {
		vb := int64(p.valueBytes())
		return (p.Bytes + vb - 1) / vb
	}
	return p.Keys
}

func (p Prefill) valueBytes() int {
	if p.ValueBytes == 0 {
		return DefaultPrefillValueBytes
	}
	return p.ValueBytes
}

func (p Prefill) validate() error {
	switch {
	case p.Keys < 0:
		return fmt.Errorf("kv: Prefill.Keys is %d; want 0 or more", p.Keys)
	case p.Bytes < 0:
		return fmt.Errorf("kv: Prefill.Bytes is %d; want 0 or more", p.Bytes)
	case p.Keys > 0 && p.Bytes > 0:
		return fmt.Errorf("kv: Prefill has Keys (%d) and Bytes (%d); want one of them", p.Keys, p.Bytes)
	case p.ValueBytes < 0 || p.ValueBytes > MaxPrefillValueBytes:
		return fmt.Errorf("kv: Prefill.ValueBytes is %d; want 1 to %d (0: %d)", p.ValueBytes, MaxPrefillValueBytes, DefaultPrefillValueBytes)
	}
	return nil
}

// PrefillKey is the key of the i-th prefilled record: i in decimal.
func PrefillKey(i int64) string { return strconv.FormatInt(i, 10) }

// PrefillValue is the value of the i-th prefilled record: n letters and digits, a deterministic
// function of i that does not compress much (so 1 GB of values is about 1 GB on disk).
func PrefillValue(i int64, n int) []byte { return appendValue(nil, i, n) }

const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

// appendValue appends PrefillValue(i, n) to b, from a splitmix64 stream seeded with i.
func appendValue(b []byte, i int64, n int) []byte {
	x := uint64(i)*0x9E3779B97F4A7C15 + 0x2545F4914F6CDD1D
	for n > 0 {
		x += 0x9E3779B97F4A7C15
		z := x
		z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
		z = (z ^ (z >> 27)) * 0x94D049BB133111EB
		z ^= z >> 31
		for k := 0; k < 10 && n > 0; k++ {
			b = append(b, alnum[z&63])
			z >>= 6
			n--
		}
	}
	return b
}

// prefillTableBytes is the size of one table file the prefill writes.
const prefillTableBytes = 64 << 20

// prefill loads p's keys the fastest way an LSM allows: it writes sorted table files itself, in
// parallel, and ingests them, so the data skips the write-ahead log, the memtable and the
// compactions that a stream of write batches pays for (about 4 times faster here). Ingest syncs
// each file before it becomes visible, so the load is durable when prefill returns. Keys go in the
// byte order of their decimal strings ("0", "1", "10", "100", …, "11", …), which keeps each file
// sorted and the files disjoint.
func prefill(ctx context.Context, db *pebble.DB, dir string, opts *pebble.Options, p Prefill) (PrefillStats, error) {
	total := p.Count()
	if total == 0 {
		return PrefillStats{}, nil
	}
	vb := p.valueBytes()
	began := time.Now()
	tmp, err := os.MkdirTemp(dir, "prefill-")
	if err != nil {
		return PrefillStats{}, fmt.Errorf("kv: prefill: %w", err)
	}
	defer os.RemoveAll(tmp)
	wopts := opts.MakeWriterOptions(6, db.FormatMajorVersion().MaxTableFormat())
	wopts.Compression = sstable.NoCompression

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Tables of at most prefillTableBytes, and at least 16 of them so that progress shows.
	perTable := max(1, min(prefillTableBytes/int64(vb+8), (total+15)/16))
	jobs := make(chan tableJob)
	done := make(chan tableJob)
	go func() { // producer: cut the lexicographic key sequence into tables
		defer close(jobs)
		next := lexOrder(total)
		for n := 0; ; n++ {
			keys := make([]int64, 0, min(perTable, total))
			for int64(len(keys)) < perTable {
				k, ok := next()
				if !ok {
					break
				}
				keys = append(keys, k)
			}
			if len(keys) == 0 {
				return
			}
			select {
			case jobs <- tableJob{path: filepath.Join(tmp, fmt.Sprintf("%06d.sst", n)), keys: keys}:
			case <-ctx.Done():
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for range min(2, runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for j := range jobs {
				j.err = writeTable(ctx, j.path, wopts, j.keys, vb)
				select {
				case done <- j:
				case <-ctx.Done():
					return
				}
			}
		})
	}
	go func() { wg.Wait(); close(done) }()

	var written int64
	stop := func(err error) (PrefillStats, error) {
		cancel()
		for range done { // let the workers finish before the files are removed
		}
		return PrefillStats{}, fmt.Errorf("kv: prefill stopped after %d of %d keys: %w", written, total, err)
	}
	for {
		var j tableJob
		var ok bool
		select {
		case j, ok = <-done:
		case <-ctx.Done():
			return stop(ctx.Err())
		}
		if !ok {
			break
		}
		if j.err == nil {
			j.err = db.Ingest([]string{j.path})
		}
		if j.err != nil {
			return stop(j.err)
		}
		written += int64(len(j.keys))
		if p.Progress != nil {
			p.Progress(written, total)
		}
	}
	if err := ctx.Err(); err != nil { // the producer stopped early
		return PrefillStats{}, fmt.Errorf("kv: prefill stopped after %d of %d keys: %w", written, total, err)
	}
	return PrefillStats{Keys: total, ValueBytes: total * int64(vb), Took: time.Since(began)}, nil
}

// tableJob is one table file of the prefill: its keys, in order, and how writing it went.
type tableJob struct {
	path string
	keys []int64
	err  error
}

// writeTable writes the records of keys (already in byte order) into a new table file. It gives
// up soon after ctx is done.
func writeTable(ctx context.Context, path string, o sstable.WriterOptions, keys []int64, vb int) error {
	f, err := vfs.Default.Create(path)
	if err != nil {
		return err
	}
	w := sstable.NewWriter(objstorageprovider.NewFileWritable(f), o)
	var key, val []byte
	for n, i := range keys {
		if n%4096 == 0 && ctx.Err() != nil {
			w.Close() //nolint:errcheck // abandoned
			return ctx.Err()
		}
		key = strconv.AppendInt(key[:0], i, 10)
		val = appendValue(val[:0], i, vb)
		if err := w.Set(key, val); err != nil {
			w.Close() //nolint:errcheck // the Set error is the one to report
			return err
		}
	}
	return w.Close() // closes f too
}

// lexOrder returns an iterator over 0 … n-1 in the byte order of their decimal strings:
// 0, 1, 10, 100, …, 101, …, 11, …, 2, ….
func lexOrder(n int64) func() (int64, bool) {
	var emitted int64
	cur := int64(1)
	return func() (int64, bool) {
		switch {
		case emitted >= n:
			return 0, false
		case emitted == 0:
			emitted++
			return 0, true // "0" sorts first
		}
		emitted++
		k := cur
		// Depth first: append a 0 while the number stays below n; else step to the next sibling,
		// climbing up past the 9s and past the numbers that would reach n.
		if cur <= (n-1)/10 {
			cur *= 10
		} else {
			for cur%10 == 9 || cur+1 > n-1 {
				cur /= 10
			}
			cur++
		}
		return k, true
	}
}
