package ws

import (
	"testing"
	"time"
)

// FuzzRoute feeds arbitrary requests and answers to the id matching: registering a call and
// routing an answer never panic, and an answer routes to the call only when it carries one of
// the call's ids.
func FuzzRoute(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":7,"method":"m"}`), []byte(`{"jsonrpc":"2.0","id":7,"result":1}`))
	f.Add([]byte(`[{"id":1,"method":"a"},{"id":2,"method":"b"}]`), []byte(`[{"id":2,"result":1},{"id":1,"result":2}]`))
	f.Add([]byte(`[{"method":"notify"}]`), []byte(`[{"id":null,"error":{"code":-32600}}]`))
	f.Fuzz(func(t *testing.T, req, msg []byte) {
		w := &waiter{ch: make(chan answer, 1), timer: time.NewTimer(time.Hour)}
		defer w.timer.Stop()
		if !w.setIDs(req) {
			return
		}
		c := &conn{pending: map[int64]*waiter{}}
		if err := c.add(w); err != nil {
			t.Fatal(err)
		}
		got := c.route(msg)
		if got != nil && got != w {
			t.Fatalf("route gave a waiter that was never added")
		}
		if got == nil {
			if !c.removeLocked(w) {
				t.Fatalf("an unrouted call was not pending any more")
			}
		} else if c.removeLocked(w) {
			t.Fatalf("a routed call was still pending")
		}
		if len(c.pending) != 0 || len(c.alias) != 0 {
			t.Fatalf("pending %v alias %v left after the call went", c.pending, c.alias)
		}
	})
}
