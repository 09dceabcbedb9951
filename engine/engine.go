package engine

import (
	"context"
	"fmt"
	"io/fs"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/schedule"
	"github.com/rpcbench/rpcbench/transport"
)

// Tick is what observers get once per interval, from one goroutine, in order.
type Tick struct {
	// Interval is what finished in the measured part of the tick (empty during the warm-up). It is
	// valid only during the call: Merge it into your own Interval to keep it.
	Interval *result.Interval
	// Elapsed is the time since the start, warm-up included; Planned is the planned length with the
	// warm-up, 0 when the run ends on a count.
	Elapsed, Planned time.Duration
	// Warmup is true while warming up; WarmupSent counts the warm-up requests so far.
	Warmup     bool
	WarmupSent uint64
	// InFlight is the number of requests being sent or awaited at the tick.
	InFlight int64
	// Final is true for the last tick of the run.
	Final bool
}

// Observer receives the ticks of a run. It runs on the engine's collector goroutine: keep it quick.
type Observer func(*Tick)

// Result is what a run measured, warm-up excluded.
type Result struct {
	// Plan is the plan as run, defaults filled in.
	Plan plan.Plan
	// Trailer is the record of the run — its start, lengths, intended count, interruption,
	// back-offs, the generator's CPUs — as a result file's trailer keeps it and summary.New reads
	// it. Its StopReason is Stop's message.
	result.Trailer
	// Total is every measured request merged: per-endpoint counts and histograms, send lag and
	// connections.
	Total *result.Interval
	// Stop is why the run stopped early, other than an interruption: e.g. a Source ran out of data.
	Stop error
}

type options struct {
	tr        transport.Transport
	src       plan.Source
	verify    Verifier
	observers []Observer
	sleep     sleeper
	cut       <-chan struct{}
	halt      <-chan struct{}
	haltWhy   func() error
	files     fs.FS
	reqLog    RequestLog
	startAt   time.Time
	timeline  Timeline
	loop      sender // the run's requests go through it instead of tr
}

// sender sends all of a run's requests from a goroutine of its own, owning its connections (the
// HTTP/1.1 event loop), instead of the run's goroutine per connection through a Transport.
type sender interface {
	run(r *run)
	close()
}

// Verifier judges an answer that arrived: its status, and whatever else a user checks (a JSON-RPC
// error member, an id that does not match, a body that lacks a word). It returns result.OK for a
// success, else the class (Status, Check, Protocol) and a short message; for Check the message
// should be the check's name, so that failures are counted by name. Verify is called from many
// goroutines at once and must not keep r or out.
type Verifier interface {
	Verify(r *transport.Request, out *transport.Outcome) (result.Class, error)
}

// DetailVerifier is a Verifier that also says what happened to each call of a JSON-RPC batch and
// to each of the user's checks, so that the report gives figures per call and method even when one
// request carries calls of several methods, and each check's passes, failures and failing values
// (check.Verifier is one). VerifyDetail judges as Verify does when judge is true (the answer
// arrived and its transport counted it a success); with judge false it only lists the calls,
// unanswered. It appends to d's slices, and must not keep r, out or d.
type DetailVerifier interface {
	Verifier
	VerifyDetail(r *transport.Request, out *transport.Outcome, judge bool, d *result.Detail) (result.Class, error)
}

// StatusVerifier is the default Verifier: an answer is a success when its protocol says its status
// is (transport.Protocol.Success: over HTTP 2xx and 3xx, as wrk and vegeta count them; every
// WebSocket message); any other status is a failure of class Status.
type StatusVerifier struct{}

// Verify implements Verifier.
func (StatusVerifier) Verify(r *transport.Request, out *transport.Outcome) (result.Class, error) {
	if r.Protocol.Success(out.Status) {
		return result.OK, nil
	}
	return result.Status, nil
}

// Option configures Run.
type Option func(*options)

// WithTransport sends through tr instead of the transport the plan's URLs call for. Run does not
// close it.
func WithTransport(tr transport.Transport) Option { return func(o *options) { o.tr = tr } }

// WithSource takes requests from src instead of the plan's endpoints unchanged.
func WithSource(src plan.Source) Option { return func(o *options) { o.src = src } }

// WithVerifier judges answers with v instead of StatusVerifier. A transport built by Run keeps
// answer bodies (Outcome.Body) for it.
func WithVerifier(v Verifier) Option { return func(o *options) { o.verify = v } }

// WithObserver adds an observer of the run's ticks.
func WithObserver(f Observer) Option {
	return func(o *options) { o.observers = append(o.observers, f) }
}

// Timeline is the due times of the open model's arrivals. A plan's rate or stages make one
// (*schedule.Profile); WithTimeline gives another, such as recorded traffic replayed at its own pace.
type Timeline interface {
	schedule.Schedule
	// Count returns how many arrivals are due strictly before offset t.
	Count(t time.Duration) uint64
	// End returns the offset at which the arrivals end, 0 when it is not known.
	End() time.Duration
}

// WithTimeline sends the open model's arrivals at the due times of tl instead of at the plan's rate
// or stages, which then only describe the load in the report; the plan's request count (if any)
// still caps the arrivals. The plan must be of the open model without warm-up or segment.
func WithTimeline(tl Timeline) Option { return func(o *options) { o.timeline = tl } }

// WithCut makes closing cut end the run at once: no new request starts and the requests in flight
// are cut (class Canceled) without waiting out the grace period, as a second Ctrl-C asks. The
// Result is Interrupted.
func WithCut(cut <-chan struct{}) Option { return func(o *options) { o.cut = cut } }

// WithHalt makes closing halt end the run at once, as WithCut does, for a reason of the run's own
// (why's error, e.g. diff's "stopped at the first difference"), not a user's interruption: the
// Result is not Interrupted, its Stop is why's error.
func WithHalt(halt <-chan struct{}, why func() error) Option {
	return func(o *options) { o.halt, o.haltWhy = halt, why }
}

// WithFiles reads the files a plan names (target, data, setup and calls files) from fsys instead
// of the operating system's (plan.OSFiles). Only Run reads files; RunPrepared takes them read.
func WithFiles(fsys fs.FS) Option { return func(o *options) { o.files = fsys } }

// Run prepares p (plan.Prepare: reads its files, builds its requests and checks, validates it
// once), sends its setup phase if it has one (Setup), then runs it until its load is done or ctx
// is cancelled — exactly what `rpcbench run` runs for the same plan. It returns an error only when
// the run could not start (an invalid plan, a file that cannot be read, a setup that failed, a
// transport that cannot be made); everything that happens to requests is data in the Result. An
// interrupted run returns its Result with Interrupted set.
func Run(ctx context.Context, p plan.Plan, opts ...Option) (*Result, error) {
	o := newOptions(opts)
	prep, err := plan.Prepare(p, o.files)
	if err != nil {
		return nil, err
	}
	if prep.Setup != nil {
		if _, err := Setup(ctx, prep, opts...); err != nil {
			return nil, err
		}
	}
	return RunPrepared(ctx, prep, opts...)
}

// RunPrepared runs the measured part of a prepared plan, as Run does after its setup phase. The
// options WithSource and WithVerifier replace the prepared source and verifier.
func RunPrepared(ctx context.Context, prep *plan.Prepared, opts ...Option) (*Result, error) {
	o := newOptions(opts)
	p := prep.Plan
	origins := prep.Origins // where the requests go, when they are the prepared source's
	if o.src == nil {
		o.src = prep.Source
	} else {
		origins = nil
	}
	if o.verify == nil && prep.Verifier != nil {
		o.verify = prep.Verifier
	}
	keepBody := o.verify != nil
	if o.verify == nil {
		o.verify = StatusVerifier{}
	}
	if o.src == nil {
		src, err := plan.NewStaticSource(p.Endpoints)
		if err != nil {
			return nil, err
		}
		o.src = src
	}
	if o.tr == nil {
		o.loop = newLoopSender(p, origins, keepBody)
	}
	if o.loop != nil {
		defer o.loop.close()
	} else if o.tr == nil {
		tr, err := NewTransport(p, keepBody)
		if err != nil {
			return nil, fmt.Errorf("engine: %w", err)
		}
		defer tr.Close()
		o.tr = tr
	}
	prof, err := p.Load.Profile()
	if err != nil {
		return nil, err
	}
	if o.timeline != nil && (p.Load.Model != plan.Open || p.Load.Warmup > 0 || p.Load.Segment != "") {
		return nil, fmt.Errorf("engine: a timeline paces the open model's arrivals: the plan must be of the open model, without warm-up or segment")
	}
	r := newRun(p, prof, &o)
	return r.run(ctx), nil
}

func newOptions(opts []Option) options {
	o := options{sleep: preciseSleeper{}}
	for _, f := range opts {
		f(&o)
	}
	return o
}

// run is the state of one Run.
type run struct {
	p        plan.Plan
	o        *options
	prof     *schedule.Profile
	tl       Timeline          // the open model's due times: prof, or WithTimeline's
	sched    schedule.Schedule // open model only
	workers  int
	warmup   time.Duration
	warmN    uint64           // arrivals due in the warm-up (open model)
	limit    uint64           // measured requests to send; 0: no limit
	part     *schedule.Stripe // the execution segment's share; nil: the whole load
	rec      *result.Recorder
	start    time.Time
	reqCtx   context.Context // what transports see: cancelled only after the grace period
	stopping chan struct{}   // closed when no new request may start
	stopOnce sync.Once
	stopAt   atomic.Int64 // offset from start at which sending stopped, ns
	// exhausted is set when the schedule ran out of arrivals: every one of them was due.
	exhausted atomic.Bool
	inFlight  atomic.Int64
	warmSent  atomic.Uint64
	started   atomic.Uint64 // measured requests started (closed model tickets)
	lastSend  atomic.Int64  // offset of the last handoff to a sender (open model), ns
	// warmTickets numbers the closed model's warm-up requests.
	warmTickets atomic.Uint64
	stopErr     atomic.Pointer[error]
	// backoffs and backoffNs count the closed model's back-offs in the measured part.
	backoffs  atomic.Uint64
	backoffNs atomic.Int64
}

func newRun(p plan.Plan, prof *schedule.Profile, o *options) *run {
	r := &run{p: p, o: o, prof: prof, tl: prof, warmup: p.Load.Warmup, limit: p.Load.Requests, stopping: make(chan struct{})}
	if o.timeline != nil {
		r.tl = o.timeline
	}
	r.workers = p.Load.Connections
	if p.Load.Model == plan.Open {
		r.warmN = r.tl.Count(r.warmup)
		r.sched = r.tl
		if r.limit > 0 {
			r.sched = schedule.Limit{S: r.tl, N: r.warmN + r.limit}
		}
	} else if len(p.Load.Stages) > 0 {
		r.workers = 0
		for _, s := range p.Load.Stages {
			r.workers = max(r.workers, int(s.Target+0.999999))
		}
		if from := p.Load.WarmupFrom; from != nil {
			r.workers = max(r.workers, int(*from+0.999999))
		}
		r.workers = max(r.workers, 1)
	}
	r.applySegment()
	r.rec = result.NewRecorder(len(p.Endpoints), max(min(r.workers, runtime.GOMAXPROCS(0)), 1))
	return r
}

// stop closes stopping once: no new request starts after it.
func (r *run) stop() { r.stopAtOffset(math.MaxInt64) }

// stopAtOffset stops the run as of offset at, or as of now if that is earlier: arrivals due from
// then on were not intended.
func (r *run) stopAtOffset(at time.Duration) {
	r.stopOnce.Do(func() {
		close(r.stopping)
		// Now is read after the close: the pacer hands out an arrival only once it is due and
		// stopping is still open, so every arrival sent falls before the stop and is intended.
		// (Read before the close, a stop delayed between the two could leave out arrivals the
		// pacer sent meanwhile: more sent than intended.)
		r.stopAt.Store(int64(min(at, time.Since(r.start))))
	})
}

// fail stops the run because the request due at intended could not be made (e.g. unique data
// ran out): that arrival and the ones after it do not count as intended.
func (r *run) fail(err error, intended time.Time) {
	r.stopErr.CompareAndSwap(nil, &err)
	r.stopAtOffset(intended.Sub(r.start))
}

func (r *run) run(ctx context.Context) *Result {
	var cut context.CancelFunc
	r.reqCtx, cut = context.WithCancel(context.WithoutCancel(ctx))
	defer cut()
	res := &Result{Plan: r.p, Total: result.NewInterval(len(r.p.Endpoints))}
	if !r.begin(ctx, res) {
		res.MeasuredStart, res.Interrupted = r.o.startAt.Add(r.warmup), true
		return res
	}
	res.MeasuredStart, res.Procs = r.start.Add(r.warmup), runtime.GOMAXPROCS(0)
	if r.o.loop != nil {
		res.Sender = SenderLoop
	}

	var wg sync.WaitGroup
	if r.o.loop != nil {
		wg.Add(1)
		go func() { defer wg.Done(); r.o.loop.run(r) }()
	} else if r.p.Load.Model == plan.Open {
		tickets := make(chan ticket)
		wg.Add(r.workers)
		for w := range r.workers {
			go func() { defer wg.Done(); r.openWorker(w, tickets) }()
		}
		go r.pace(tickets)
	} else {
		wg.Add(r.workers)
		for w := range r.workers {
			go func() { defer wg.Done(); r.closedWorker(w) }()
		}
	}
	if end := r.prof.End(); end > 0 && r.p.Load.Model == plan.Closed {
		t := time.AfterFunc(end, r.stop)
		defer t.Stop()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	coll := newCollector(r, res)
	interrupted := r.wait(ctx, done, cut, coll)
	end := time.Since(r.start)
	coll.flush(end, true)

	res.Interrupted = interrupted
	if p := r.stopErr.Load(); p != nil {
		res.Stop = *p
		res.StopReason = res.Stop.Error()
	}
	res.Elapsed = max(end-r.warmup, 0)
	res.Sending = r.sendingWindow()
	res.SendSpan = max(res.Sending, time.Duration(r.lastSend.Load())-r.warmup)
	res.WarmupSent = r.warmSent.Load()
	res.Backoffs, res.BackoffTime = r.backoffs.Load(), time.Duration(r.backoffNs.Load())
	res.Intended = r.intended(r.sendingEnd())
	if r.p.Load.Model == plan.Closed {
		res.Intended = 0 // no schedule: what was intended is what was sent or failed before sending
		for _, c := range res.Total.Endpoints {
			res.Intended += c.Attempted()
		}
	}
	return res
}

// wait ticks the collector until the workers are done. After ctx is cancelled it stops new
// requests and gives those in flight the grace period before cutting them; once the cut channel
// (WithCut) is closed it cuts them at once.
func (r *run) wait(ctx context.Context, done <-chan struct{}, cut context.CancelFunc, coll *collector) (interrupted bool) {
	next := r.nextTick(0)
	tick := time.NewTimer(next)
	defer tick.Stop()
	var grace <-chan time.Time
	ctxDone, cutNow, haltNow := ctx.Done(), r.o.cut, r.o.halt
	for {
		select {
		case <-done:
			return interrupted
		case now := <-tick.C:
			elapsed := now.Sub(r.start)
			coll.flush(elapsed, false)
			next = r.nextTick(max(elapsed, next))
			tick.Reset(time.Until(r.start.Add(next)))
		case <-ctxDone:
			interrupted, ctxDone = true, nil
			r.stop()
			g := time.NewTimer(*r.p.Load.Grace) // normalised: set
			defer g.Stop()
			grace = g.C
		case <-grace:
			cut() // requests still in flight end as canceled
			grace = nil
		case <-cutNow: // no grace: cut them now
			interrupted, ctxDone, cutNow, grace = true, nil, nil, nil
			r.stop()
			cut()
		case <-haltNow: // the run's own stop: cut them now, not interrupted
			haltNow, grace = nil, nil
			err := r.o.haltWhy()
			r.stopErr.CompareAndSwap(nil, &err)
			r.stop()
			cut()
		}
	}
}

// nextTick returns the offset of the first tick after offset t. Ticks fall every interval during
// the warm-up and, from the measured start on, at whole intervals of measured time, so that the
// measured intervals are [0, I), [I, 2I), … and none straddles the end of the warm-up.
func (r *run) nextTick(t time.Duration) time.Duration {
	iv := r.p.Load.Interval
	if t < r.warmup {
		if k := (t/iv + 1) * iv; k < r.warmup {
			return k
		}
		return r.warmup + iv
	}
	return r.warmup + ((t-r.warmup)/iv+1)*iv
}

// sendingWindow returns how long the measured part sent for. A schedule that ran out sent for its
// whole planned length: for a count-limited one, up to when the next arrival would have been due.
func (r *run) sendingWindow() time.Duration {
	end := time.Duration(r.stopAt.Load())
	if r.exhausted.Load() {
		if e := r.tl.End(); e > 0 {
			end = e
		} else if next, ok := r.tl.At(r.warmN + r.limit); ok {
			end = next
		}
	}
	return max(end-r.warmup, 0)
}

// sendingEnd returns the offset up to which arrivals fell due: the stop, or for ever when the
// schedule ran out.
func (r *run) sendingEnd() time.Duration {
	if r.exhausted.Load() {
		return math.MaxInt64
	}
	if s := r.stopAt.Load(); s > 0 {
		return time.Duration(s)
	}
	return math.MaxInt64
}

// intended returns the measured arrivals due before offset t (open model).
func (r *run) intended(t time.Duration) uint64 {
	if r.sched == nil {
		return 0
	}
	n := r.tl.Count(t)
	if r.limit > 0 {
		n = min(n, r.warmN+r.limit)
	}
	return r.part.Count(n) - r.part.Count(min(n, r.warmN))
}

// maxLateSends is how long after the end of its schedule an open-model run at most still sends
// arrivals that fell due before the end (less when the request timeout is shorter): a generator
// that keeps up sends its last one within microseconds, a busy one (a loaded machine, the race
// detector) some tens of milliseconds late; one further behind has fallen behind — every sender
// stuck on a server that does not answer, say — and the rest are counted as never sent.
const maxLateSends = time.Second

// lateSends returns how long after the end of its schedule the run still sends overdue arrivals.
func (r *run) lateSends() time.Duration {
	if t := r.p.HTTP.Timeout; t > 0 {
		return min(maxLateSends, t)
	}
	return maxLateSends
}

// plannedEnd returns the offset at which the open model's schedule ends, warm-up included: its
// planned length, or for a count-limited run when the next arrival after the last would be due.
// ok is false for a schedule without end.
func (r *run) plannedEnd() (time.Duration, bool) {
	if e := r.tl.End(); e > 0 {
		return e, true
	}
	if r.limit > 0 {
		return r.tl.At(r.warmN + r.limit)
	}
	return 0, false
}

// pace hands out arrival numbers at their due times until the schedule ends or the run stops. The
// planned end bounds it: arrivals still waiting for a free sender lateSends() after it are never
// sent, so a run ends at its planned length (plus the time to wait for answers in flight) however
// late its senders are.
func (r *run) pace(tickets chan<- ticket) {
	defer close(tickets)
	defer r.stop()
	pacer := r.o.sleep.begin()
	defer pacer.end()
	var late <-chan time.Time
	if end, ok := r.plannedEnd(); ok {
		t := time.NewTimer(time.Until(r.start.Add(end + r.lateSends())))
		defer t.Stop()
		late = t.C
		defer func() {
			if !r.exhausted.Load() && time.Since(r.start) >= end {
				r.stopAtOffset(end) // before the deferred stop: what was due up to the end was intended
			}
		}()
	}
	slack := r.p.Load.SendSlack
	for i := uint64(0); ; i++ {
		due, ok := r.sched.At(i)
		if !ok {
			r.exhausted.Store(true)
			return
		}
		// With a slack, an arrival not yet due wakes the pacer slack late, and the arrivals due by
		// then go out in the same wake-up.
		if at := r.start.Add(due); slack == 0 || time.Now().Before(at) {
			if !pacer.sleepUntil(at.Add(slack), r.stopping) {
				return
			}
		}
		select {
		case tickets <- ticket{r.part.Global(i), due}: // data and endpoints by the global number
			r.lastSend.Store(int64(time.Since(r.start))) // a sender took it: it goes out now
		case <-r.stopping:
			return
		case <-late:
			return
		}
	}
}

// worker holds what one sender reuses from request to request.
type worker struct {
	r   *run
	id  int
	req transport.Request
	out transport.Outcome
	ev  result.Event
	// detail is the buffer of the calls of a JSON-RPC batch and the checks' outcomes, reused
	// request after request.
	detail result.Detail
	// log and logDone are the sender's part of the run's RequestLog; nil without one.
	log     func(*Request)
	logDone func()
	logged  Request // reused for each call of log
}

// ticket is one arrival handed from the pacer to a sender.
type ticket struct {
	i   uint64
	due time.Duration
}

func (r *run) openWorker(id int, tickets <-chan ticket) {
	w := r.newWorker(id)
	defer w.close()
	for t := range tickets {
		w.send(t.i, r.start.Add(t.due), true)
	}
}

func (r *run) closedWorker(id int) {
	w := r.newWorker(id)
	defer w.close()
	staged := len(r.p.Load.Stages) > 0 || r.p.Load.WarmupFrom != nil // the level moves
	level := float64(r.part.Global(uint64(id)))                      // the connection's number in the whole load
	var wake *time.Timer
	var back backoff
	defer back.close()
	for !stopped(r.stopping) {
		now := time.Now()
		if staged && level >= r.prof.Level(now.Sub(r.start)) {
			// not this connection's turn: sleep until the level rises past it, if it ever does
			at, ok := r.prof.Above(level, now.Sub(r.start))
			if !ok {
				return
			}
			if wake == nil {
				wake = time.NewTimer(time.Until(r.start.Add(at)))
				defer wake.Stop()
			} else {
				wake.Reset(time.Until(r.start.Add(at)))
			}
			select {
			case <-r.stopping:
				return
			case <-wake.C:
			}
			continue
		}
		var i uint64
		if now.Sub(r.start) < r.warmup {
			i = r.part.Global(r.warmTickets.Add(1) - 1) // warm-up requests take the endpoints in turn too
		} else {
			i = r.started.Add(1) - 1
			if r.limit > 0 && i >= r.limit {
				r.stop()
				return
			}
			i = r.part.Global(i)
		}
		if !w.send(i, now, false) {
			back.reset()
			continue
		}
		measured := time.Since(r.start) >= r.warmup
		waited, full := back.wait(r.stopping) // no connection could be made: do not hammer
		if waited > 0 && measured {
			r.backoffs.Add(1)
			r.backoffNs.Add(int64(waited))
		}
		if !full {
			return
		}
	}
}

// send makes one request due at intended and records it. It reports whether the request failed
// because no connection could be made for it.
func (w *worker) send(i uint64, intended time.Time, scheduled bool) (connFailed bool) {
	r := w.r
	if err := r.o.src.Fill(i, &w.req); err != nil {
		r.fail(err, intended)
		return false
	}
	w.req.Protocol = r.p.Protocol
	r.inFlight.Add(1)
	w.out.Reset()
	// A request of the closed loop is due when its worker takes it, a clock read just made: that
	// read dates the start too (one a request fewer). A scheduled one starts late by its send lag.
	begin := intended
	if scheduled {
		begin = time.Now()
	}
	r.o.tr.Do(r.reqCtx, &w.req, &w.out)
	done := time.Now()
	r.inFlight.Add(-1)
	return w.record(i, &w.req, &w.out, intended, begin, done, scheduled)
}

// record records request i (req, whose answer or failure is out), due at intended, begun at begin
// (its send lag's end) and ended at done. It reports whether the request failed because no
// connection could be made for it.
func (w *worker) record(i uint64, req *transport.Request, out *transport.Outcome, intended, begin, done time.Time, scheduled bool) (connFailed bool) {
	r := w.r
	ev := &w.ev
	// A request that failed without a byte of it written (nothing answers, the name does not
	// resolve) was never sent: it counts as failed, with no service time. A transport that answered
	// without saying when it sent is taken to have sent at once.
	unsent := out.Sent.IsZero() && !out.Answered && out.Class != result.OK
	connFailed = out.Opened && out.Conn.Failed ||
		unsent && (out.Class == result.Refused || out.Class == result.DNS || out.Class == result.TLS)
	if intended.Sub(r.start) < r.warmup {
		r.warmSent.Add(1)
		return connFailed
	}
	sent := out.Sent
	if sent.IsZero() {
		sent = begin
	}
	*ev = result.Event{
		Endpoint:  req.Endpoint,
		Latency:   done.Sub(intended),
		Service:   done.Sub(sent),
		Status:    out.Status,
		Class:     out.Class,
		Err:       out.Err,
		Answered:  out.Answered,
		BytesIn:   out.BytesIn,
		BytesOut:  out.BytesOut,
		MsgsIn:    out.MsgsIn,
		MsgsOut:   out.MsgsOut,
		Retried:   out.Retried,
		Lag:       begin.Sub(intended),
		Scheduled: scheduled,
		Unsent:    unsent,
	}
	ev.MsgLatencies, ev.MsgGaps = out.MsgLatencies, out.MsgGaps
	ev.RetriedGoAway, ev.Packets = out.RetriedGoAway, out.Packets
	if !out.FirstByte.IsZero() {
		ev.TTFB = out.FirstByte.Sub(sent)
	}
	if out.Opened {
		ev.Conn = &out.Conn
	}
	judge := ev.Class == result.OK && out.Answered
	if dv, ok := r.o.verify.(DetailVerifier); ok {
		w.detail.Reset()
		cl, err := dv.VerifyDetail(req, out, judge, &w.detail)
		if judge {
			ev.Class, ev.Err = cl, err
		}
		if len(w.detail.Calls) > 0 {
			ev.Calls = w.detail.Calls
		}
		if len(w.detail.Checks) > 0 {
			ev.Checks = w.detail.Checks
		}
		if len(w.detail.Metrics) > 0 {
			ev.Metrics = w.detail.Metrics
		}
	} else if judge {
		ev.Class, ev.Err = r.o.verify.Verify(req, out)
	}
	if ev.Class == result.Canceled && r.reqCtx.Err() == nil {
		ev.Class = result.Other // a transport's own cancellation, not the run's
	}
	r.rec.Record(w.id, ev)
	if w.log != nil {
		w.logRequest(i, intended, sent, done, ev)
	}
	return connFailed
}

// SenderLoop is Result.Sender when HTTP/1.1's event loop sent the run's requests.
const SenderLoop = "event loop"

// ErrNoTransport is returned by NewTransport for a plan whose protocol no transport serves.
var ErrNoTransport = transport.ErrNoTransport

// WithSendLagP99 appends to *dst the p99 send lag of each measured interval, in milliseconds, as
// the run goes (on the collector goroutine: read *dst after Run returns). A lag that keeps growing
// says the generator could not keep its schedule.
func WithSendLagP99(dst *[]float64) Option {
	return WithObserver(func(t *Tick) {
		iv := t.Interval
		if t.Warmup || iv == nil || iv.End <= iv.Start {
			return
		}
		*dst = append(*dst, float64(iv.SendLag.ValueAtQuantile(99))/1000)
	})
}
