package schedule

import (
	"fmt"
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseSegment(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, seq string
		want          string // the segment, as a range
		wantSeq       string
		err           string // part of the error; empty: none
	}{
		{"the second of eight equal parts", "2/8", "", "1/8:1/4", "0,1/8,1/4,3/8,1/2,5/8,3/4,7/8,1", ""},
		{"one part of one: the whole run", "1/1", "", "0:1", "0,1", ""},
		{"a fraction range takes 0, A, B, 1", "1/8:2/8", "", "1/8:1/4", "0,1/8,1/4,1", ""},
		{"a range from 0", "0:1/2", "", "0:1/2", "0,1/2,1", ""},
		{"decimals", "0.25:0.5", "", "1/4:1/2", "0,1/4,1/2,1", ""},
		{"a range within a sequence", "1/4:1/2", "0,1/4,1/2,1", "1/4:1/2", "0,1/4,1/2,1", ""},
		{"K above N", "3/2", "", "", "", "1 ≤ K ≤ N"},
		{"K of 0", "0/4", "", "", "", "1 ≤ K ≤ N"},
		{"no N", "3", "", "", "", "want K/N"},
		{"a reversed range", "2/8:1/8", "", "", "", "A < B"},
		{"an empty range", "1/2:1/2", "", "", "", "A < B"},
		{"beyond 1", "1/2:3/2", "", "", "", "from 0 to 1"},
		{"not a number", "a:b", "", "", "", "want a fraction"},
		{"a range not in its sequence", "1/8:1/4", "0,1/4,1", "", "", "not a part of sequence"},
		{"a sequence that goes back (parts overlap)", "0:1/4", "0,1/4,1/8,1", "", "", "overlapping"},
		{"a sequence short of 1", "0:1/4", "0,1/4,1/2", "", "", "from 0 to 1"},
		{"K/N with a sequence", "1/4", "0,1/4,1", "", "", "a sequence goes with a fraction range"},
	}
	for _, tt := range tests {
		seg, err := ParseSegment(tt.in, tt.seq)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: ParseSegment(%q, %q) error = %v; want one with %q", tt.name, tt.in, tt.seq, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: ParseSegment(%q, %q): %v", tt.name, tt.in, tt.seq, err)
			continue
		}
		if got := seg.String(); got != tt.want {
			t.Errorf("%s: ParseSegment(%q) = %s; want %s", tt.name, tt.in, got, tt.want)
		}
		if got := seg.SequenceString(); got != tt.wantSeq {
			t.Errorf("%s: ParseSegment(%q) sequence = %s; want %s", tt.name, tt.in, got, tt.wantSeq)
		}
	}
}

func mustStripe(t *testing.T, seg, seq string) *Stripe {
	t.Helper()
	s, err := ParseSegment(seg, seq)
	if err != nil {
		t.Fatal(err)
	}
	st, err := NewStripe(s)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestStripe(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		seg, seq string
		period   uint64
		offsets  []uint64
	}{
		// equal parts take turns: part K owns the indices ≡ K−1 (mod N)
		{"2/8", "2/8", "", 8, []uint64{1}},
		{"8/8", "8/8", "", 8, []uint64{7}},
		// 0, 1/3, 1: sizes 1 and 2 of a period of 3. Slot 0: credits 1, 2 → the second part
		// (then 1, −1); slot 1: 2, 1 → the first (−1, 1); slot 2: 0, 3 → the second.
		{"a third", "0:1/3", "", 3, []uint64{1}},
		{"two thirds", "1/3:1", "", 3, []uint64{0, 2}},
		// 0, 1/4, 1/2, 1: sizes 1, 1, 2 of 4. Slot 0: 1,1,2 → third (1,1,−2); slot 1: 2,2,0 → first
		// (−2,2,0); slot 2: −1,3,2 → second (−1,−1,2); slot 3: 0,0,4 → third.
		{"a quarter, first", "0:1/4", "0,1/4,1/2,1", 4, []uint64{1}},
		{"a quarter, second", "1/4:1/2", "0,1/4,1/2,1", 4, []uint64{2}},
		{"the half", "1/2:1", "0,1/4,1/2,1", 4, []uint64{0, 3}},
	}
	for _, tt := range tests {
		st := mustStripe(t, tt.seg, tt.seq)
		if st.L != tt.period || !slices.Equal(st.Offsets, tt.offsets) {
			t.Errorf("%s: stripe = period %d, offsets %v; want %d, %v", tt.name, st.L, st.Offsets, tt.period, tt.offsets)
		}
	}
}

func TestStripeGlobalCount(t *testing.T) {
	t.Parallel()
	two8 := mustStripe(t, "2/8", "")
	thirds := mustStripe(t, "1/3:1", "")
	tests := []struct {
		name string
		s    *Stripe
		k    uint64 // Global(k)
		want uint64
		n    uint64 // Count(n)
		cnt  uint64
	}{
		{"2/8: first index is 1", two8, 0, 1, 0, 0},
		{"2/8: fourth index is 25", two8, 3, 25, 2, 1},
		{"2/8: 9 indices hold one of the part's", two8, 1, 9, 9, 1},
		{"2/8: 10 indices hold two", two8, 2, 17, 10, 2},
		{"2/8: 1000 arrivals, 125 each", two8, 124, 993, 1000, 125},
		{"two thirds: 0, 2, 3, 5, …", thirds, 3, 5, 5, 3},
		{"two thirds: of 7 indices, 5", thirds, 4, 6, 7, 5},
		{"no segment: all", nil, 7, 7, 7, 7},
	}
	for _, tt := range tests {
		if got := tt.s.Global(tt.k); got != tt.want {
			t.Errorf("%s: Global(%d) = %d; want %d", tt.name, tt.k, got, tt.want)
		}
		if got := tt.s.Count(tt.n); got != tt.cnt {
			t.Errorf("%s: Count(%d) = %d; want %d", tt.name, tt.n, got, tt.cnt)
		}
	}
}

// The parts of one sequence own every index exactly once, and Global, Count and Owns agree.
func TestStripesPartition(t *testing.T) {
	t.Parallel()
	for _, seq := range []string{"0,1/3,1/2,1", "0,1/8,1/4,3/8,1/2,5/8,3/4,7/8,1", "0,0.1,0.35,0.6,1", "0,1/7,1"} {
		bounds, err := ParseSequence(seq)
		if err != nil {
			t.Fatal(err)
		}
		var stripes []*Stripe
		for j := 1; j < len(bounds); j++ {
			stripes = append(stripes, mustStripe(t, bounds[j-1].String()+":"+bounds[j].String(), seq))
		}
		const n = 1000
		owners := make([]int, n)
		for j, st := range stripes {
			for k := uint64(0); ; k++ {
				i := st.Global(k)
				if i >= n {
					if c := st.Count(n); c != k {
						t.Errorf("%s part %d: Count(%d) = %d; Global reaches %d", seq, j, n, c, k)
					}
					break
				}
				if !st.Owns(i) {
					t.Errorf("%s part %d: Global(%d) = %d, which it does not own", seq, j, k, i)
				}
				owners[i]++
			}
		}
		for i, c := range owners {
			if c != 1 {
				t.Fatalf("%s: index %d owned %d times; want once", seq, i, c)
			}
		}
	}
}

// A striped schedule keeps the global due times: 1000/s for 1 s split in 8 sends 125 arrivals each,
// the second part the arrivals 1, 9, 17, … at 1 ms, 9 ms, 17 ms, ….
func TestStriped(t *testing.T) {
	t.Parallel()
	c, err := Constant(1000, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	s := Striped{S: c, P: mustStripe(t, "2/8", "")}
	for _, tt := range []struct {
		k    uint64
		want time.Duration
		ok   bool
	}{{0, time.Millisecond, true}, {1, 9 * time.Millisecond, true}, {124, 993 * time.Millisecond, true}, {125, 0, false}} {
		got, ok := s.At(tt.k)
		if ok != tt.ok || ok && absDiff(got, tt.want) > time.Microsecond {
			t.Errorf("At(%d) = %v, %v; want %v, %v", tt.k, got, ok, tt.want, tt.ok)
		}
	}
}

// The pacer asks a striped schedule for every arrival: it must not allocate.
func TestStripedAllocs(t *testing.T) {
	c, err := Constant(1000, 0)
	if err != nil {
		t.Fatal(err)
	}
	var s Schedule = Striped{S: c, P: mustStripe(t, "0:1/3", "0,1/3,1/2,1")}
	k := uint64(0)
	if n := testing.AllocsPerRun(1000, func() { s.At(k); k++ }); n != 0 {
		t.Errorf("Striped.At: %v allocs per call; want 0", n)
	}
}

func TestSegmentOverlaps(t *testing.T) {
	t.Parallel()
	seg := func(s string) Segment {
		v, err := ParseSegment(s, "")
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, tt := range []struct {
		a, b string
		want bool
	}{{"1/8", "2/8", false}, {"0:1/2", "1/4:1", true}, {"2/8", "1/8:1/4", true}, {"0:1/3", "1/3:1", false}} {
		if got := seg(tt.a).Overlaps(seg(tt.b)); got != tt.want {
			t.Errorf("%s overlaps %s: %v; want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

// Whatever the input, ParseSegment answers without panicking, and a segment it accepts has a
// stripe that owns its share of each period.
func FuzzParseSegment(f *testing.F) {
	for _, s := range [][2]string{{"2/8", ""}, {"1/8:2/8", ""}, {"0:1", ""}, {"1/4:1/2", "0,1/4,1/2,1"}, {"3/2", ""}, {"0.1:0.35", "0,0.1,0.35,1"}, {"1/3:2/3", "0,1/3,2/3,1"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, seg, seq string) {
		s, err := ParseSegment(seg, seq)
		if err != nil {
			return
		}
		st, err := NewStripe(s)
		if err != nil {
			return // a sequence too fine to stripe says so
		}
		// the stripe owns (To − From)·L slots of each period of L, worked out in rationals (not
		// with the integer formula the stripe is made with)
		share := new(big.Rat).Sub(big.NewRat(int64(s.To.N), int64(s.To.D)), big.NewRat(int64(s.From.N), int64(s.From.D)))
		want := share.Mul(share, new(big.Rat).SetUint64(st.L))
		if !want.IsInt() || uint64(len(st.Offsets)) != want.Num().Uint64() || st.Count(st.L) != want.Num().Uint64() {
			t.Fatalf("%s in %s: %d slots of %d; want %s", s, s.SequenceString(), len(st.Offsets), st.L, want.RatString())
		}
	})
}

// TestStripeShare: a segment owns its share of every period, the period the least common
// denominator of its sequence; the figures worked out by hand.
func TestStripeShare(t *testing.T) {
	t.Parallel()
	tests := []struct {
		seg, seq      string
		period, slots uint64
	}{
		{"0.1:0.35", "0,0.1,0.35,1", 20, 5},   // 1/10 = 2/20 to 7/20: 5 of 20
		{"0.35:1", "0,0.1,0.35,1", 20, 13},    // 7/20 to 20/20
		{"1/6:1/2", "0,1/6,1/2,1", 6, 2},      // 1/6 to 3/6
		{"2/5:1", "0,2/5,1", 5, 3},            // 2/5 to 5/5
		{"1/3:3/4", "0,1/3,3/4,1", 12, 5},     // 4/12 to 9/12
		{"3/4:1", "0,1/3,3/4,1", 12, 3},       // 9/12 to 12/12
		{"0:1/3", "0,1/3,3/4,1", 12, 4},       // 0 to 4/12
		{"3/7", "", 7, 1},                     // part 3 of 7 equal parts
		{"1/4:1/2", "0,1/4,1/2,2/3,1", 12, 3}, // 3/12 to 6/12
	}
	for _, tt := range tests {
		st := mustStripe(t, tt.seg, tt.seq)
		if st.L != tt.period || uint64(len(st.Offsets)) != tt.slots || st.Count(3*st.L) != 3*tt.slots {
			t.Errorf("%s in %s: %d slots of a period of %d, %d of 3 periods; want %d of %d, %d", tt.seg, tt.seq, len(st.Offsets), st.L, st.Count(3*st.L), tt.slots, tt.period, 3*tt.slots)
		}
	}
}

// Equal parts take the short way; it agrees with the general striping.
func TestEqualPartsShortcut(t *testing.T) {
	t.Parallel()
	for _, n := range []uint64{1, 2, 3, 7, 8} {
		for k := uint64(1); k <= n; k++ {
			seg, err := ParseSegment(fmt.Sprintf("%d/%d", k, n), "")
			if err != nil {
				t.Fatal(err)
			}
			fast, err := NewStripe(seg)
			if err != nil {
				t.Fatal(err)
			}
			slow := creditStripe(seg, n)
			if fast.L != n || !slices.Equal(fast.Offsets, []uint64{k - 1}) || !slices.Equal(slow.Offsets, fast.Offsets) {
				t.Errorf("%d/%d: period %d, offsets %v, by credit %v; want %d, [%d] both", k, n, fast.L, fast.Offsets, slow.Offsets, n, k-1)
			}
		}
	}
	if _, err := ParseSegment("3/1000000", ""); err != nil {
		t.Errorf("a million parts: %v; want it accepted", err)
	}
}
