package kv

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/DataDog/zstd"
	"github.com/cockroachdb/pebble"
)

// fixtureLines is the text in testdata/lines.zst, compressed by the C zstd program (zstd -3).
func fixtureLines() []byte {
	var b bytes.Buffer
	for i := range 400 {
		fmt.Fprintf(&b, "key %05d value %s\n", i, strings.Repeat(string("abcdefghij"[i%10]), i%37))
	}
	return b.Bytes()
}

// A frame written by the C library decodes, and into the buffer given when it fits: Pebble
// passes one of exactly the decoded length and calls any other result corruption.
func TestZstdDecodesTheCLibrarysFrames(t *testing.T) {
	frame, err := os.ReadFile("testdata/lines.zst")
	if err != nil {
		t.Fatal(err)
	}
	want := fixtureLines()
	got, err := zstd.Decompress(nil, frame)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("Decompress(nil, lines.zst) = %d bytes, %v; want the %d bytes of fixtureLines", len(got), err, len(want))
	}
	buf := make([]byte, len(want))
	got, err = zstd.Decompress(buf, frame)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("Decompress(buf, lines.zst) = %d bytes, %v; want the %d bytes of fixtureLines", len(got), err, len(want))
	}
	if &got[0] != &buf[0] {
		t.Fatal("Decompress(buf, …) decoded into a new buffer; want buf, as Pebble checks")
	}
	if _, err := zstd.Decompress(nil, frame[:len(frame)/2]); err == nil {
		t.Fatal("Decompress of half a frame: no error")
	}
}

// A store whose tables another Pebble program wrote with zstd serves its keys: the tables are
// written through the stand-in's Writer and read back through its Decompress.
func TestServesAStoreWrittenWithZstd(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	opts := storeOptions(nil)
	for i := range opts.Levels {
		opts.Levels[i].Compression = pebble.ZstdCompression
	}
	db, err := pebble.Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	const n = 2000
	value := func(i int) string { return strings.Repeat(fmt.Sprintf("value of key %d; ", i), 8) }
	for i := range n {
		if err := db.Set([]byte(fmt.Sprint(i)), []byte(value(i)), pebble.NoSync); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Flush(); err != nil {
		t.Fatal(err)
	}
	levels, err := db.SSTables(pebble.WithProperties())
	if err != nil {
		t.Fatal(err)
	}
	tables, size := 0, uint64(0)
	for _, level := range levels {
		for _, sst := range level {
			tables++
			size += sst.Size
			if c := sst.Properties.CompressionName; c != "ZSTD" {
				t.Fatalf("table %s is compressed with %q; want ZSTD", sst.FileNum, c)
			}
		}
	}
	if tables == 0 {
		t.Fatal("the flush wrote no table")
	}
	// Pebble keeps a block uncompressed when compressing does not save an eighth of it; the values
	// repeat one phrase eight times, so zstd takes them to far less than half.
	raw := 0
	for i := range n {
		raw += len(value(i))
	}
	if size*2 > uint64(raw) {
		t.Fatalf("the tables take %d bytes for %d bytes of values; want less than half: were the blocks compressed?", size, raw)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	s := start(t, Config{Dir: dir})
	for _, i := range []int{0, 1, n / 2, n - 1} {
		if code, body := do(t, "GET", entityURL(s, fmt.Sprint(i)), ""); code != 200 || body != value(i) {
			t.Fatalf("GET %d = %d %q; want 200 %q", i, code, body, value(i))
		}
	}
}
