package result

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// TestHistEncoderMatchesHdr encodes histograms of many shapes with histEncoder and with
// hdrhistogram-go's Encode: the bytes must be the same, and decode to the same histogram.
func TestHistEncoderMatchesHdr(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(21, 22))
	var e histEncoder
	tests := []struct {
		name string
		fill func(h *hdr.Histogram)
	}{
		{"empty", func(h *hdr.Histogram) {}},
		{"one value", func(h *hdr.Histogram) { h.RecordValue(1234) }},
		{"the extremes", func(h *hdr.Histogram) { h.RecordValue(HistMin); h.RecordValue(HistMax) }},
		{"big counts", func(h *hdr.Histogram) { h.RecordValues(500, 1<<40); h.RecordValues(7, math.MaxInt32) }},
		{"log-normal", func(h *hdr.Histogram) {
			for range 5000 {
				RecordDuration(h, time.Duration(2000*math.Exp(rng.NormFloat64()))*time.Microsecond)
			}
		}},
		{"wide", func(h *hdr.Histogram) {
			for range 2000 {
				h.RecordValue(1 + rng.Int64N(HistMax))
			}
		}},
	}
	for _, tc := range tests {
		h := NewHistogram()
		tc.fill(h)
		got, err := e.encode(h)
		if err != nil {
			t.Fatal(err)
		}
		want, err := h.Encode(hdr.V2CompressedEncodingCookieBase)
		if err != nil {
			t.Fatal(err)
		}
		if got != string(want) {
			t.Errorf("%s: got %.60s…; want hdrhistogram-go's %.60s…", tc.name, got, want)
		}
		back, err := hdr.Decode([]byte(got))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !back.Equals(h) {
			t.Errorf("%s: decodes to a different histogram", tc.name)
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
		b.ReportAllocs()
		for b.Loop() {
			if _, err := h.Encode(hdr.V2CompressedEncodingCookieBase); err != nil {
				b.Fatal(err)
			}
		}
	})
}
