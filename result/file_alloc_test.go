package result

import (
	"bytes"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// manyIntervals returns a result file of endpoints × intervals with one request per interval: small
// on disk, as a file of many mostly idle endpoints is.
func manyIntervals(t testing.TB, endpoints, intervals int) []byte {
	t.Helper()
	var b bytes.Buffer
	w, err := NewWriter(&b, testHeader(endpoints))
	if err != nil {
		t.Fatal(err)
	}
	iv := NewInterval(endpoints)
	for i := range intervals {
		iv.Reset()
		iv.Start, iv.End = time.Duration(i)*time.Second, time.Duration(i+1)*time.Second
		c := iv.Endpoints[i%endpoints]
		c.Sent, c.Completed, c.OK = 1, 1, 1
		RecordDuration(c.Latency, time.Duration(i+1)*time.Millisecond)
		if err := w.WriteInterval(iv); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(Trailer{Intended: uint64(intervals)}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestReadAllocs reads a small file of 100 endpoints × 200 intervals: what reading allocates must be
// a fixed cost for the endpoints (the Reader's interval and the file's total, each of 100 endpoints
// of empty histograms) plus a cost in proportion to the file's size, never histograms per line
// (which made this 70 KB file cost about 11 GB).
func TestReadAllocs(t *testing.T) {
	// not parallel: it measures the process's allocations
	const endpoints = 100
	short := manyIntervals(t, endpoints, 10)
	long := manyIntervals(t, endpoints, 200)
	fixed := allocated(func() { _ = NewInterval(endpoints) })
	read := func(data []byte) uint64 {
		var f *File
		n := allocated(func() {
			var err error
			f, err = Read(bytes.NewReader(data), "many.rb", nil)
			if err != nil {
				t.Fatal(err)
			}
		})
		if got := f.Total.Total().Sent; got != uint64(bytes.Count(data, []byte("\n"))-2) {
			t.Fatalf("got %d sent; want one per interval line", got)
		}
		return n
	}
	a, b := read(short), read(long)
	grow := float64(b) - float64(a)
	perByte := grow / float64(len(long)-len(short))
	t.Logf("file of %d bytes: %d bytes allocated (%d fixed for one interval of %d endpoints); %.1f bytes per byte of file beyond the fixed cost",
		len(long), b, fixed, endpoints, perByte)
	if perByte > 128 {
		t.Errorf("got %.1f bytes allocated per byte of file read; want at most 128", perByte)
	}
	if limit := 3*fixed + 128*uint64(len(long)); b > limit {
		t.Errorf("got %d bytes allocated for a %d-byte file; want at most %d (3 intervals of %d endpoints and 128 per byte)", b, len(long), limit, endpoints)
	}
}

// TestDecodeHistogramMatches decodes histograms as hdrhistogram-go's own Decode does, values at the
// ends of the range included.
func TestDecodeHistogramMatches(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(21, 22))
	tests := []struct {
		name   string
		values []int64
	}{
		{"one value", []int64{1}},
		{"the ends of the range", []int64{HistMin, HistMax, HistMax - 1}},
		{"sub-bucket edges", []int64{1023, 1024, 2047, 2048, 2049, 4095, 4096, 1 << 20, 1<<31 + 7}},
		{"spread", func() (v []int64) {
			for range 5000 {
				v = append(v, 1+rng.Int64N(HistMax))
			}
			return v
		}()},
	}
	var d histDecoder
	for _, tc := range tests {
		h := NewHistogram()
		for _, v := range tc.values {
			h.RecordValue(v)
		}
		var e histEncoder
		s, err := e.encode(h)
		if err != nil {
			t.Fatal(err)
		}
		want, err := hdr.Decode([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		got := NewHistogram()
		got.RecordValue(5) // decode adds to what is there; a reused histogram is reset first
		got.Reset()
		if err := d.decode(got, s); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !got.HDR().Equals(want) || got.TotalCount() != int64(len(tc.values)) {
			t.Errorf("%s: got %d values, max %d; want %d, max %d", tc.name, got.TotalCount(), got.Max(), want.TotalCount(), want.Max())
		}
	}
}

// TestDecodeHistogramHostile refuses payloads that would run past the histogram.
func TestDecodeHistogramHostile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		payload []byte
		want    string
	}{
		{"count past the end", append(appendZigZag(nil, -(maxCounts-1)), appendZigZag(nil, 1)...), "out of range"},
		{"endless zero run", appendZigZag(nil, -(1 << 40)), "a run of"},
		{"cut off", []byte{0x80}, "cut off"},
	}
	for _, tc := range tests {
		err := addCounts(NewHistogram(), tc.payload)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v; want an error containing %q", tc.name, err, tc.want)
		}
	}
}
