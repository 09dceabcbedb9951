package subscribe

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/coder/websocket"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/summary"
)

// refWindow is how long a head the reference received is kept for the subscribers that receive it
// later: a subscriber further behind than that finds it no more, and is counted as not matched.
const refWindow = time.Minute

// reference holds the heads the reference connection received, by block hash, and what the
// subscribers' heads were timed against them (all under runner.mu).
type reference struct {
	heads    map[string]time.Time
	received uint64 // heads the reference received
	err      string // why the reference connection ended early, if it did
	lag      *result.Histogram
	timed    uint64 // subscribers' heads timed against the reference
	ahead    uint64 // of which received before the reference had them (lag 0)
	slowest  struct {
		sum, max time.Duration
		n        uint64
	}
}

// headHash is the block hash of a newHeads notification's result; "" for anything else.
func headHash(res json.RawMessage) string {
	var h struct {
		Hash string `json:"hash"`
	}
	if json.Unmarshal(res, &h) != nil {
		return ""
	}
	return h.Hash
}

// runReference opens the reference connection (cfg.Reference), subscribes it to newHeads and
// notes when each head arrives, until ctx ends.
func (r *runner) runReference(ctx context.Context) {
	end := func(msg string) {
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.res.ref.err == "" && ctx.Err() == nil {
			r.res.ref.err = msg
		}
	}
	cctx, cancel := context.WithTimeout(ctx, r.cfg.AnswerTimeout)
	c, _, err := websocket.Dial(cctx, r.cfg.Reference, &websocket.DialOptions{HTTPClient: r.client, HTTPHeader: r.cfg.Header})
	cancel()
	if err != nil {
		end("connect: " + err.Error())
		return
	}
	defer c.CloseNow() //nolint:errcheck // the reference is dropped, not unsubscribed: the run is over
	c.SetReadLimit(64 << 20)
	call := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":1,"method":%q,"params":["newHeads"]}`, r.cfg.Method)
	if err := c.Write(ctx, websocket.MessageText, call); err != nil {
		end("subscribe: " + err.Error())
		return
	}
	for {
		_, m, err := c.Read(ctx)
		at := time.Now()
		if err != nil {
			end("read: " + err.Error())
			return
		}
		var n notification
		if json.Unmarshal(m, &n) != nil {
			continue
		}
		if n.Error != nil {
			end(fmt.Sprintf("subscribe: error %d %s", n.Error.Code, n.Error.Message))
			return
		}
		h := headHash(n.Params.Result)
		if h == "" {
			continue
		}
		r.mu.Lock()
		if _, ok := r.res.ref.heads[h]; !ok {
			r.res.ref.heads[h] = at
			r.res.ref.received++
		}
		for k, t := range r.res.ref.heads {
			if at.Sub(t) > refWindow {
				delete(r.res.ref.heads, k)
			}
		}
		r.mu.Unlock()
	}
}

// behind times a subscriber's head (result) received at against the reference's receipt of it:
// the lag, or 0 when the subscriber had it first. It returns the lag and whether it was timed
// (result is a head). r.mu is held.
func (r *runner) behind(res json.RawMessage, at time.Time) (time.Duration, bool) {
	h := headHash(res)
	if h == "" {
		return 0, false
	}
	var lag time.Duration
	if t, ok := r.res.ref.heads[h]; ok && at.After(t) {
		lag = at.Sub(t)
	} else {
		r.res.ref.ahead++
	}
	r.res.ref.timed++
	result.RecordDuration(r.res.ref.lag, lag)
	return lag, true
}

// lagOf is the figures of the lag behind the reference, for Result.Summary; nil without a
// reference.
func (r *Result) lagOf() *summary.ReferenceLag {
	ref := r.ref
	if ref == nil {
		return nil
	}
	out := &summary.ReferenceLag{
		URL: r.refURL, Heads: ref.received, Error: ref.err, Timed: ref.timed, Ahead: ref.ahead,
		Lag: summary.PercentilesOf(ref.lag),
	}
	if s := ref.slowest; s.n > 0 {
		out.Slowest = &summary.SubscriberLag{
			Heads: s.n, MeanMs: float64(s.sum) / float64(s.n) / float64(time.Millisecond), MaxMs: float64(s.max) / float64(time.Millisecond),
		}
	}
	return out
}
