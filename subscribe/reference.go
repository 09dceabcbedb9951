package subscribe

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/coder/websocket"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/summary"
)

// refWindow is how long a head the reference received is kept for the subscribers that receive it
// later, and how long a subscriber's head waits for the reference to receive it: past that, the
// subscriber's head is counted as not matched.
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
	// pending are subscribers' heads the reference has not received yet, by hash: timed as ahead
	// when it does, counted in unmatched when it does not within refWindow.
	pending   map[string]pendingHead
	unmatched uint64
	slowest   struct {
		sum, max time.Duration
		n        uint64
	}
}

// pendingHead is the subscribers' receipts of a head the reference has not had yet.
type pendingHead struct {
	n     uint64
	first time.Time
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
	// the target's headers (an Authorization, say) go to the reference only on the target's host
	var header http.Header
	if sameHost(r.cfg.URL, r.cfg.Reference) {
		header = r.cfg.Header
	}
	c, _, err := websocket.Dial(cctx, r.cfg.Reference, &websocket.DialOptions{HTTPClient: r.client, HTTPHeader: header})
	cancel()
	if err != nil {
		end("connect: " + plan.RedactURL(err.Error())) // the dial error quotes the URL: its secrets stay out
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
		ref := r.res.ref
		if _, ok := ref.heads[h]; !ok {
			ref.heads[h] = at
			ref.received++
			if p, ok := ref.pending[h]; ok { // subscribers had it first: lag 0 each
				ref.ahead += p.n
				ref.timed += p.n
				for range p.n {
					result.RecordDuration(ref.lag, 0)
				}
				delete(ref.pending, h)
			}
		}
		for k, t := range ref.heads {
			if at.Sub(t) > refWindow {
				delete(ref.heads, k)
			}
		}
		ref.expire(at)
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
	ref := r.res.ref
	t, ok := ref.heads[h]
	if !ok { // not at the reference yet: timed when it is, unmatched if it never is
		p := ref.pending[h]
		if p.n == 0 {
			p.first = at
		}
		p.n++
		ref.pending[h] = p
		ref.expire(at)
		return 0, false
	}
	var lag time.Duration
	if at.After(t) {
		lag = at.Sub(t)
	} else {
		ref.ahead++
	}
	ref.timed++
	result.RecordDuration(ref.lag, lag)
	return lag, true
}

// expire counts the subscribers' heads that waited for the reference longer than refWindow as not
// matched.
func (ref *reference) expire(now time.Time) {
	for h, p := range ref.pending {
		if now.Sub(p.first) > refWindow {
			ref.unmatched += p.n
			delete(ref.pending, h)
		}
	}
}

// sameHost reports whether two URLs name one host and port.
func sameHost(a, b string) bool {
	ua, err1 := url.Parse(a)
	ub, err2 := url.Parse(b)
	return err1 == nil && err2 == nil && strings.EqualFold(ua.Host, ub.Host)
}

// lagOf is the figures of the lag behind the reference, for Result.Summary; nil without a
// reference.
func (r *Result) lagOf() *summary.ReferenceLag {
	ref := r.ref
	if ref == nil {
		return nil
	}
	unmatched := ref.unmatched
	for _, p := range ref.pending { // the run is over: the reference will not receive them now
		unmatched += p.n
	}
	out := &summary.ReferenceLag{
		URL: r.refURL, Heads: ref.received, Error: ref.err, Timed: ref.timed, Ahead: ref.ahead, Unmatched: unmatched,
	}
	if ref.timed > 0 {
		out.Lag = summary.PercentilesOf(ref.lag)
	}
	if s := ref.slowest; s.n > 0 {
		out.Slowest = &summary.SubscriberLag{
			Heads: s.n, MeanMs: float64(s.sum) / float64(s.n) / float64(time.Millisecond), MaxMs: float64(s.max) / float64(time.Millisecond),
		}
	}
	return out
}
