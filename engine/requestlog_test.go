package engine

import (
	"context"
	"encoding/csv"
	"io"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/plan"
)

// Every measured request gets one row, with a unique id and the endpoint's name; warm-up
// requests get none.
func TestCSVLogRowPerRequest(t *testing.T) {
	t.Parallel()
	var sb strings.Builder
	l := NewCSVLog(&sb, []string{"a,b", "c"})
	p := plan.Plan{Endpoints: []plan.Endpoint{{Name: "a,b", URL: "http://127.0.0.1:1/"}, {Name: "c", URL: "http://127.0.0.1:1/"}},
		Load: plan.Load{Connections: 3, Requests: 1000, Warmup: 5 * time.Millisecond}}
	res, err := Run(context.Background(), p, WithTransport(nopTransport{}), WithRequestLog(l))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := l.Close()
	if err != nil || rows != 1000 {
		t.Fatalf("Close: %d rows, %v; want 1000", rows, err)
	}
	recs, err := csv.NewReader(strings.NewReader(sb.String())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(recs[0], ","); got != strings.Join(CSVLogHeader, ",") {
		t.Errorf("header %q; want %q", got, CSVLogHeader)
	}
	seen := map[uint64]bool{}
	perName := map[string]uint64{}
	for i, r := range recs[1:] {
		id, err := strconv.ParseUint(r[0], 10, 64)
		if err != nil || seen[id] || id >= 1000 {
			t.Fatalf("row %d: id %q: want a new id below 1000", i+1, r[0])
		}
		seen[id] = true
		perName[r[1]]++
		intended, err1 := time.Parse(time.RFC3339Nano, r[2])
		sent, err2 := time.Parse(time.RFC3339Nano, r[3])
		if err1 != nil || err2 != nil || sent.Before(intended) || r[6] != "200" || r[7] != "ok" {
			t.Fatalf("row %d: %q: want sent after intended, status 200, ok", i+1, r)
		}
	}
	// warm-up requests are not logged: the rows per endpoint are the run's measured counts
	if perName["a,b"] != res.Total.Endpoints[0].Sent || perName["c"] != res.Total.Endpoints[1].Sent {
		t.Errorf("rows per endpoint %v; want the run's counts %d and %d (the %d warm-up requests left out)",
			perName, res.Total.Endpoints[0].Sent, res.Total.Endpoints[1].Sent, res.WarmupSent)
	}
}

// allocsPerRequest counts the allocations per request of runs with 1,000 and 41,000 requests.
func allocsPerRequest(t *testing.T, withLog bool) float64 {
	allocs := func(n uint64) uint64 {
		p := plan.Plan{Endpoints: []plan.Endpoint{{URL: "http://127.0.0.1:1/"}}, Load: plan.Load{Connections: 4, Requests: n}}
		opts := []Option{WithTransport(nopTransport{})}
		var l *CSVLog
		if withLog {
			l = NewCSVLog(io.Discard, []string{"e"})
			opts = append(opts, WithRequestLog(l))
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		if _, err := Run(context.Background(), p, opts...); err != nil {
			t.Fatal(err)
		}
		if l != nil {
			if rows, err := l.Close(); err != nil || rows != n {
				t.Fatalf("log: %d rows, %v; want %d", rows, err, n)
			}
		}
		runtime.ReadMemStats(&after)
		return after.Mallocs - before.Mallocs
	}
	allocs(1000)
	small, large := allocs(1000), allocs(41000)
	t.Logf("log %v: %d allocations for 1,000 requests, %d for 41,000", withLog, small, large)
	return (float64(large) - float64(small)) / 40000
}

// A per-request CSV log allocates nothing per request either: the senders' buffers are reused.
func TestRequestLogAllocatesNothingPerRequest(t *testing.T) {
	if testing.Short() {
		t.Skip("counts allocations over 40,000 requests")
	}
	if per := allocsPerRequest(t, true); per > 0.01 {
		t.Errorf("with a CSV log: %.3f allocations per request; want 0", per)
	}
}

// BenchmarkRequestLog runs 10,000 requests through a transport that answers at once, without a
// request log and with a CSV log to io.Discard: the time per request shows what the log costs,
// and that a run without it pays only a nil check.
//
//	go test -run '^$' -bench RequestLog -benchmem ./engine
func BenchmarkRequestLog(b *testing.B) {
	for _, withLog := range []bool{false, true} {
		name := "none"
		if withLog {
			name = "csv"
		}
		b.Run(name, func(b *testing.B) {
			p := plan.Plan{Endpoints: []plan.Endpoint{{URL: "http://127.0.0.1:1/"}}, Load: plan.Load{Connections: 4, Requests: 10_000}}
			b.ReportAllocs()
			for b.Loop() {
				opts := []Option{WithTransport(nopTransport{})}
				var l *CSVLog
				if withLog {
					l = NewCSVLog(io.Discard, []string{"e"})
					opts = append(opts, WithRequestLog(l))
				}
				if _, err := Run(context.Background(), p, opts...); err != nil {
					b.Fatal(err)
				}
				if l != nil {
					l.Close()
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/10_000, "ns/request")
		})
	}
}
