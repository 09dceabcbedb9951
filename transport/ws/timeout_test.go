package ws

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/transport"
)

// startStuckServer starts a WebSocket server on 127.0.0.1 that upgrades and then never reads nor
// answers, and returns its ws:// URL; it stops when the test ends.
func startStuckServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	block := make(chan struct{})
	hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		<-block
	})}
	go hs.Serve(ln) //nolint:errcheck // ends with Close
	t.Cleanup(func() { close(block); hs.Close() })
	return "ws://" + ln.Addr().String() + "/"
}

// A server that upgrades and then never reads: once the socket buffers fill, writes block. Every
// call must still end within its Timeout, as a timeout.
func TestWriteToStuckServerTimesOut(t *testing.T) {
	t.Parallel()
	url := startStuckServer(t)
	tr := New(Options{Conns: 1, Timeout: 300 * time.Millisecond})
	defer tr.Close()
	big := `{"jsonrpc":"2.0","id":1,"method":"echo","params":["` + strings.Repeat("x", 1<<20) + `"]}`
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			r := request(url, strings.Replace(big, `"id":1`, fmt.Sprintf(`"id":%d`, i+1), 1))
			var out transport.Outcome
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			start := time.Now()
			tr.Do(ctx, r, &out)
			if d := time.Since(start); d > 3*time.Second || out.Class == result.OK {
				t.Errorf("call %d took %v with class %v (%v); want a failure within about 300ms", i, d, out.Class, out.Err)
			}
		})
	}
	wg.Wait()
}

// A server that accepts connections but never answers the upgrade: callers waiting for the same
// connection slot must each give up at their own Timeout, not queue one set-up after another.
func TestStuckUpgradeTimesOutEveryCaller(t *testing.T) {
	t.Parallel()
	url := stuckUpgradeServer(t)
	tr := New(Options{Conns: 1, Timeout: 300 * time.Millisecond, ConnectTimeout: 500 * time.Millisecond})
	defer tr.Close()
	var wg sync.WaitGroup
	for i := range 6 {
		wg.Go(func() {
			r := request(url, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"echo"}`, i+1))
			var out transport.Outcome
			start := time.Now()
			tr.Do(context.Background(), r, &out)
			if d := time.Since(start); d > 2*time.Second || out.Class != result.Timeout {
				t.Errorf("call %d took %v with class %v (%v); want a timeout after about 300ms", i, d, out.Class, out.Err)
			}
		})
	}
	wg.Wait()
}

// A server that upgrades and then never reads, so never answers the close frame: Close must not
// wait the websocket library's 5 s for it.
func TestCloseUnansweredHandshake(t *testing.T) {
	t.Parallel()
	url := startStuckServer(t)
	tr := New(Options{Conns: 1, Timeout: 300 * time.Millisecond})
	var out transport.Outcome
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tr.Do(ctx, request(url, `{"jsonrpc":"2.0","id":1,"method":"x"}`), &out)
	if out.Class != result.Timeout {
		t.Fatalf("call: class %v (%v); want a timeout (the server never answers)", out.Class, out.Err)
	}
	start := time.Now()
	tr.Close()
	// closeWait is 1 s, cut to the 300 ms Timeout; the library alone would wait 5 s
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Close took %v; want about 300ms", d)
	}
}

// stuckUpgradeServer returns the ws:// URL of a server on loopback that accepts connections but
// never answers the upgrade; it holds them until the test ends.
func stuckUpgradeServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var held []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			held = append(held, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range held {
			c.Close()
		}
		mu.Unlock()
	})
	return "ws://" + ln.Addr().String() + "/"
}

// Calls arriving one after another (as the open model sends them) at a server that never answers
// the upgrade all queue for the same connection slot. Each failed set-up takes a little longer than
// the gap between arrivals, so the queue grows; each call must still end within its own Timeout
// (in the engine this made service times reach twice --timeout).
func TestStuckUpgradeBoundsEveryCallByTimeout(t *testing.T) {
	t.Parallel()
	url := stuckUpgradeServer(t)
	const timeout = time.Second // long beside a busy machine's scheduling delays (up to ~300 ms seen)
	tr := New(Options{Conns: 8, Spread: DefaultSpread, Timeout: timeout})
	defer tr.Close()
	const calls = 1000
	var wg sync.WaitGroup
	took := make([]time.Duration, calls)
	tick := time.NewTicker(250 * time.Microsecond) // the pace of arrivals: 1000 calls over 250ms, faster than a set-up fails
	defer tick.Stop()
	for i := range calls {
		<-tick.C
		wg.Go(func() {
			r := request(url, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"echo"}`, i+1))
			var out transport.Outcome
			start := time.Now()
			tr.Do(context.Background(), r, &out)
			took[i] = time.Since(start)
			if out.Class != result.Timeout {
				t.Errorf("call %d: got class %v (%v); want timeout", i, out.Class, out.Err)
			}
		})
	}
	wg.Wait()
	// a call ends within its Timeout plus scheduling slack, far below the two Timeouts that a
	// wait behind a later call's set-up adds up to
	const slack = 400 * time.Millisecond
	late, worst := 0, time.Duration(0)
	for _, d := range took {
		if d > timeout+slack {
			late++
		}
		worst = max(worst, d)
	}
	if late > 0 {
		t.Errorf("%d of %d calls took longer than %v, the longest %v; want each within its Timeout %v", late, calls, timeout+slack, worst, timeout)
	}
}
