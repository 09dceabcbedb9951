package replay

import (
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/result"
)

// Other is the endpoint of the records beyond the first MaxNames names.
const Other = "other"

// Info is what a scan of the recording found: what the replay will send.
type Info struct {
	// Records is how many records one pass sends (after the window, filters and sampling).
	Records uint64
	// First and Last are the times of the first and last record sent; Span is Last − First.
	First, Last time.Time
	// Names are the endpoints in the order first met: the records' names, up to MaxNames, then
	// Other when more names were met.
	Names []string
	// Examples holds for each name its first record's method, path and calls.
	Examples []Example
	// Skips counts the lines that did not parse, in one pass.
	Skips Skips
}

// Example is what an endpoint's first record was.
type Example struct {
	Method string
	Path   string // with the query
	Calls  int    // JSON-RPC calls; 0: no JSON-RPC
	Body   []byte
}

// Timeline is a prepared replay: the due time of each record (engine.Timeline) and its request
// (plan.Source). Records are read ahead of the schedule by at most Window records, by one
// goroutine, so that memory does not grow with the file. Start it once; Close it after the run.
type Timeline struct {
	o      Options
	base   *url.URL
	info   Info
	index  map[string]int
	total  uint64 // records over every loop
	period time.Duration

	mu      sync.Mutex
	cond    *sync.Cond
	slots   []slot
	read    uint64 // records in the slots so far
	err     error  // why reading stopped early
	done    bool   // reading ended
	closing bool
	started bool
}

type slot struct {
	due   time.Duration
	req   result.Request
	taken bool
}

// Scan reads the recording once as the replay will (without sending) and prepares its timeline.
func Scan(o Options) (*Timeline, error) {
	if len(o.Files) == 0 {
		return nil, errors.New("replay: no file")
	}
	switch {
	case o.Speed < 0 || math.IsNaN(o.Speed) || math.IsInf(o.Speed, 0):
		return nil, fmt.Errorf("replay: speed %v: want a number above 0 (2: twice as fast)", o.Speed)
	case o.Rate < 0 || math.IsNaN(o.Rate) || math.IsInf(o.Rate, 0):
		return nil, fmt.Errorf("replay: rate %v: want a rate above 0", o.Rate)
	case o.Fraction < 0 || o.Fraction > 1 || math.IsNaN(o.Fraction):
		return nil, fmt.Errorf("replay: sample fraction %v: want a number from 0 to 1", o.Fraction)
	case o.Loop < 0:
		return nil, fmt.Errorf("replay: loop %d: want 1 or more", o.Loop)
	}
	if o.Speed == 0 {
		o.Speed = 1
	}
	if o.Loop == 0 {
		o.Loop = 1
	}
	if o.Window <= 0 {
		o.Window = DefaultWindow
	}
	if o.MaxNames <= 0 {
		o.MaxNames = DefaultMaxNames
	}
	base, err := url.Parse(o.Base)
	if err != nil || base.Scheme == "" || base.Host == "" {
		return nil, fmt.Errorf("replay: URL %q: want the scheme and host the requests go to, e.g. http://127.0.0.1:8080", o.Base)
	}
	t := &Timeline{o: o, base: base, index: map[string]int{}}
	t.cond = sync.NewCond(&t.mu)
	p := newPass(&t.o, base, &t.info.Skips)
	defer p.close()
	for {
		it, err := p.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("replay: %w", err)
		}
		in := &t.info
		if in.Records == 0 {
			in.First = it.rec.Time
		}
		in.Records++
		in.Last = it.rec.Time
		name := t.nameOf(&it.rec)
		if _, ok := t.index[name]; ok {
			continue
		}
		if len(in.Names) == o.MaxNames {
			name = Other
			if _, ok := t.index[name]; ok {
				continue
			}
		}
		t.index[name] = len(in.Names)
		in.Names = append(in.Names, name)
		in.Examples = append(in.Examples, Example{Method: it.rec.Method, Path: pathOf(it.rec.Target), Calls: it.rec.Calls, Body: it.rec.Body})
	}
	if t.info.Records == 0 {
		return nil, fmt.Errorf("replay: %s: no record to send (%d lines skipped as unreadable)", strings.Join(o.Files, ", "), t.info.Skips.Count)
	}
	if uint64(o.Loop) > math.MaxUint64/t.info.Records {
		return nil, fmt.Errorf("replay: loop %d: too many records", o.Loop)
	}
	t.total = t.info.Records * uint64(o.Loop)
	// A pass after the last starts one mean interval after the last record of the pass before.
	span := t.info.Last.Sub(t.info.First)
	gap := time.Second
	if n := t.info.Records; n > 1 {
		gap = span / time.Duration(n-1)
	}
	// the whole replay must fit a time.Duration (292 years), or its due times wrap around
	const longest = float64(math.MaxInt64) / 2
	length := float64(span+gap) / o.Speed * float64(o.Loop)
	if o.Rate > 0 {
		length = float64(t.total) / o.Rate * 1e9
	}
	if length > longest || math.IsNaN(length) {
		if o.Rate > 0 {
			return nil, fmt.Errorf("replay: rate %g/s: %d records would take %.3g years; want a higher rate", o.Rate, t.total, length/3.15576e16)
		}
		return nil, fmt.Errorf("replay: speed %g: the recording (%v, %d× over) would take %.3g years; want a higher speed", o.Speed, span, o.Loop, length/3.15576e16)
	}
	t.period = t.scale(span + gap)
	return t, nil
}

// Info returns what the scan found.
func (t *Timeline) Info() Info { return t.info }

// Records returns how many records the replay sends, every loop counted.
func (t *Timeline) Records() uint64 { return t.total }

// nameOf returns the endpoint name of a record: its own (JSON-RPC), else "METHOD /path" with ids
// in the path as {id}.
func (t *Timeline) nameOf(rec *Record) string {
	if rec.Name != "" {
		return rec.Name
	}
	return rec.Method + " " + Key(pathOf(rec.Target))
}

// Key returns a path without its query and with each segment that is an id — a number, a long
// hex string, a UUID — replaced by {id}: /users/42/posts?x=1 is /users/{id}/posts.
func Key(path string) string {
	path, _, _ = strings.Cut(path, "?")
	segs := strings.Split(path, "/")
	for i, s := range segs {
		if isID(s) {
			segs[i] = "{id}"
		}
	}
	k := strings.Join(segs, "/")
	if len(k) > 60 {
		k = k[:59] + "…"
	}
	return k
}

// isID reports whether a path segment is an id: digits, 0x and hex digits, 16 hex digits or more,
// or a UUID (8-4-4-4-12 hex digits).
func isID(s string) bool {
	hex := func(s string) bool {
		for i := 0; i < len(s); i++ {
			if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return false
			}
		}
		return s != ""
	}
	switch {
	case digits(s):
		return true
	case len(s) > 2 && (s[:2] == "0x" || s[:2] == "0X"):
		return hex(s[2:])
	case len(s) == 36 && s[8] == '-' && s[13] == '-' && s[18] == '-' && s[23] == '-':
		return hex(s[:8]) && hex(s[9:13]) && hex(s[14:18]) && hex(s[19:23]) && hex(s[24:])
	}
	return len(s) >= 16 && hex(s)
}

// scale turns a recorded length into one at the replay's speed.
func (t *Timeline) scale(d time.Duration) time.Duration {
	return time.Duration(math.Round(float64(d) / t.o.Speed))
}

// due returns when record k of loop l (k from 0) is due, recorded at rt.
func (t *Timeline) due(l int, k uint64, rt time.Time) time.Duration {
	if t.o.Rate > 0 {
		return time.Duration(math.Round(float64(uint64(l)*t.info.Records+k) / t.o.Rate * 1e9))
	}
	return time.Duration(l)*t.period + t.scale(rt.Sub(t.info.First))
}

// Start starts reading ahead. Call it once, before the run.
func (t *Timeline) Start() {
	t.mu.Lock()
	if t.started {
		t.mu.Unlock()
		return
	}
	t.started = true
	t.slots = make([]slot, t.o.Window)
	t.mu.Unlock()
	go t.readAhead()
}

// Close stops reading ahead.
func (t *Timeline) Close() {
	t.mu.Lock()
	t.closing = true
	t.cond.Broadcast()
	t.mu.Unlock()
}

// readAhead reads every loop of the recording into the slots, at most Window records ahead of
// the last one taken.
func (t *Timeline) readAhead() {
	err := t.eachRecord(func(i uint64, due time.Duration, rec *Record) bool {
		req := t.request(rec)
		t.mu.Lock()
		defer t.mu.Unlock()
		s := &t.slots[i%uint64(len(t.slots))]
		for i >= uint64(len(t.slots)) && !s.taken && !t.closing {
			t.cond.Wait()
		}
		if t.closing {
			return false
		}
		*s = slot{due: due, req: req}
		t.read = i + 1
		t.cond.Broadcast()
		return true
	})
	t.mu.Lock()
	defer t.mu.Unlock()
	if err == nil && t.read < t.total && !t.closing {
		err = fmt.Errorf("replay: the recording gave %d records where its scan found %d: did the file change?", t.read, t.total)
	}
	t.err, t.done = err, true
	t.cond.Broadcast()
}

// eachRecord reads the records of every loop in order and calls f with each one's number and due
// time, until f returns false.
func (t *Timeline) eachRecord(f func(i uint64, due time.Duration, rec *Record) bool) error {
	var i uint64
	for l := range t.o.Loop {
		var skips Skips
		p := newPass(&t.o, t.base, &skips)
		for k := uint64(0); k < t.info.Records; k++ {
			it, err := p.next()
			if err != nil {
				p.close()
				if err == io.EOF {
					return nil // the caller says what is missing
				}
				return fmt.Errorf("replay: %w", err)
			}
			if !f(i, t.due(l, k, it.rec.Time), &it.rec) {
				p.close()
				return nil
			}
			i++
		}
		p.close()
	}
	return nil
}

// request builds the request of a record, sent to the base URL.
func (t *Timeline) request(rec *Record) result.Request {
	idx, ok := t.index[t.nameOf(rec)]
	if !ok {
		idx = t.index[Other]
	}
	path := pathOf(rec.Target)
	if bp := strings.TrimRight(t.base.EscapedPath(), "/"); bp != "" {
		path = bp + path
	}
	r := result.Request{Endpoint: idx, Method: rec.Method, Scheme: t.base.Scheme, Host: t.base.Host,
		Path: []byte(path), Header: rec.Header, Body: rec.Body}
	if rec.Status != 0 {
		r.SourceState = &recorded{status: rec.Status} // for RecordedStatus
	}
	return r
}

// At implements engine.Timeline: record i's due time, waiting for it to be read.
func (t *Timeline) At(i uint64) (time.Duration, bool) {
	if i >= t.total {
		return 0, false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for t.read <= i && !t.done && !t.closing {
		t.cond.Wait()
	}
	if t.read <= i || t.closing {
		return 0, false
	}
	return t.slots[i%uint64(len(t.slots))].due, true
}

// Fill implements plan.Source: record i's request. The engine asks for it once At(i) gave its
// due time; it frees the record's slot for the reader.
func (t *Timeline) Fill(i uint64, r *result.Request) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.read <= i {
		if t.err != nil {
			return t.err
		}
		return fmt.Errorf("replay: record %d asked for before it was read", i+1)
	}
	s := &t.slots[i%uint64(len(t.slots))]
	if s.taken || t.read > i+uint64(len(t.slots)) {
		return fmt.Errorf("replay: record %d asked for twice", i+1)
	}
	*r = s.req
	s.taken, s.req = true, result.Request{}
	t.cond.Broadcast()
	return nil
}

// Count implements engine.Timeline: how many records are due before t. It reads the recording
// again from its start up to t (it is asked once, at the end of a run that stopped early).
func (t *Timeline) Count(at time.Duration) uint64 {
	if at > t.End() {
		return t.total
	}
	var n uint64
	t.eachRecord(func(_ uint64, due time.Duration, _ *Record) bool {
		if due >= at {
			return false
		}
		n++
		return true
	})
	return n
}

// Last returns when the last record is due.
func (t *Timeline) Last() time.Duration {
	return t.due(t.o.Loop-1, t.info.Records-1, t.info.Last)
}

// End implements engine.Timeline: when a record after the last would be due — one mean interval
// after it, where the next pass of a loop would start — so that every record is due before it.
func (t *Timeline) End() time.Duration {
	if t.o.Rate > 0 {
		return t.due(0, t.total, time.Time{})
	}
	return time.Duration(t.o.Loop) * t.period
}

// Plan returns the plan a replay runs, sending to base: one endpoint per name the scan found (so
// that a report gives figures per endpoint; an endpoint whose recorded path makes no URL shows
// base), the open model with the replay's record count and, as its rate, their mean rate over
// the replay (or the constant rate). The timeline decides each due time: run the plan with it as
// the engine's timeline and source.
func (t *Timeline) Plan(base string) plan.Plan {
	var eps []plan.Endpoint
	for k, name := range t.info.Names {
		ex := t.info.Examples[k]
		u := plan.JoinURL(base, ex.Path)
		if (plan.Plan{Endpoints: []plan.Endpoint{{URL: u}}}).Validate() != nil {
			u = base
		}
		// the body of its first record: what a WebSocket endpoint sends, by the plan's rules
		eps = append(eps, plan.Endpoint{Name: name, Method: ex.Method, URL: u, Body: ex.Body})
	}
	rate := float64(t.total)
	if end := t.End(); end > 0 {
		rate = float64(t.total) / end.Seconds()
		rate = math.Round(rate*1000) / 1000 // as reports print it: 9.5/s, not 9.499999999525/s
	}
	if t.o.Rate > 0 {
		rate = t.o.Rate
	}
	return plan.Plan{Endpoints: eps, Load: plan.Load{Model: plan.Open, Rate: rate, Requests: t.total}}
}

// JSONRPC reports whether every record is a JSON-RPC call or batch, whose answers are judged as
// JSON-RPC answers.
func (t *Timeline) JSONRPC() bool {
	for _, ex := range t.info.Examples {
		if ex.Calls == 0 {
			return false
		}
	}
	return true
}

// Err returns why reading stopped early, if it did.
func (t *Timeline) Err() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}
