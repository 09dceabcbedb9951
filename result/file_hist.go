package result

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"math"
)

// histEncoder writes histograms in HdrHistogram's compressed V2 encoding, base64, byte for byte as
// hdrhistogram-go's Encode does, but reusing its buffers and its zlib writer from one histogram to
// the next: Encode allocates about a megabyte per histogram (a new best-compression zlib writer and
// a reflective write per bucket), garbage a load generator should not make every second. The zero
// value is ready to use; not safe for concurrent use.
type histEncoder struct {
	raw  []byte // the uncompressed encoding: 40-byte header, then the counts
	zbuf bytes.Buffer
	z    *zlib.Writer
	bin  []byte // cookie, length, compressed bytes
	out  []byte // base64 of bin
}

// V2 cookies, as hdrhistogram-go writes them (base | 0x10).
const (
	v2Cookie           = 0x1c849303 | 0x10
	v2CompressedCookie = 0x1c849304 | 0x10
)

// encode returns h in the compressed V2 encoding, base64: the counts from the first index to the
// last that is not zero (one at least, as Encode writes), a run of several zeros as its negated
// length.
func (e *histEncoder) encode(h *Histogram) (string, error) {
	e.raw = append(e.raw[:0], make([]byte, 40)...)
	next := 0 // the index after the last count written
	h.forEach(func(idx int, c int64) bool {
		switch zeros := idx - next; {
		case zeros == 1:
			e.raw = appendZigZag(e.raw, 0)
		case zeros > 1:
			e.raw = appendZigZag(e.raw, -int64(zeros))
		}
		e.raw = appendZigZag(e.raw, c)
		next = idx + 1
		return true
	})
	if next == 0 {
		e.raw = appendZigZag(e.raw, 0)
	}
	be := binary.BigEndian
	be.PutUint32(e.raw[0:], v2Cookie)
	be.PutUint32(e.raw[4:], uint32(len(e.raw)-40))
	be.PutUint32(e.raw[8:], 0) // normalizing index offset: counts are stored unrotated
	be.PutUint32(e.raw[12:], uint32(HistSigFigs))
	be.PutUint64(e.raw[16:], uint64(HistMin))
	be.PutUint64(e.raw[24:], uint64(HistMax))
	be.PutUint64(e.raw[32:], math.Float64bits(1)) // integer to double conversion ratio

	e.zbuf.Reset()
	if e.z == nil {
		z, err := zlib.NewWriterLevel(&e.zbuf, zlib.BestCompression)
		if err != nil {
			return "", err
		}
		e.z = z
	} else {
		e.z.Reset(&e.zbuf)
	}
	if _, err := e.z.Write(e.raw); err != nil {
		return "", err
	}
	if err := e.z.Close(); err != nil {
		return "", err
	}
	e.bin = be.AppendUint32(e.bin[:0], v2CompressedCookie)
	e.bin = be.AppendUint32(e.bin, uint32(e.zbuf.Len()))
	e.bin = append(e.bin, e.zbuf.Bytes()...)
	e.out = base64.StdEncoding.AppendEncode(e.out[:0], e.bin)
	return string(e.out), nil
}

// appendZigZag appends v in HdrHistogram's ZigZag LEB128-64b9B form: 7 bits a byte, the ninth byte
// holding the last 8.
func appendZigZag(b []byte, v int64) []byte {
	u := uint64(v<<1) ^ uint64(v>>63)
	for i := 0; i < 8; i++ {
		if u>>7 == 0 {
			return append(b, byte(u))
		}
		b = append(b, byte(u&0x7f|0x80))
		u >>= 7
	}
	return append(b, byte(u))
}
