package mesh

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/internal/testnet"
)

// blackHole accepts connections and never answers, until the test ends.
func blackHole(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return ln.Addr().String()
}

// A chain stuck at a peer that never answers ends at its deadline with 504 and says so. (The
// deadline leaves time for the first hop to reach A on a busy machine: A counts it on arrival.)
func TestChainTimeout(t *testing.T) {
	t.Parallel()
	for _, tr := range Transports() {
		t.Run(string(tr), func(t *testing.T) {
			t.Parallel()
			a, err := ListenPeer("127.0.0.1:0", "A", Config{Transport: tr, Peers: map[string]string{"A": "127.0.0.1:1", "X": blackHole(t)}})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { a.Close() })
			peers := map[string]string{"A": a.Addr(), "X": "unused"}
			peers["X"] = a.cfg.Peers["X"]
			m, err := Listen("127.0.0.1:0", Config{Transport: tr, Peers: peers, Timeout: time.Second})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { m.Close() })
			code, r := post(t, m.URL()+"/peer/hop", hopBody([]string{"A", "X"}, 5))
			if code != http.StatusGatewayTimeout {
				t.Errorf("got status %d; want 504", code)
			}
			if msg := deref(r.Error); !strings.Contains(msg, "chain did not finish within 1s") {
				t.Errorf("got error %q; want it to say the chain did not finish within 1s", msg)
			}
			if a.Hops() != 1 {
				t.Errorf("peer A: got %d hops; want 1", a.Hops())
			}
		})
	}
}

func TestUnreachablePeer(t *testing.T) {
	t.Parallel()
	gone := testnet.RefusedAddr(t)
	m := startMesh(t, Config{})
	peers := m.Peers()
	peers["Z"] = gone
	a, err := ListenPeer("127.0.0.1:0", "A", Config{Peers: peers})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	peers["A"] = a.Addr()
	gw, err := NewGateway(Config{Peers: peers})
	if err != nil {
		t.Fatal(err)
	}
	defer gw.Close()
	r, err := gw.Hop(context.Background(), HopRequest{Queue: []string{"A", "Z"}, Limit: 3})
	if !errors.Is(err, ErrChain) || errors.Is(err, ErrTimeout) {
		t.Fatalf("got error %v; want ErrChain, not ErrTimeout", err)
	}
	if msg := deref(r.Error); !strings.Contains(msg, "hop 2 A→Z") || !strings.Contains(msg, "connection refused") {
		t.Errorf("got %q; want it to name hop 2 A→Z and the refused connection", msg)
	}
	if r.State.HopCount != 1 {
		t.Errorf("got HopCount %d; want 1, as far as the chain got", r.State.HopCount)
	}
}

// HTTP/1.1 holds a connection per open hop; a chain deeper than the open-file budget is refused up
// front when the peers share the process, and at the hop that runs out when they do not.
func TestFileBudget(t *testing.T) {
	t.Parallel()
	t.Run("refused up front", func(t *testing.T) {
		t.Parallel()
		m := startMesh(t, Config{MaxOpenFiles: reserveFiles + 100})
		code, r := post(t, m.URL()+"/peer/hop", hopBody(DefaultNames(), 51))
		if code != http.StatusBadRequest || !strings.Contains(deref(r.Error), "limit 51 over HTTP/1.1 needs about 102 file descriptors") {
			t.Errorf("got %d %q; want 400 naming the file descriptors needed", code, deref(r.Error))
		}
		code, r = post(t, m.URL()+"/peer/hop", hopBody(DefaultNames(), 40))
		if code != http.StatusOK {
			t.Errorf("40 hops: got %d %q; want 200", code, deref(r.Error))
		}
		for _, tr := range []Transport{H2C, GRPC} {
			m := startMesh(t, Config{Transport: tr, MaxOpenFiles: reserveFiles + 100})
			if code, r := post(t, m.URL()+"/peer/hop", hopBody(DefaultNames(), 120)); code != http.StatusOK {
				t.Errorf("%s, 120 hops: got %d %q; want 200: multiplexed transports need no connection per hop", tr, code, deref(r.Error))
			}
		}
	})
	t.Run("refused at the hop", func(t *testing.T) {
		t.Parallel()
		// One peer process, whose budget allows 20 connections: 10 in from the gateway or itself and
		// 10 out to itself, so hop 11 cannot get a connection.
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		cfg := Config{Peers: map[string]string{"A": ln.Addr().String()}, MaxOpenFiles: reserveFiles + 20}
		a, err := ServePeer(ln, "A", cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { a.Close() })
		gw, err := NewGateway(Config{Peers: cfg.Peers, MaxOpenFiles: -1})
		if err != nil {
			t.Fatal(err)
		}
		defer gw.Close()
		r, err := gw.Hop(context.Background(), HopRequest{Queue: []string{"A"}, Limit: 50})
		if !errors.Is(err, ErrChain) {
			t.Fatalf("got %v; want ErrChain", err)
		}
		if msg := deref(r.Error); !strings.Contains(msg, "no file descriptor left") || !strings.Contains(msg, "A→A") {
			t.Errorf("got %q; want it to say no file descriptor was left, at a hop A→A", msg)
		}
	})
}

// A peer checks what arrives from the network instead of trusting it.
func TestPeerRejectsBadState(t *testing.T) {
	t.Parallel()
	m := startMesh(t, Config{MaxLimit: 100})
	url := "http://" + m.Peers()["B"] + hopPath
	now := time.Now().UnixNano()
	tests := []struct {
		name    string
		st      State
		wantErr string
	}{
		{"misrouted", State{Start: now, Queue: []string{"A", "B"}, QueueIdx: 0, Limit: 3}, `misrouted: state for "A" arrived at "B"`},
		{"index out of range", State{Queue: []string{"B"}, QueueIdx: 4, Limit: 3}, "queue index 4 out of range"},
		{"limit too large", State{Queue: []string{"B"}, Limit: 101}, "limit 101 out of range 1 to 100"},
		{"already finished", State{Queue: []string{"B"}, Limit: 3, HopCount: 3}, "hop count 3 out of range 0 to 2"},
		{"empty queue", State{Limit: 3}, "queue of 0 names"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b, _ := json.Marshal(tt.st)
			code, r := post(t, url, string(b))
			if code != http.StatusOK || !strings.Contains(deref(r.Error), tt.wantErr) {
				t.Errorf("got %d %q; want 200 with an error containing %q", code, deref(r.Error), tt.wantErr)
			}
		})
	}
	code, r := post(t, url, `{"Queue":["B"],"Limit":1,"Extra":1}`)
	if code != http.StatusBadRequest || !strings.Contains(deref(r.Error), `unknown field "Extra"`) {
		t.Errorf("unknown field: got %d %q; want 400", code, deref(r.Error))
	}
	req, _ := http.NewRequest("POST", url, strings.NewReader(`{"Queue":["B"],"Limit":1}`))
	req.Header.Set(deadlineHeader, "soon")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("bad deadline header: got %d; want 400", resp.StatusCode)
	}
}

// Close cancels a chain in flight instead of waiting for its deadline.
func TestCloseCancelsChains(t *testing.T) {
	t.Parallel()
	for _, tr := range Transports() {
		t.Run(string(tr), func(t *testing.T) {
			t.Parallel()
			a, err := ListenPeer("127.0.0.1:0", "A", Config{Transport: tr, Peers: map[string]string{"A": "127.0.0.1:1", "X": blackHole(t)}})
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan string, 1)
			go func() {
				st := State{Start: time.Now().UnixNano(), Queue: []string{"A", "X"}, Limit: 5}
				cfg := Config{Transport: tr, Peers: map[string]string{"A": a.Addr()}}
				l, err := newLink(tr, cfg.Peers, nil, 1)
				if err != nil {
					done <- err.Error()
					return
				}
				defer l.close()
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				_, failure, err := l.call(ctx, "A", st)
				done <- fmt.Sprint(failure, err)
			}()
			// Wait until the hop has arrived at A (and A is waiting on X), then close A.
			deadline := time.Now().Add(10 * time.Second)
			for a.Hops() == 0 && time.Now().Before(deadline) {
				select {
				case msg := <-done:
					t.Fatalf("chain ended before Close: %s", msg)
				case <-time.After(time.Millisecond):
				}
			}
			start := time.Now()
			a.Close()
			select {
			case msg := <-done:
				if msg == " <nil>" {
					t.Errorf("got a successful chain; want it cancelled")
				}
			case <-time.After(20 * time.Second):
				t.Fatal("chain still running 20s after Close")
			}
			if d := time.Since(start); d > 15*time.Second {
				t.Errorf("Close took %v; want well under its 5s wait", d)
			}
		})
	}
}
