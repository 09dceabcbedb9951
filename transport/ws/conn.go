package ws

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"sync"
	"sync/atomic"

	"github.com/coder/websocket"

	"github.com/rpcbench/rpcbench/internal/jsonscan"
)

// conn is one WebSocket connection and the calls waiting on it.
type conn struct {
	t  *Transport
	ws *websocket.Conn
	mu sync.Mutex
	// pending holds the waiters by their first id; waiters that share an id (a static body sent
	// many times) queue behind each other and take answers in turn.
	pending map[int64]*waiter
	// alias maps the other ids of a batch to its first id.
	alias map[int64]int64
	err   error // why the connection ended; set once
	done  chan struct{}
	// inflight counts the calls that picked this connection and have not ended.
	inflight atomic.Int64
}

// waiter is one call waiting for its answer.
type waiter struct {
	ids   []int64
	ch    chan answer
	timer *time.Timer
	next  *waiter // the next waiter with the same first id
}

// answer is what the reader hands a waiter: the message, or why none will come.
type answer struct {
	buf   *[]byte
	first time.Time
	err   error
}

// setIDs reads the ids of the call or batch in body.
func (w *waiter) setIDs(body []byte) bool {
	w.ids = w.ids[:0]
	if jsonscan.KindOf(body) != jsonscan.Array {
		v, ok, err := jsonscan.Member(body, "id")
		if !ok || err != nil {
			return false
		}
		id, err := jsonscan.Int(v)
		if err != nil {
			return false
		}
		w.ids = append(w.ids, id)
		return true
	}
	it := jsonscan.Elements(body)
	for it.Next() {
		v, ok, err := jsonscan.Member(it.Value, "id")
		if !ok || err != nil {
			continue // a notification: no answer
		}
		if id, err := jsonscan.Int(v); err == nil {
			w.ids = append(w.ids, id)
		}
	}
	return len(w.ids) > 0
}

func (c *conn) dead() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// add registers w to receive the answer to its ids.
func (c *conn) add(w *waiter) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return c.err
	}
	key := w.ids[0]
	if head := c.pending[key]; head != nil {
		for head.next != nil {
			head = head.next
		}
		head.next = w
	} else {
		c.pending[key] = w
	}
	for _, id := range w.ids[1:] {
		if c.alias == nil {
			c.alias = map[int64]int64{}
		}
		if _, taken := c.alias[id]; !taken {
			c.alias[id] = key
		}
	}
	return nil
}

// remove unregisters w; it reports whether w was still registered. Call with c.mu held.
func (c *conn) removeLocked(w *waiter) bool {
	key := w.ids[0]
	var prev *waiter
	for x := c.pending[key]; x != nil; prev, x = x, x.next {
		if x != w {
			continue
		}
		switch {
		case prev != nil:
			prev.next = x.next
		case x.next != nil:
			c.pending[key] = x.next
		default:
			delete(c.pending, key)
		}
		w.next = nil
		for _, id := range w.ids[1:] {
			if c.alias[id] == key && c.pending[key] == nil {
				delete(c.alias, id)
			}
		}
		return true
	}
	return false
}

// cancel unregisters w after a timeout or a cancellation. When the reader already took w, its
// answer is in w.ch or about to be: cancel waits for it and returns it.
func (c *conn) cancel(w *waiter) (answer, bool) {
	c.mu.Lock()
	gone := !c.removeLocked(w)
	c.mu.Unlock()
	if gone {
		return <-w.ch, true
	}
	return answer{}, false
}

// take removes and returns the waiter for id, or nil. Call with c.mu held.
func (c *conn) takeLocked(id int64) *waiter {
	w := c.pending[id]
	if w == nil {
		key, ok := c.alias[id]
		if !ok {
			return nil
		}
		if w = c.pending[key]; w == nil {
			return nil
		}
	}
	c.removeLocked(w)
	return w
}

// read hands each message to its waiter until the connection ends, then fails the waiters left.
func (c *conn) read() {
	t := c.t
	defer t.wg.Done()
	var err error
	for {
		var typ websocket.MessageType
		var r io.Reader
		typ, r, err = c.ws.Reader(context.Background()) // no deadline: Close ends the connection, and a Background context costs no timer per message
		if err != nil {
			break
		}
		first := time.Now()
		bp := t.bufs.Get().(*[]byte)
		*bp, err = readAll(r, (*bp)[:0])
		if err != nil {
			t.bufs.Put(bp)
			break
		}
		if typ != websocket.MessageText && typ != websocket.MessageBinary {
			t.bufs.Put(bp)
			continue
		}
		c.mu.Lock()
		w := c.route(*bp)
		c.mu.Unlock()
		if w == nil {
			t.orphans.Add(1)
			t.bufs.Put(bp)
			continue
		}
		w.ch <- answer{buf: bp, first: first}
	}
	c.fail(err)
}

// route finds the waiter of a message: by its id, or for a batch by the first element id that
// someone waits for. Call with c.mu held.
func (c *conn) route(msg []byte) *waiter {
	if jsonscan.KindOf(msg) != jsonscan.Array {
		v, ok, err := jsonscan.Member(msg, "id")
		if !ok || err != nil {
			return nil
		}
		id, err := jsonscan.Int(v)
		if err != nil {
			return nil
		}
		return c.takeLocked(id)
	}
	it := jsonscan.Elements(msg)
	for it.Next() {
		v, ok, err := jsonscan.Member(it.Value, "id")
		if !ok || err != nil {
			continue
		}
		if id, err := jsonscan.Int(v); err == nil {
			if w := c.takeLocked(id); w != nil {
				return w
			}
		}
	}
	return nil
}

// fail ends the connection: every waiter gets err.
func (c *conn) fail(err error) {
	if err == nil {
		err = io.EOF
	}
	var ce websocket.CloseError
	if errors.As(err, &ce) {
		err = fmt.Errorf("ws: connection closed by the server (%v): %w", ce.Code, io.EOF)
	}
	c.ws.CloseNow()
	c.mu.Lock()
	c.err = err
	var ws []*waiter
	for _, w := range c.pending {
		for ; w != nil; w = w.next {
			ws = append(ws, w)
		}
	}
	clear(c.pending)
	clear(c.alias)
	c.mu.Unlock()
	close(c.done)
	for _, w := range ws {
		w.next = nil
		w.ch <- answer{err: err}
	}
}

// readAll appends everything r holds to b, growing it as needed.
func readAll(r io.Reader, b []byte) ([]byte, error) {
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}
