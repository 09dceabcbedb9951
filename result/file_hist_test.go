package result

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// TestHistEncoderMatchesHdr encodes histograms of many shapes, sparse and dense, with histEncoder
// and the same values in hdrhistogram-go's Histogram with its Encode: the bytes must be the same,
// and decode to the same histogram.
func TestHistEncoderMatchesHdr(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(21, 22))
	var e histEncoder
	tests := []struct {
		name string
		fill func(record func(v, n int64))
	}{
		{"empty", func(record func(v, n int64)) {}},
		{"one value", func(record func(v, n int64)) { record(1234, 1) }},
		{"the extremes", func(record func(v, n int64)) { record(HistMin, 1); record(HistMax, 1) }},
		{"big counts", func(record func(v, n int64)) { record(500, 1<<40); record(7, math.MaxInt32) }},
		{"neighbours", func(record func(v, n int64)) { record(1, 1); record(3, 1); record(4, 1); record(2050, 2) }},
		{"log-normal", func(record func(v, n int64)) {
			for range 5000 {
				record(int64(2000*math.Exp(rng.NormFloat64()))+1, 1)
			}
		}},
		{"wide", func(record func(v, n int64)) {
			for range 2000 {
				record(1+rng.Int64N(HistMax), 1)
			}
		}},
	}
	for _, tc := range tests {
		ref := hdr.New(HistMin, HistMax, HistSigFigs)
		sparse, dense := NewHistogram(), newDenseHistogram()
		tc.fill(func(v, n int64) {
			for _, err := range []error{ref.RecordValues(v, n), sparse.RecordValues(v, n), dense.RecordValues(v, n)} {
				if err != nil {
					t.Fatal(err)
				}
			}
		})
		want, err := ref.Encode(hdr.V2CompressedEncodingCookieBase)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range []*Histogram{sparse, dense} {
			got, err := e.encode(h)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("%s (dense %v): got %.60s…; want hdrhistogram-go's %.60s…", tc.name, h.Dense(), got, want)
			}
			back, err := hdr.Decode([]byte(got))
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if !back.Equals(ref) {
				t.Errorf("%s (dense %v): decodes to a different histogram", tc.name, h.Dense())
			}
		}
	}
}

func TestAppendZigZag(t *testing.T) {
	t.Parallel()
	tests := []struct {
		v    int64
		want []byte
	}{
		{0, []byte{0}},
		{1, []byte{2}},
		{-1, []byte{1}},
		{64, []byte{0x80, 0x01}},
		{math.MaxInt64, []byte{0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}}, // nine bytes, the last holding 8 bits
	}
	for _, tc := range tests {
		if got := appendZigZag(nil, tc.v); string(got) != string(tc.want) {
			t.Errorf("appendZigZag(%d): got % x; want % x", tc.v, got, tc.want)
		}
	}
}

func BenchmarkHistEncoder(b *testing.B) {
	rng := rand.New(rand.NewPCG(23, 24))
	h := NewHistogram()
	for range 3333 {
		RecordDuration(h, time.Duration(2000*math.Exp(rng.NormFloat64()*0.5))*time.Microsecond)
	}
	b.Run("histEncoder", func(b *testing.B) {
		var e histEncoder
		b.ReportAllocs()
		for b.Loop() {
			if _, err := e.encode(h); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("hdr.Encode", func(b *testing.B) {
		d := h.HDR()
		b.ReportAllocs()
		for b.Loop() {
			if _, err := d.Encode(hdr.V2CompressedEncodingCookieBase); err != nil {
				b.Fatal(err)
			}
		}
	})
}
