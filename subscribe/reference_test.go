package subscribe

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/serve/ethrpc"
)

// slowProxy forwards loopback connections to target; what target writes to the first connection
// is handed on delay after it was read (in order), to the others at once.
func slowProxy(t *testing.T, target string, delay time.Duration) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var n atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			d := time.Duration(0)
			if n.Add(1) == 1 {
				d = delay
			}
			go forward(c, target, d)
		}
	}()
	return ln.Addr().String()
}

func forward(c net.Conn, target string, delay time.Duration) {
	defer c.Close()
	u, err := net.Dial("tcp", target)
	if err != nil {
		return
	}
	defer u.Close()
	go func() { io.Copy(u, c); u.Close() }() //nolint:errcheck // ends with either side
	type chunk struct {
		b  []byte
		at time.Time
	}
	chunks := make(chan chunk, 4096)
	go func() {
		defer close(chunks)
		for {
			b := make([]byte, 32<<10)
			k, err := u.Read(b)
			if k > 0 {
				chunks <- chunk{b[:k], time.Now().Add(delay)}
			}
			if err != nil {
				return
			}
		}
	}()
	for ch := range chunks {
		time.Sleep(time.Until(ch.at)) // the fault: this connection's bytes arrive delay late
		if _, err := c.Write(ch.b); err != nil {
			return
		}
	}
}

// Two subscribers of newHeads through a proxy that delays what the node writes to the first of
// them by 300 ms, and a reference connection straight to the node: every head a subscriber
// receives is timed; the slowest subscriber is the delayed one, its heads at least half the delay
// behind the reference's receipt (the reference, read in the same process, can be late too, but
// not by the delay's other half); the reference is not counted among the subscriptions.
func TestReferenceLag(t *testing.T) {
	t.Parallel()
	const delay = 300 * time.Millisecond
	s := node(t, ethrpc.Config{BlockTime: 50 * time.Millisecond, NewBlocks: 20})
	proxy := slowProxy(t, s.Addr(), delay)
	r := run(t, Config{URL: "ws://" + proxy + "/", Reference: s.WebSocketURL(), Count: 2, Hold: 2500 * time.Millisecond})
	u := r.Summary()
	ref := u.Reference
	if r.Opened != 2 || r.Failed != 0 || ref == nil {
		t.Fatalf("opened %d, failed %d, reference %+v: want 2 subscriptions, 0 failed, a reference", r.Opened, r.Failed, ref)
	}
	if ref.Heads == 0 || ref.Heads > 20 || ref.Error != "" || ref.URL != s.WebSocketURL() {
		t.Errorf("the reference %+v: want some of the node's 20 heads, no error, its URL %s", ref, s.WebSocketURL())
	}
	if ref.Timed != r.Messages || r.Messages == 0 || ref.Lag == nil {
		t.Errorf("%d heads timed, %d received, lag %v: want every head timed", ref.Timed, r.Messages, ref.Lag)
	}
	w := ref.Slowest
	if w == nil || w.MeanMs < float64(delay/2)/float64(time.Millisecond) || w.MaxMs < w.MeanMs || w.Heads == 0 || w.Heads > r.MaxPerSub {
		t.Errorf("slowest subscriber %+v: want a mean of %v at least, over its heads", w, delay/2)
	}
	if ref.Lag != nil && ref.Lag.Max < w.MaxMs-0.01*w.MaxMs {
		t.Errorf("lag max %vms below the slowest subscriber's %vms", ref.Lag.Max, w.MaxMs)
	}
}

// A reference wants a WebSocket URL and subscriptions of newHeads.
func TestReferenceChecked(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		params, ref, want string
	}{
		{`["newHeads"]`, "http://127.0.0.1:1/", "the reference needs a WebSocket URL"},
		{`["logs",{}]`, "ws://127.0.0.1:1/", "a reference times heads: want subscriptions of newHeads"},
	} {
		_, err := Run(context.Background(), Config{URL: "ws://127.0.0.1:1/", Method: "eth_subscribe", Params: json.RawMessage(c.params), Count: 1, Hold: time.Second, Reference: c.ref})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s with reference %s: %v; want %q", c.params, c.ref, err, c.want)
		}
	}
}

// A reference that never answers times no head: the subscribers' heads are counted as not
// matched, the lag is not a figure (it read 0 before), and the error keeps no secret of its URL.
// The target's headers (an Authorization) do not go to a reference on another host.
func TestReferenceThatNeverAnswers(t *testing.T) {
	t.Parallel()
	// blocks without end: the subscription, held 1 s, receives some however late it opens
	s := node(t, ethrpc.Config{BlockTime: 50 * time.Millisecond})
	auth := make(chan string, 4)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth <- r.Header.Get("Authorization")
		http.Error(w, "not a node", http.StatusNotFound)
	}))
	defer other.Close()
	ref := strings.Replace(other.URL, "http://", "ws://u:pw0rdSecret@", 1) + "/?api_key=k3yValue"
	h := http.Header{}
	h.Set("Authorization", "Bearer s3cr3tBearer")
	r := run(t, Config{URL: s.WebSocketURL(), Reference: ref, Header: h, Count: 1, Hold: time.Second})
	u := r.Summary().Reference
	if u == nil || u.Timed != 0 || u.Lag != nil || u.Unmatched != r.Messages || r.Messages == 0 || u.Error == "" {
		t.Fatalf("reference %+v after %d heads received: want none timed, no lag figure, every head unmatched, an error", u, r.Messages)
	}
	for _, secret := range []string{"pw0rdSecret", "k3yValue"} {
		if strings.Contains(u.Error, secret) || strings.Contains(u.URL, secret) {
			t.Errorf("the reference's URL %q or error %q holds %q", u.URL, u.Error, secret)
		}
	}
	select {
	case got := <-auth:
		if strings.Contains(got, "s3cr3tBearer") { // its own user-info may go as Basic
			t.Errorf("the reference on another host got the target's Authorization %q", got)
		}
	default:
		t.Error("the reference was never asked for")
	}
}
