package replay

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/rpcbench/rpcbench/result"
)

// genLog is an access log made as it is read, line after line: never held whole.
type genLog struct {
	n, k int
	buf  []byte
}

// genLine is line k of a generated log: one record per millisecond, about lineLen bytes.
func genLine(dst []byte, k int) []byte {
	return fmt.Appendf(dst, "%d.%03d \"GET /items/%d?pad=%s HTTP/1.1\"\n", 1709287200+k/1000, k%1000, k, strings.Repeat("x", 60))
}

const lineLen = 110

func (g *genLog) Read(p []byte) (int, error) {
	for len(g.buf) < len(p) && g.k < g.n {
		g.buf = genLine(g.buf, g.k)
		g.k++
	}
	if len(g.buf) == 0 {
		return 0, io.EOF
	}
	n := copy(p, g.buf)
	g.buf = append(g.buf[:0], g.buf[n:]...)
	return n, nil
}

func heapNow() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// A replay holds at most Window records read ahead and Reorder records being sorted, whatever the
// file's size: the heap stays under a bound computed from those two numbers while a file over 10 times
// larger is scanned and replayed.
func TestMemoryBoundedByWindow(t *testing.T) {
	const (
		lines   = 200_000 // ≈ 22 MB
		window  = 512
		reorder = 256
	)
	o := Options{Files: []string{"gen.log"}, Format: msecLayout, Base: "http://127.0.0.1:9", Window: window, Reorder: reorder,
		Open: func(string) (io.ReadCloser, error) { return io.NopCloser(&genLog{n: lines}), nil }}
	// Each record held costs its line about three times (the record's strings, its request's path,
	// headers) plus fixed parts of well under 1 KiB; the readers' buffers are 64 KiB each, and the
	// line scanner's grows to 64 KiB.
	bound := uint64((window+reorder)*(3*lineLen+1024) + 4*64<<10)
	if raceEnabled {
		// The race detector's own bookkeeping sits on the heap beside the records: 2–7 MB in this
		// test whatever the file's size (it does not grow as the file is read). Holding the file's
		// records would cost well over the file's 22 MB.
		bound += 8 << 20
	}
	if file := uint64(lines * lineLen); file < 2*bound {
		t.Fatalf("the file (%d bytes) is not much larger than the bound (%d): the test would not tell", file, bound)
	}
	base := heapNow()
	var peak uint64
	measure := func() {
		if h := heapNow(); h > base && h-base > peak {
			peak = h - base
		}
	}
	tl, err := Scan(o)
	if err != nil {
		t.Fatal(err)
	}
	measure()
	if tl.Records() != lines {
		t.Fatalf("scanned %d records; want %d", tl.Records(), lines)
	}
	tl.Start()
	defer tl.Close()
	var r result.Request
	for i := range uint64(lines) {
		if _, ok := tl.At(i); !ok {
			t.Fatalf("record %d missing: %v", i, tl.Err())
		}
		if err := tl.Fill(i, &r); err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("/items/%d?", i); !strings.HasPrefix(string(r.Path), want) {
			t.Fatalf("record %d: path %s; want %s…", i, r.Path, want)
		}
		if i%20_000 == 0 {
			measure()
		}
	}
	if _, ok := tl.At(lines); ok {
		t.Error("a record past the end")
	}
	measure()
	if peak > bound {
		t.Errorf("heap grew by %d bytes replaying %d bytes of log; want at most %d (window %d, reorder %d)", peak, lines*lineLen, bound, window, reorder)
	}
	t.Logf("heap growth at most %d bytes (bound %d) for %d bytes of log", peak, bound, lines*lineLen)
}
