package mesh

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// deepChain runs one chain of limit hops over tr and checks it finished, within a generous
// timeout so a slow machine fails with a message rather than hanging.
func deepChain(t *testing.T, tr Transport, limit int) {
	t.Helper()
	m := startMesh(t, Config{Transport: tr, Timeout: 3 * time.Minute})
	start := time.Now()
	r, err := m.Gateway().Hop(context.Background(), HopRequest{Queue: DefaultNames(), Limit: limit})
	if err != nil {
		t.Fatalf("%d hops over %s: %v", limit, tr, err)
	}
	checkFinished(t, r.State, DefaultNames(), limit, "E", 0) // every limit here is a multiple of 5
	t.Logf("%d hops over %s in %v: %d ns/hop", limit, tr, time.Since(start).Round(time.Millisecond), r.State.HopLatency)
}

// Nested chains of 2,000 hops hold 2,000 calls open: over HTTP/1.1 that is 2,000 connections (4,000
// file descriptors in one process), over h2c and gRPC a few multiplexed connections. Under the race
// detector, 500 hops.
func TestDeepChain2000(t *testing.T) {
	t.Parallel()
	limit := 2000
	if raceEnabled {
		limit = 500
	}
	for _, tr := range Transports() {
		t.Run(string(tr), func(t *testing.T) {
			deepChain(t, tr, limit)
		})
	}
}

// The 10,000-hop chains of the issue. Skipped with -short: each takes a few seconds, more under the
// race detector. HTTP/1.1 is not among them: 10,000 open hops need 20,000 file descriptors in one
// process, more than a default open-file limit allows; TestDeepHTTP1Refused checks that it says so.
func TestDeepChain10000(t *testing.T) {
	if testing.Short() {
		t.Skip("10,000-hop chains take seconds; run without -short")
	}
	for _, tr := range []Transport{H2C, GRPC} {
		t.Run(string(tr), func(t *testing.T) {
			deepChain(t, tr, 10_000)
		})
	}
	t.Run("static", func(t *testing.T) {
		m := startMesh(t, Config{})
		r, err := m.Gateway().StaticHop(context.Background(), HopRequest{Queue: DefaultNames(), Limit: 10_000})
		if err != nil {
			t.Fatal(err)
		}
		checkFinished(t, r.State, DefaultNames(), 10_000, "E", 0)
	})
}

// A 10,000-hop chain over HTTP/1.1 either fits the process's open-file limit and succeeds, or is
// refused at once with a message that names the file descriptors it would need.
func TestDeepHTTP1Refused(t *testing.T) {
	t.Parallel()
	files := reserveFiles + 19_000
	m := startMesh(t, Config{Transport: HTTP, MaxOpenFiles: files})
	start := time.Now()
	_, err := m.Gateway().Hop(context.Background(), HopRequest{Queue: DefaultNames(), Limit: 10_000})
	want := fmt.Sprintf("bad request: limit 10000 over HTTP/1.1 needs about 20000 file descriptors in this process (two per open hop); the open-file limit leaves %d: lower the limit, raise ulimit -n, or use transport h2c or grpc", files-reserveFiles)
	if err == nil || err.Error() != want {
		t.Fatalf("got %v; want %s", err, want)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("refusal took %v; want it before the chain starts", d)
	}
}
