package result

import (
	"fmt"
	"io"
	"math"
	"math/bits"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram is an HDR histogram of this package's range (HistMin to HistMax µs at HistSigFigs
// significant digits), held in one of two forms with the same buckets, counts and figures:
//
//   - sparse (NewHistogram): hdrhistogram-go's PackedHistogram, whose memory grows with the
//     buckets that hold values — a few hundred bytes for an endpoint hit a few times a second, some
//     kilobytes for a wide distribution — and whose recording costs a binary search;
//   - dense (newDenseHistogram): a counts array indexed as hdrhistogram-go's Histogram indexes
//     its own, about 190 KB whatever it holds, the cheapest to record into, which also keeps the
//     range of indices recorded into since it was last empty, so that merging it and emptying it
//     cost what it holds rather than its size. The Recorder's shards use it for plans with few
//     endpoints, and only record into it, merge it and reset it; its other queries go through a
//     sparse copy.
//
// Every query answers the same in both forms, bit for bit, as hdrhistogram-go's Histogram does
// (its PackedHistogram is tested for that parity, and so is this type). Distribution lists only
// the buckets that hold values. The zero value is not ready: use NewHistogram. Not safe for
// concurrent use.
type Histogram struct {
	p *hdr.PackedHistogram // the sparse form; nil when dense
	d *dense               // the dense form; nil when sparse
}

// dense is the dense form: counts at the flat index indexOf gives, their total, and the lowest and
// highest index recorded into since the last Reset (lo > hi when empty).
type dense struct {
	counts []int64
	total  int64
	lo, hi int
}

// countsLen is the length of the counts array of the package's range, as hdrhistogram-go makes it.
var countsLen = len(hdr.New(HistMin, HistMax, HistSigFigs).Export().Counts)

func (d *dense) record(v, n int64) error {
	if v < 0 {
		return fmt.Errorf("value %d is negative and cannot be recorded", v)
	}
	idx := indexOf(v)
	if uint(idx) >= uint(len(d.counts)) {
		return fmt.Errorf("value %d is too large to be recorded", v)
	}
	if n < 0 {
		return fmt.Errorf("cannot record a negative count %d", n)
	}
	if n > math.MaxInt64-d.total {
		return fmt.Errorf("recording %d more values would overflow the total count %d", n, d.total)
	}
	d.add(idx, n)
	return nil
}

// add adds n at idx, which must be in range, keeping the touched range.
func (d *dense) add(idx int, n int64) {
	if n == 0 {
		return
	}
	d.counts[idx] += n
	d.total += n
	d.lo, d.hi = min(d.lo, idx), max(d.hi, idx)
}

func (d *dense) reset() {
	if d.lo <= d.hi {
		clear(d.counts[d.lo : d.hi+1])
	}
	d.total, d.lo, d.hi = 0, len(d.counts), -1
}

// sparse returns a new sparse histogram with h's counts, for the queries of the dense form.
func (h *Histogram) sparse() *hdr.PackedHistogram {
	if h.p != nil {
		return h.p
	}
	p := hdr.NewPacked(HistMin, HistMax, HistSigFigs)
	h.forEach(func(idx int, n int64) bool { p.RecordValues(valueAt(int64(idx)), n); return true })
	return p
}

// NewHistogram returns an empty sparse histogram of the package's range (values in microseconds).
func NewHistogram() *Histogram {
	return &Histogram{p: hdr.NewPacked(HistMin, HistMax, HistSigFigs)}
}

// newDenseHistogram returns an empty dense histogram: fixed memory, the fastest to record into.
func newDenseHistogram() *Histogram {
	d := &dense{counts: make([]int64, countsLen)}
	d.reset()
	return &Histogram{d: d}
}

// Dense reports whether h is held densely.
func (h *Histogram) Dense() bool { return h.d != nil }

// RecordValue adds v; it fails only for a value out of the range (see RecordDuration, which
// clamps).
func (h *Histogram) RecordValue(v int64) error {
	if h.d != nil {
		return h.d.record(v, 1)
	}
	return h.p.RecordValue(v)
}

// RecordValues adds n occurrences of v.
func (h *Histogram) RecordValues(v, n int64) error {
	if h.d != nil {
		return h.d.record(v, n)
	}
	return h.p.RecordValues(v, n)
}

// TotalCount returns the number of values recorded.
func (h *Histogram) TotalCount() int64 {
	if h.d != nil {
		return h.d.total
	}
	return h.p.TotalCount()
}

// Min returns the lowest value equivalent to the smallest recorded.
func (h *Histogram) Min() int64 {
	return h.sparse().Min()
}

// Max returns the highest value equivalent to the largest recorded.
func (h *Histogram) Max() int64 {
	return h.sparse().Max()
}

// Mean returns the mean of the recorded values (each bucket at its median).
func (h *Histogram) Mean() float64 {
	return h.sparse().Mean()
}

// StdDev returns the standard deviation of the recorded values (each bucket at its median).
func (h *Histogram) StdDev() float64 {
	return h.sparse().StdDev()
}

// ValueAtQuantile returns the value at percentile q (0 to 100), as hdrhistogram-go's does; 0 when
// empty.
func (h *Histogram) ValueAtQuantile(q float64) int64 {
	return h.sparse().ValueAtPercentile(q)
}

// Merge adds o's counts into h; a nil or empty o adds nothing.
func (h *Histogram) Merge(o *Histogram) {
	if o == nil || o.TotalCount() == 0 {
		return
	}
	switch {
	case h.d != nil:
		o.forEach(func(idx int, n int64) bool { h.d.add(idx, n); return true })
	case o.d != nil:
		o.forEach(func(idx int, n int64) bool { h.p.RecordValues(valueAt(int64(idx)), n); return true })
	default:
		h.p.Merge(o.p)
	}
}

// Reset empties h, keeping its memory.
func (h *Histogram) Reset() {
	if h.d != nil {
		h.d.reset()
	} else {
		h.p.Reset()
	}
}

// Distribution returns a bar per bucket that holds values, in increasing order: its lowest and
// highest equivalent values and its count. (hdrhistogram-go's also lists empty buckets.)
func (h *Histogram) Distribution() []hdr.Bar {
	var bars []hdr.Bar
	h.forEach(func(idx int, n int64) bool {
		v := valueAt(int64(idx))
		bars = append(bars, hdr.Bar{From: v, To: highestEquivalent(v), Count: n})
		return true
	})
	return bars
}

// HDR returns a new dense hdrhistogram-go Histogram with h's counts, for the tools that need one.
func (h *Histogram) HDR() *hdr.Histogram {
	d := hdr.New(HistMin, HistMax, HistSigFigs)
	h.sparse().MergeInto(d)
	return d
}

// PercentilesPrint writes h's percentile distribution as hdrhistogram-go's does.
func (h *Histogram) PercentilesPrint(w io.Writer, ticksPerHalfDistance int32, valueScale float64) (io.Writer, error) {
	return h.HDR().PercentilesPrint(w, ticksPerHalfDistance, valueScale)
}

// MemorySize returns about how many bytes h holds.
func (h *Histogram) MemorySize() int {
	if h.d != nil {
		return 8 * len(h.d.counts)
	}
	return h.p.GetMemorySize()
}

// forEach calls fn with the flat index (as in the V2 encoding) and the count of every bucket that
// holds values, in increasing order, until fn returns false.
func (h *Histogram) forEach(fn func(idx int, n int64) bool) {
	if h.p != nil {
		h.p.ForEachBucket(func(v, n int64) bool { return fn(indexOf(v), n) })
		return
	}
	d := h.d
	for idx := d.lo; idx <= d.hi; idx++ {
		if n := d.counts[idx]; n != 0 && !fn(idx, n) {
			return
		}
	}
}

// The geometry of the package's range: 2048 sub-buckets (3 digits) at unit 1 in the first bucket,
// then the upper 1024 of each bucket at twice the scale of the one before.
const (
	subHalfMag = 10
	subHalf    = 1 << subHalfMag
	subMask    = 2*subHalf - 1
)

// indexOf returns the flat index of the bucket counting v (the inverse of valueAt on the values it
// returns), as hdrhistogram-go computes it for this package's range.
func indexOf(v int64) int {
	bucket := 64 - bits.LeadingZeros64(uint64(v|subMask)) - (subHalfMag + 1)
	sub := int(v >> bucket)
	return (bucket+1)<<subHalfMag + sub - subHalf
}

// highestEquivalent returns the highest value counted in the bucket of v.
func highestEquivalent(v int64) int64 {
	bucket := 64 - bits.LeadingZeros64(uint64(v|subMask)) - (subHalfMag + 1)
	return (v>>bucket)<<bucket + int64(1)<<bucket - 1
}

// Equals reports whether h and o hold the same counts in the same buckets, whatever their forms.
func (h *Histogram) Equals(o *Histogram) bool {
	if h.TotalCount() != o.TotalCount() {
		return false
	}
	type bucket struct {
		idx int
		n   int64
	}
	var a []bucket
	h.forEach(func(idx int, n int64) bool { a = append(a, bucket{idx, n}); return true })
	i, same := 0, true
	o.forEach(func(idx int, n int64) bool {
		same = i < len(a) && a[i] == bucket{idx, n}
		i++
		return same
	})
	return same && i == len(a)
}
