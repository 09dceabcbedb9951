package schedule

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Execution segments split one run over several generators. A segment is a part [From, To) of the
// unit interval; a sequence is the list of boundaries that cut [0, 1) into the parts every
// generator of the run takes, e.g. 0, 1/4, 1/2, 1 for three generators, the last taking half.
//
// The parts are striped, not blocked: over a period of L arrivals (L the least common denominator
// of the sequence), a part of size f owns f·L of them, spread evenly over the period by smooth
// weighted round robin (at each slot, every part earns its size and the part with the most credit
// takes the slot and pays L). Arrival i belongs to the part that owns slot i mod L, so the parts of
// one sequence own every arrival exactly once whatever the load shape, and each sees the arrivals of
// the global schedule at their global due times. The same striping splits connections and data rows.

// MaxPeriod bounds the least common denominator of a sequence: the period of its striping.
const MaxPeriod = 1 << 20

// Frac is a non-negative fraction N/D in lowest terms. The zero value is 0/0; use NewFrac.
type Frac struct{ N, D uint64 }

// NewFrac returns n/d in lowest terms; d must not be 0.
func NewFrac(n, d uint64) Frac {
	g := gcd(n, d)
	return Frac{n / g, d / g}
}

func (f Frac) String() string {
	if f.D == 1 {
		return strconv.FormatUint(f.N, 10)
	}
	return strconv.FormatUint(f.N, 10) + "/" + strconv.FormatUint(f.D, 10)
}

// less reports whether f < g (both with denominators ≤ MaxPeriod, so the products fit).
func (f Frac) less(g Frac) bool { return f.N*g.D < g.N*f.D }

// Segment is the part [From, To) of the unit interval one generator runs, and the sequence of
// boundaries its part belongs to (Sequence[0] = 0, last = 1, From and To among them). It is plain
// data, safe to copy and for concurrent use.
type Segment struct {
	From, To Frac
	Sequence []Frac
}

// String returns the segment as a fraction range, "1/8:1/4".
func (s Segment) String() string { return s.From.String() + ":" + s.To.String() }

// SequenceString returns the sequence, "0,1/8,1/4,…,1".
func (s Segment) SequenceString() string {
	parts := make([]string, len(s.Sequence))
	for i, f := range s.Sequence {
		parts[i] = f.String()
	}
	return strings.Join(parts, ",")
}

// Overlaps reports whether s and o share some part of the unit interval.
func (s Segment) Overlaps(o Segment) bool { return s.From.less(o.To) && o.From.less(s.To) }

// ParseSegment reads a segment: "K/N", the K-th of N equal parts (1 ≤ K ≤ N), whose sequence is the
// N equal parts; or "A:B", a fraction range 0 ≤ A < B ≤ 1 (fractions such as 1/8 or decimals such
// as 0.125), whose sequence is sequence when given (ParseSequence; it must hold A and B), else 0, A,
// B, 1.
func ParseSegment(s, sequence string) (Segment, error) {
	s = strings.TrimSpace(s)
	var seg Segment
	if a, b, ok := strings.Cut(s, ":"); ok {
		from, err := parseFrac(a)
		if err != nil {
			return seg, fmt.Errorf("segment %q: %v", s, err)
		}
		to, err := parseFrac(b)
		if err != nil {
			return seg, fmt.Errorf("segment %q: %v", s, err)
		}
		if !from.less(to) || NewFrac(1, 1).less(to) {
			return seg, fmt.Errorf("segment %q: want A:B with 0 ≤ A < B ≤ 1, e.g. 1/8:2/8", s)
		}
		seg.From, seg.To = from, to
		seg.Sequence = dedupe([]Frac{{0, 1}, from, to, {1, 1}})
	} else {
		ks, ns, ok := strings.Cut(s, "/")
		k, err1 := strconv.ParseUint(strings.TrimSpace(ks), 10, 64)
		n, err2 := strconv.ParseUint(strings.TrimSpace(ns), 10, 64)
		if !ok || err1 != nil || err2 != nil || n == 0 || k == 0 || k > n {
			return seg, fmt.Errorf("segment %q: want K/N, the K-th of N equal parts with 1 ≤ K ≤ N (e.g. 2/8), or a fraction range A:B (e.g. 1/8:2/8)", s)
		}
		if n > MaxPeriod {
			return seg, fmt.Errorf("segment %q: at most %d parts", s, MaxPeriod)
		}
		if sequence != "" {
			return seg, fmt.Errorf("segment %q: K/N takes N equal parts; a sequence goes with a fraction range A:B", s)
		}
		seg.From, seg.To = NewFrac(k-1, n), NewFrac(k, n)
		seg.Sequence = make([]Frac, n+1)
		for i := range seg.Sequence {
			seg.Sequence[i] = NewFrac(uint64(i), n)
		}
		return seg, nil
	}
	if sequence != "" {
		seq, err := ParseSequence(sequence)
		if err != nil {
			return seg, err
		}
		if !isBoundary(seq, seg.From, seg.To) {
			return seg, fmt.Errorf("segment %s is not a part of sequence %q: want two consecutive boundaries of it", seg, sequence)
		}
		seg.Sequence = seq
	}
	if _, err := period(seg.Sequence); err != nil {
		return seg, err
	}
	return seg, nil
}

// ParseSequence reads a sequence of boundaries, "0,1/4,1/2,1": rising strictly from 0 to 1.
func ParseSequence(s string) ([]Frac, error) {
	var seq []Frac
	for _, part := range strings.Split(s, ",") {
		f, err := parseFrac(part)
		if err != nil {
			return nil, fmt.Errorf("segment sequence %q: %v", s, err)
		}
		if len(seq) > 0 && !seq[len(seq)-1].less(f) {
			return nil, fmt.Errorf("segment sequence %q: %s after %s: want boundaries rising from 0 to 1 (overlapping parts)", s, f, seq[len(seq)-1])
		}
		seq = append(seq, f)
	}
	if len(seq) < 2 || seq[0] != (Frac{0, 1}) || seq[len(seq)-1] != (Frac{1, 1}) {
		return nil, fmt.Errorf("segment sequence %q: want boundaries from 0 to 1, e.g. 0,1/4,1/2,1", s)
	}
	if _, err := period(seq); err != nil {
		return nil, err
	}
	return seq, nil
}

// parseFrac reads 0, 1, a fraction n/d or a decimal, within [0, 1].
func parseFrac(s string) (Frac, error) {
	s = strings.TrimSpace(s)
	r, ok := new(big.Rat).SetString(s)
	if !ok || r.Sign() < 0 || r.Cmp(big.NewRat(1, 1)) > 0 {
		return Frac{}, fmt.Errorf("%q: want a fraction from 0 to 1 (e.g. 1/8 or 0.125)", s)
	}
	if !r.Denom().IsUint64() || r.Denom().Uint64() > MaxPeriod {
		return Frac{}, fmt.Errorf("%q: a denominator above %d", s, MaxPeriod)
	}
	return NewFrac(r.Num().Uint64(), r.Denom().Uint64()), nil
}

func isBoundary(seq []Frac, from, to Frac) bool {
	for i := 1; i < len(seq); i++ {
		if seq[i-1] == from && seq[i] == to {
			return true
		}
	}
	return false
}

func dedupe(seq []Frac) []Frac {
	out := seq[:1]
	for _, f := range seq[1:] {
		if f != out[len(out)-1] {
			out = append(out, f)
		}
	}
	return out
}

// period returns the least common denominator of seq.
func period(seq []Frac) (uint64, error) {
	l := uint64(1)
	for _, f := range seq {
		l = l / gcd(l, f.D) * f.D
		if l > MaxPeriod {
			return 0, fmt.Errorf("segment sequence: the least common denominator is above %d: use simpler fractions", MaxPeriod)
		}
	}
	return l, nil
}

func gcd(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	if a == 0 {
		return 1
	}
	return a
}

// Stripe is the set of indices (arrivals, connections, data rows) a segment owns: the slots
// Offsets of every period of L indices. Make it with NewStripe; a Stripe is immutable and safe for
// concurrent use. A nil *Stripe owns everything (no segment).
type Stripe struct {
	L       uint64
	Offsets []uint64 // ascending, within [0, L)
}

// ErrSequenceTooFine is returned for sequences whose striping would take too long to work out.
var ErrSequenceTooFine = errors.New("schedule: segment sequence too fine: at most 2^26 period slots times parts")

// NewStripe returns the indices seg owns within its sequence.
func NewStripe(seg Segment) (*Stripe, error) {
	l, err := period(seg.Sequence)
	if err != nil {
		return nil, err
	}
	parts := len(seg.Sequence) - 1
	if parts < 1 || !isBoundary(seg.Sequence, seg.From, seg.To) {
		return nil, fmt.Errorf("schedule: segment %s is not a part of its sequence %s", seg, seg.SequenceString())
	}
	if equalParts(seg.Sequence) {
		// N equal parts take turns: part K owns slot K−1 of every N (what creditStripe gives)
		return &Stripe{L: l, Offsets: []uint64{seg.From.N * (l / seg.From.D)}}, nil
	}
	if l*uint64(parts) > 1<<26 {
		return nil, ErrSequenceTooFine
	}
	return creditStripe(seg, l), nil
}

// creditStripe stripes the parts of seg's sequence over a period of l slots by smooth weighted
// round robin and returns seg's slots.
func creditStripe(seg Segment, l uint64) *Stripe {
	parts := len(seg.Sequence) - 1
	size := make([]int64, parts)
	mine := -1
	for j := range parts {
		a, b := seg.Sequence[j], seg.Sequence[j+1]
		size[j] = int64(b.N*(l/b.D) - a.N*(l/a.D))
		if a == seg.From {
			mine = j
		}
	}
	st := &Stripe{L: l, Offsets: make([]uint64, 0, size[mine])}
	credit := make([]int64, parts)
	for slot := range l {
		best := 0
		for j := range parts {
			credit[j] += size[j]
			if credit[j] > credit[best] {
				best = j
			}
		}
		credit[best] -= int64(l)
		if best == mine {
			st.Offsets = append(st.Offsets, slot)
		}
	}
	return st
}

// equalParts reports whether seq cuts [0, 1) into equal parts: seq[j] = j/N.
func equalParts(seq []Frac) bool {
	n := uint64(len(seq) - 1)
	for j, f := range seq {
		if f != NewFrac(uint64(j), n) {
			return false
		}
	}
	return true
}

// Global returns the index of the k-th (from 0) index the stripe owns; math.MaxUint64 past the
// range of uint64.
func (s *Stripe) Global(k uint64) uint64 {
	if s == nil {
		return k
	}
	n := uint64(len(s.Offsets))
	q := k / n
	if q > (math.MaxUint64-s.L)/s.L {
		return math.MaxUint64
	}
	return q*s.L + s.Offsets[k%n]
}

// Count returns how many of the indices 0 … n−1 the stripe owns.
func (s *Stripe) Count(n uint64) uint64 {
	if s == nil {
		return n
	}
	q, r := n/s.L, n%s.L
	return q*uint64(len(s.Offsets)) + uint64(sort.Search(len(s.Offsets), func(i int) bool { return s.Offsets[i] >= r }))
}

// Owns reports whether the stripe owns index i.
func (s *Stripe) Owns(i uint64) bool {
	if s == nil {
		return true
	}
	r := i % s.L
	k := sort.Search(len(s.Offsets), func(j int) bool { return s.Offsets[j] >= r })
	return k < len(s.Offsets) && s.Offsets[k] == r
}

// Striped is the part of a schedule a stripe owns: its k-th arrival is the stripe's k-th index of S,
// due when S has it due.
type Striped struct {
	S Schedule
	P *Stripe
}

// At implements Schedule.
func (s Striped) At(k uint64) (time.Duration, bool) {
	i := s.P.Global(k)
	if i == math.MaxUint64 {
		return 0, false
	}
	return s.S.At(i)
}
