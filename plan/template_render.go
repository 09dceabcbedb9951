package plan

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"strconv"
	"time"
)

// gen is one sender's render state: its own random generator (no lock is shared between senders)
// and the values of the request being rendered. The zero value is not usable: see newGen.
type gen struct {
	pcg rand.PCG
	rng *rand.Rand
	seq uint64    // the request's sequence number, for {{seq}}
	now time.Time // the request's time, for {{now}} and friends
	row [][]byte  // the request's data row, for {{.field}}
}

// newGen returns a render state whose generator is seeded with (seed, stream): give every sender
// its own stream.
func newGen(seed, stream uint64) *gen {
	g := &gen{}
	g.pcg.Seed(seed, stream)
	g.rng = rand.New(&g.pcg)
	return g
}

// randAlphabet holds the 64 characters of {{randString}}: each takes 6 random bits.
const randAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

const hexDigits = "0123456789abcdef"

// appendTo renders t for the request whose values g holds, appending to dst. It parses nothing
// and allocates only when dst must grow.
func (t *Template) appendTo(dst []byte, g *gen) []byte {
	if t == nil {
		return dst
	}
	for i := range t.segs {
		s := &t.segs[i]
		switch s.kind {
		case segLit:
			dst = append(dst, s.lit...)
		case segRandInt:
			var v uint64
			if s.span == math.MaxUint64 {
				v = g.rng.Uint64()
			} else {
				v = g.rng.Uint64N(s.span + 1)
			}
			dst = strconv.AppendInt(dst, s.lo+int64(v), 10)
		case segSeq:
			dst = strconv.AppendUint(dst, g.seq, 10)
		case segUUID:
			dst = appendUUID(dst, g.rng)
		case segRandString:
			var bits uint64
			for j := 0; j < s.n; j++ {
				if j%10 == 0 {
					bits = g.rng.Uint64()
				}
				dst = append(dst, randAlphabet[bits&63])
				bits >>= 6
			}
		case segRandHex:
			dst = append(dst, '0', 'x')
			var bits uint64
			for j := 0; j < s.n; j++ {
				if j%8 == 0 {
					bits = g.rng.Uint64()
				}
				dst = append(dst, hexDigits[bits>>4&15], hexDigits[bits&15])
				bits >>= 8
			}
		case segPick:
			dst = append(dst, s.picks[g.rng.IntN(len(s.picks))]...)
		case segNowMillis:
			dst = strconv.AppendInt(dst, g.now.UnixMilli(), 10)
		case segNowUnix:
			dst = strconv.AppendInt(dst, g.now.Unix(), 10)
		case segNowRFC3339:
			dst = g.now.UTC().AppendFormat(dst, "2006-01-02T15:04:05.000Z07:00")
		case segField:
			if s.n < len(g.row) {
				dst = append(dst, g.row[s.n]...)
			}
		}
	}
	return dst
}

// appendUUID appends a random (version 4, RFC 9562) UUID.
func appendUUID(dst []byte, r *rand.Rand) []byte {
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], r.Uint64())
	binary.LittleEndian.PutUint64(b[8:], r.Uint64())
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	for i, c := range b {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			dst = append(dst, '-')
		}
		dst = append(dst, hexDigits[c>>4], hexDigits[c&15])
	}
	return dst
}
