package kv

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
)

// BenchmarkPutGet is one PUT and one GET of a 100-byte value over loopback HTTP, from parallel
// clients, with fsynced writes (sync) and with NoSync: the difference is the price of durability.
func BenchmarkPutGet(b *testing.B) {
	for _, mode := range []struct {
		name   string
		noSync bool
	}{{"nosync", true}, {"sync", false}} {
		b.Run(mode.name, func(b *testing.B) {
			s := start(b, Config{Dir: b.TempDir(), NoSync: mode.noSync})
			tr := &http.Transport{MaxIdleConnsPerHost: 64}
			defer tr.CloseIdleConnections()
			c := &http.Client{Transport: tr}
			value := strings.Repeat("v", 100)
			var next atomic.Int64
			b.ReportAllocs()
			b.SetParallelism(4)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					u := fmt.Sprintf("%s/v0/entity?id=k%d", s.URL(), next.Add(1)%10000)
					req, _ := http.NewRequest(http.MethodPut, u, strings.NewReader(value))
					if err := roundTrip(c, req, 201); err != nil {
						b.Error(err)
						return
					}
					req, _ = http.NewRequest(http.MethodGet, u, nil)
					if err := roundTrip(c, req, 200); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

// BenchmarkPut is one client's PUTs of 100-byte values, one after the other: with sync each waits
// for its own fsync (no group commit to share it with), so sync − nosync is the fsync's latency.
func BenchmarkPut(b *testing.B) {
	for _, mode := range []struct {
		name   string
		noSync bool
	}{{"nosync", true}, {"sync", false}} {
		b.Run(mode.name, func(b *testing.B) {
			s := start(b, Config{Dir: b.TempDir(), NoSync: mode.noSync})
			tr := &http.Transport{}
			defer tr.CloseIdleConnections()
			c := &http.Client{Transport: tr}
			value := strings.Repeat("v", 100)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				i++
				req, _ := http.NewRequest(http.MethodPut, fmt.Sprintf("%s/v0/entity?id=k%d", s.URL(), i%10000), strings.NewReader(value))
				if err := roundTrip(c, req, 201); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func roundTrip(c *http.Client, req *http.Request, want int) error {
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, resp.Body) //nolint:errcheck
	resp.Body.Close()
	if resp.StatusCode != want {
		return fmt.Errorf("%s %s: got %d; want %d", req.Method, req.URL, resp.StatusCode, want)
	}
	return nil
}

// BenchmarkPrefill loads 100,000 keys of 100 bytes (10 MB of values) per iteration.
func BenchmarkPrefill(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		s, err := New(context.Background(), Config{Prefill: Prefill{Keys: 100_000}})
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(s.Prefilled().ValueBytes)
		s.Close()
	}
}
