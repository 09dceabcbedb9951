// Package zstd stands in for github.com/DataDog/zstd in rpcbench's build (a replace directive in
// rpcbench's go.mod). Pebble, the storage engine of `rpcbench serve kv`, imports DataDog/zstd for
// its zstd-compressed tables whenever cgo is on: a cgo wrapper around the C library, whose C files
// were the largest part of a cold `go build ./cmd/rpcbench` (about half of its CPU time went to
// them; docs/performance.md). This package offers the part of DataDog/zstd's API that Pebble
// calls, on github.com/klauspost/compress/zstd, the pure-Go library Pebble itself uses when cgo is
// off. Both read and write standard zstd frames, so a store written by either reads with the other.
//
// rpcbench's own store never writes zstd (it keeps Pebble's default, Snappy); this path serves a
// --data-dir whose tables another Pebble program wrote with zstd.
package zstd

import (
	"bytes"
	"io"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// codecs are made on first use, so that no other rpcbench command pays for their tables; both are
// safe for concurrent EncodeAll and DecodeAll.
var codecs = sync.OnceValues(func() (*zstd.Encoder, *zstd.Decoder) {
	// Level 3 is the only level Pebble asks for (and the C library's default); these options cannot
	// fail, so neither can the constructors.
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.EncoderLevelFromZstd(3)))
	if err != nil {
		panic("zstd: " + err.Error())
	}
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(0))
	if err != nil {
		panic("zstd: " + err.Error())
	}
	return enc, dec
})

// Decompress returns the data of the zstd frame(s) in src. As DataDog/zstd's, it decodes into dst
// when the data fits in dst's capacity (Pebble passes a buffer of exactly the decoded length and
// checks that the result is that buffer), and into a new buffer otherwise.
func Decompress(dst, src []byte) ([]byte, error) {
	_, dec := codecs()
	return dec.DecodeAll(src, dst[:0])
}

// Writer compresses what is written to it into one zstd frame, written to the underlying writer
// by Close.
type Writer struct {
	w     io.Writer
	level int
	buf   bytes.Buffer
}

// NewWriterLevel returns a Writer onto w that compresses at level (zstd's levels; Pebble uses 3).
func NewWriterLevel(w io.Writer, level int) *Writer {
	return &Writer{w: w, level: level}
}

// Write keeps p for Close; it cannot fail.
func (z *Writer) Write(p []byte) (int, error) {
	return z.buf.Write(p)
}

// Close compresses what was written as one frame and writes it to the underlying writer.
func (z *Writer) Close() error {
	enc, _ := codecs()
	if z.level != 3 {
		// Not Pebble's level: an encoder of its own, for this frame only.
		var err error
		if enc, err = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.EncoderLevelFromZstd(z.level))); err != nil {
			return err
		}
		defer enc.Close()
	}
	_, err := z.w.Write(enc.EncodeAll(z.buf.Bytes(), nil))
	z.buf.Reset()
	return err
}
