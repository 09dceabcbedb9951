package grpcx

import (
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/transport"
	"github.com/rpcbench/rpcbench/transport/h2"
	"github.com/rpcbench/rpcbench/transport/rawconn"
)

// Defaults for zero Options fields.
const (
	DefaultTimeout        = 30 * time.Second
	DefaultConnectTimeout = 10 * time.Second
	// DefaultSpread is the Spread the open model uses: calls in flight per connection before
	// another connection opens.
	DefaultSpread = 32
	// DefaultMaxBodies is how many distinct request bodies a method keeps marshalled.
	DefaultMaxBodies = 64
	// frameHeader is the size of a gRPC message's length prefix.
	frameHeader = 5
	// MaxAnswer is the largest answer grpc-go's calls accept, in bytes: far above grpc-go's
	// default of 4 MiB, so that a service's large answers are measured rather than refused by the
	// client. The own client's calls count an answer of any length.
	MaxAnswer = 256 << 20
	// DefaultMaxBody is the MaxBody of a zero Options: the largest answer kept for checks.
	DefaultMaxBody = 16 << 20
)

// Options configure a Transport. The zero value is ready: one connection, default time limits,
// methods found by server reflection.
type Options struct {
	// Conns is the number of HTTP/2 connections per target; calls are spread over them in turn.
	// One connection caps throughput (one writer, one flow-control window): give several for
	// heavy load. Default 1.
	Conns int
	// Spread, when above 0, makes Conns a cap: a call goes to the next open connection unless it
	// already carries Spread calls, and another connection opens only then. 0 opens all Conns
	// connections, each on first use.
	Spread int
	// Timeout bounds one whole call: the wait for a connection, its set-up and the answer.
	// 0 means DefaultTimeout. It is also the call's gRPC deadline (the earlier of it and the
	// context's).
	Timeout time.Duration
	// ConnectTimeout bounds a connection's set-up: dial, TLS and HTTP/2 handshake. 0 means
	// DefaultConnectTimeout.
	ConnectTimeout time.Duration
	// InsecureSkipVerify skips the certificate check of grpcs servers.
	InsecureSkipVerify bool
	// TLS is the base of grpcs connections' TLS settings (roots, client certificate, server
	// name); nil: the system's roots and the URL's host. InsecureSkipVerify applies either way.
	TLS *tls.Config
	// KeepBody puts each answer, decoded to JSON (protojson), in Outcome.Body. Without it an
	// answer is counted, not copied.
	KeepBody bool
	// MaxBody bounds an answer kept (KeepBody), in bytes: a longer one fails with class too-large
	// (ErrAnswerTooLarge), its length told by its prefix; grpc-go's calls refuse it before reading
	// it, the own client's stop reading it past the bound (a DATA frame at most). 0 means
	// DefaultMaxBody; at most MaxAnswer.
	MaxBody int64
	// Resolver finds the methods' descriptors; nil asks each target's server reflection.
	Resolver *Resolver
	// MaxBodies is how many distinct bodies each method keeps marshalled; a body beyond them is
	// parsed on every call. 0 means DefaultMaxBodies.
	MaxBodies int
	// StreamRate, above 0, sends the messages of a client- or bidi-streaming call on a schedule:
	// StreamRate per second, message i due i/StreamRate after the call's start. A bidi call whose
	// server answers each message in turn then reports each answer's latency from its message's
	// due time (Outcome.MsgLatencies). 0 sends them as fast as the stream takes them.
	StreamRate float64
	// StreamCount, above 0, is how many messages each client- or bidi-streaming call sends, the
	// body's messages in turn (again from the first when there are fewer), and how many answers a
	// server-streaming call takes before it ends the stream, counted answered (ghz's
	// --stream-call-count). 0 sends the body's messages once and takes every answer.
	StreamCount int
	// StreamDuration, above 0, is how long a client- or bidi-streaming call sends its messages
	// before it closes its side, and how long a server-streaming call receives before it ends the
	// stream, counted answered (ghz's --stream-call-duration). 0: no bound but the call's Timeout.
	StreamDuration time.Duration
	// Client is what makes the calls: ClientAuto ("" too) makes unary calls on rpcbench's own
	// HTTP/2 client and the rest on grpc-go; ClientGRPCGo makes them all on grpc-go.
	Client string
}

// ErrClosed is the failure of a call made after Close.
var ErrClosed = errors.New("grpcx: transport closed")

// ErrConnect wraps Prepare's failure to connect to the server (transport.ErrConnect).
var ErrConnect = transport.ErrConnect

// codeErr holds the failure message of each gRPC code, made once: "grpc NotFound".
var codeErr = func() (e [17]error) {
	for i := range e {
		e[i] = result.Exact("grpc " + codes.Code(i).String())
	}
	return e
}()

// CodeError returns the failure message of a gRPC status code, such as "grpc NotFound": short and
// stable, so failures are counted by code.
func CodeError(c codes.Code) error {
	if int(c) < len(codeErr) {
		return codeErr[c]
	}
	return result.Exact("grpc " + c.String())
}

// Transport makes unary gRPC calls. Make it with New; it is safe for concurrent use. A request's
// Scheme (grpc or grpcs) and Host name the server, its Path the method ("/package.Service/Method"),
// its Body the request message as JSON and its Header the call's metadata.
type Transport struct {
	opts     Options
	callOpts []grpc.CallOption
	mu       sync.RWMutex
	targets  map[targetKey]*target
	closed   atomic.Bool
	frames   sync.Pool
	calls    sync.Pool          // of *h2call
	fixed    []transport.Header // gRPC's own header fields of a call on the own client
	// statusErrs are the failure messages made of the servers' status messages (statusError).
	statusMu   sync.RWMutex
	statusErrs map[statusKey]error
}

type targetKey struct{ scheme, host string }

// target is one server: its connections and the methods resolved on it.
type target struct {
	key      targetKey
	slots    []slot
	next     atomic.Uint64
	opened   atomic.Int64
	resolver *Resolver
	mu       sync.RWMutex
	methods  map[string]*method
	// prep is the connection Prepare opened: it asks reflection, and carries no call, so that the
	// run's connections are all opened, and reported, by its calls.
	prep slot
}

// slot is one connection.
type slot struct {
	// lock guards opening cc: holding it is having a value in the channel (of capacity 1).
	lock     chan struct{}
	cc       atomic.Pointer[grpc.ClientConn]
	h2       atomic.Pointer[h2.Transport] // the own client's connection, for unary calls
	inflight atomic.Int64
	errMu    sync.Mutex
	dialErr  error // the last dial's failure
	connect  time.Duration
	// maxStreams is the SETTINGS_MAX_CONCURRENT_STREAMS of the server of the connection dialled
	// last (see watchConn); -1 until it says one.
	maxStreams atomic.Int64
	// certAsked: the server of the connection dialled last asked for a client certificate in its
	// TLS handshake, and none was given. TLS 1.3 sends the refusal after the handshake: the
	// client may meet the closed connection on a write, before it reads the alert.
	certAsked atomic.Bool
	hasCert   atomic.Bool // the own client's TLS settings give a client certificate
}

// method is one resolved method and its request bodies, marshalled: bodies for a unary method,
// streamBodies (each body's messages) for a streaming one.
type method struct {
	path         string
	wirePath     []byte // path, for the own client's requests
	desc         protoreflect.MethodDescriptor
	err          error
	mu           sync.RWMutex
	bodies       map[string][]byte
	streamBodies map[string][][]byte
}

// New returns a Transport with opts.
func New(opts Options) *Transport {
	if opts.Conns <= 0 {
		opts.Conns = 1
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.ConnectTimeout <= 0 {
		opts.ConnectTimeout = DefaultConnectTimeout
	}
	if opts.MaxBodies <= 0 {
		opts.MaxBodies = DefaultMaxBodies
	}
	if opts.MaxBody <= 0 {
		opts.MaxBody = DefaultMaxBody
	}
	opts.MaxBody = min(opts.MaxBody, MaxAnswer)
	t := &Transport{
		opts:       opts,
		callOpts:   []grpc.CallOption{grpc.ForceCodecV2(rawCodec{})},
		targets:    map[targetKey]*target{},
		statusErrs: map[statusKey]error{},
	}
	if opts.KeepBody {
		t.callOpts = append(t.callOpts, grpc.MaxCallRecvMsgSize(int(opts.MaxBody)))
	}
	t.frames.New = func() any { return new(frame) }
	t.calls.New = func() any { return new(h2call) }
	t.fixed = fixedHeaders(opts.Timeout)
	return t
}

// Close closes every connection.
func (t *Transport) Close() error {
	if t.closed.Swap(true) {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	var errs []error
	for _, tg := range t.targets {
		for i := range tg.slots {
			if cc := tg.slots[i].cc.Load(); cc != nil {
				errs = append(errs, cc.Close())
			}
			if ht := tg.slots[i].h2.Load(); ht != nil {
				errs = append(errs, ht.Close())
			}
		}
		if cc := tg.prep.cc.Load(); cc != nil {
			errs = append(errs, cc.Close())
		}
	}
	return errors.Join(errs...)
}

// Do makes the call r describes.
func (t *Transport) Do(ctx context.Context, r *transport.Request, out *transport.Outcome) {
	if t.closed.Load() {
		out.Class, out.Err = result.Other, ErrClosed
		return
	}
	tg, err := t.target(r)
	if err != nil {
		out.Class, out.Err = result.Other, err
		return
	}
	if t.ownClient() {
		m := t.resolved(ctx, tg, r, out)
		switch {
		case m == nil:
			return
		case m.err != nil:
			out.Class, out.Err = result.Other, m.err
			return
		case !m.streams():
			t.callH2(ctx, tg, m, r, out)
			return
		}
	}
	callCtx, cancel := context.WithTimeout(ctx, t.opts.Timeout)
	defer cancel()
	s, cc, err := tg.conn(callCtx, t, out)
	if err != nil {
		out.Class, out.Err = classify(ctx, callCtx, err), err
		return
	}
	defer s.inflight.Add(-1)
	m := tg.method(callCtx, cc, r.Path)
	if m.err != nil {
		out.Class, out.Err = result.Other, m.err
		return
	}
	if m.streams() {
		t.stream(ctx, callCtx, cancel, s, cc, m, r, out)
		return
	}
	req := t.frames.Get().(*frame)
	defer t.putFrame(req, true)
	if req.b, req.scratch, err = m.body(r.Body, req.scratch[:0], t.opts.MaxBodies); err != nil {
		out.Class, out.Err = result.Other, err
		return
	}
	req.b = req.b[frameHeader:]
	if len(r.Header) > 0 {
		callCtx = withMetadata(callCtx, r.Header)
	}
	res := t.answerFrame(callCtx)
	defer t.putFrame(res, false)
	out.BytesOut = int64(len(req.b) + frameHeader)
	out.Sent = time.Now()
	err = cc.Invoke(callCtx, m.path, req, res, t.callOpts...)
	t.finish(ctx, s, m, res, err, out)
}

// finish fills out from the end of a unary call on s: err is Invoke's, res holds the answer.
func (t *Transport) finish(ctx context.Context, s *slot, m *method, res *frame, err error, out *transport.Outcome) {
	if err == nil && res.late {
		err = errLate
	}
	if err == nil {
		out.Answered = true
		out.BytesIn = int64(res.n + frameHeader)
		if t.opts.KeepBody {
			if out.Body, err = m.decode(res.b, out.Body[:0]); err != nil {
				out.Class, out.Err = result.Protocol, err
			}
		}
		return
	}
	t.fail(ctx, s, err, out)
}

// Prepare does, before a run, what the first call of r would: it opens a connection to r's server,
// finds r's method and turns r's body into the request message. Its error says what is wrong (an
// unknown method, listing those there are; a body that is not the method's input in JSON; a server
// that refuses) so that a run can be refused before it starts. The connection is not one of the
// calls' (they open their own, and report their set-up): it stays open to ask the server's
// reflection for methods met later, until Close. r's Body should be a static one; a templated body
// is checked per call.
func (t *Transport) Prepare(ctx context.Context, r *transport.Request) error {
	if t.closed.Load() {
		return ErrClosed
	}
	// not a measured call: the connection's set-up has its own limit, the asking a call's
	if budget := t.opts.ConnectTimeout + t.opts.Timeout; budget > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, budget)
		defer cancel()
	}
	tg, err := t.target(r)
	if err != nil {
		return err
	}
	var out transport.Outcome
	cc := tg.prep.cc.Load()
	if cc == nil {
		if cc, err = tg.prep.open(ctx, t, tg.key, &out); err != nil {
			return fmt.Errorf("grpcx: %s://%s: %w: %w", r.Scheme, r.Host, ErrConnect, err)
		}
	}
	m := tg.method(ctx, cc, r.Path)
	if m.err != nil && tg.prep.noStreams() { // reflection waited for a stream that could not open
		return fmt.Errorf("grpcx: %s://%s: %w: %w", r.Scheme, r.Host, ErrConnect, ErrNoStreams)
	}
	if m.err != nil {
		return m.err
	}
	if m.streams() {
		_, err = m.messages(r.Body, t.opts.MaxBodies)
		return err
	}
	_, _, err = m.body(r.Body, nil, t.opts.MaxBodies)
	return err
}

// answerFrame returns a frame to read the answers of a call with ctx into: one that only counts
// them unless they are kept, and then stops copying one at ctx's deadline.
func (t *Transport) answerFrame(ctx context.Context) *frame {
	f := t.frames.Get().(*frame)
	f.drop, f.n, f.late, f.deadline = !t.opts.KeepBody, 0, false, time.Time{}
	if t.opts.KeepBody {
		f.deadline, _ = ctx.Deadline()
	}
	return f
}

// errLate is the failure of a call whose answer, kept, was still being copied at its deadline.
var errLate = status.Error(codes.DeadlineExceeded, "grpcx: the answer was still being copied at the call's deadline")

// putFrame recycles f. A request's b points to a marshalled body of a method or into scratch: it
// is dropped, lest the frame's next use, reading an answer into b, write over a kept body.
func (t *Transport) putFrame(f *frame, request bool) {
	if request || cap(f.b) > 1<<20 { // and keep no huge buffer for the next call
		f.b = nil
	}
	if cap(f.scratch) > 1<<20 {
		f.scratch = nil
	}
	f.b = f.b[:0]
	t.frames.Put(f)
}

// fail fills out from the error of a call on s's connection.
func (t *Transport) fail(ctx context.Context, s *slot, err error, out *transport.Outcome) {
	st, ok := status.FromError(err)
	if !ok {
		out.Class, out.Err = classify(ctx, ctx, err), err
		return
	}
	c := st.Code()
	if s.noStreams() && (c == codes.DeadlineExceeded || ctx.Err() != nil) {
		// No stream could open: the call waited for one until its end, and was never sent.
		out.Sent, out.BytesOut = time.Time{}, 0
		out.Class, out.Err = result.Timeout, ErrNoStreams
		if ctx.Err() != nil {
			out.Class, out.Err = transport.Classify(ctx.Err()), ctx.Err()
		}
		return
	}
	out.Status = int(c)
	switch {
	case ctx.Err() != nil: // the run ended, not the call
		out.Class, out.Err = transport.Classify(ctx.Err()), ctx.Err()
	case c == codes.DeadlineExceeded:
		out.Class, out.Err = result.Timeout, CodeError(c)
	case c == codes.ResourceExhausted && t.opts.KeepBody && t.ownLimit(st.Message()):
		// grpc-go's own refusal of an answer over MaxCallRecvMsgSize, read no further (a server
		// refusing a request over its own limit says the same words, with its own max)
		out.Status = 0
		out.Class, out.Err = result.TooLarge, t.tooLarge(st.Message())
	case c == codes.Unavailable && strings.Contains(st.Message(), "connection refused"):
		out.Class, out.Err = result.Refused, err
		out.Sent = time.Time{} // the call never left: there was no connection to send it on
	case c == codes.Unavailable && lostConnection(st.Message()):
		out.Class, out.Err = result.Reset, err
	default:
		out.Answered = true
		out.Class, out.Err = result.Status, t.statusError(c, st.Message())
	}
}

// maxMessage bounds the sample of a server's status message kept in a failure's message, in bytes.
const maxMessage = 80

// maxStatusErrs bounds the failure messages a Transport keeps made, so that a server failing every
// call alike costs no allocation per call, whatever number of distinct messages it sends.
const maxStatusErrs = 64

type statusKey struct {
	c   codes.Code
	msg string
}

// statusError returns the failure message of a status from the server: its code and a sample of
// its message, numbers blanked out (result.Normalize) and cut at maxMessage bytes, so that failures
// are counted by code and cause: "grpc NotFound: items: no item with id "item-N"".
func (t *Transport) statusError(c codes.Code, msg string) error {
	if msg == "" {
		return CodeError(c)
	}
	k := statusKey{c, msg}
	t.statusMu.RLock()
	e, ok := t.statusErrs[k]
	t.statusMu.RUnlock()
	if ok {
		return e
	}
	sample := result.Normalize(strings.Join(strings.Fields(msg), " "))
	if len(sample) > maxMessage {
		cut := maxMessage
		for cut > 0 && !utf8.RuneStart(sample[cut]) {
			cut--
		}
		sample = sample[:cut] + "…"
	}
	e = result.Exact(CodeError(c).Error() + ": " + sample)
	t.statusMu.Lock()
	if len(t.statusErrs) < maxStatusErrs {
		k.msg = strings.Clone(msg) // msg may be the caller's buffer
		t.statusErrs[k] = e
	}
	t.statusMu.Unlock()
	return e
}

// ErrAnswerTooLarge is the failure of an answer to be kept that is longer than Options.MaxBody.
var ErrAnswerTooLarge = errors.New("grpcx: answer larger than the limit on kept answers")

// tooLargePrefix begins grpc-go's message for an answer over the call's MaxCallRecvMsgSize:
// "grpc: received message larger than max (LEN vs. MAX)".
const tooLargePrefix = "grpc: received message larger than max ("

// ownLimit reports whether msg is grpc-go's refusal of a message over this transport's limit on
// kept answers: "grpc: received message larger than max (LEN vs. MAX)" with MAX = MaxBody.
func (t *Transport) ownLimit(msg string) bool {
	rest, ok := strings.CutPrefix(msg, tooLargePrefix)
	if !ok {
		return false
	}
	_, max, ok := strings.Cut(rest, " vs. ")
	return ok && strings.TrimSuffix(max, ")") == strconv.FormatInt(int64(t.opts.MaxBody), 10)
}

// tooLarge is the failure of an answer over MaxBody, from grpc-go's message msg, which gives its
// length.
func (t *Transport) tooLarge(msg string) error {
	n, _, _ := strings.Cut(strings.TrimPrefix(msg, tooLargePrefix), " ")
	if _, err := strconv.ParseUint(n, 10, 64); err != nil {
		return fmt.Errorf("%w (%d bytes)", ErrAnswerTooLarge, t.opts.MaxBody)
	}
	return fmt.Errorf("%w (%d bytes): an answer of %s bytes", ErrAnswerTooLarge, t.opts.MaxBody, n)
}

// lostConnection reports whether the message of an Unavailable status is grpc-go's own, for a
// connection lost under the call, rather than one a server sent: grpc-go gives no other sign.
func lostConnection(msg string) bool {
	for _, p := range [...]string{
		"error reading from server",
		"closing transport due to",
		"transport is closing",
		"connection error",
		"transport: ",
		"keepalive ping failed",
		"closing connection since",
	} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

// classify returns the class of a failure before the call: the run's end, the call's time limit,
// or the error's own class.
func classify(ctx, callCtx context.Context, err error) result.Class {
	switch {
	case ctx.Err() != nil:
		return transport.Classify(ctx.Err())
	case callCtx.Err() != nil:
		return result.Timeout
	case errors.Is(err, ErrServerTLS):
		return result.TLS
	}
	return transport.Classify(err)
}

// withMetadata adds the request's header lines to ctx as outgoing metadata (names lower-cased, as
// gRPC wants them).
func withMetadata(ctx context.Context, hs []transport.Header) context.Context {
	md := make(metadata.MD, len(hs))
	for _, h := range hs {
		k := strings.ToLower(h.Name)
		md[k] = append(md[k], h.Value)
	}
	return metadata.NewOutgoingContext(ctx, md)
}

// target returns the server of r, made on first use.
func (t *Transport) target(r *transport.Request) (*target, error) {
	k := targetKey{r.Scheme, r.Host}
	t.mu.RLock()
	tg := t.targets[k]
	t.mu.RUnlock()
	if tg != nil {
		return tg, nil
	}
	switch strings.ToLower(r.Scheme) {
	case "grpc", "grpcs":
	default:
		return nil, fmt.Errorf("grpcx: scheme %q: want grpc or grpcs", r.Scheme)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if tg = t.targets[k]; tg == nil {
		tg = &target{key: k, slots: make([]slot, t.opts.Conns), resolver: t.opts.Resolver, methods: map[string]*method{}}
		for i := range tg.slots {
			tg.slots[i].lock = make(chan struct{}, 1)
		}
		tg.prep.lock = make(chan struct{}, 1)
		t.targets[k] = tg
	}
	return tg, nil
}

// conn picks a connection for one call and counts the call on it; it opens the connection when
// it is not open yet, reporting the set-up in out.
func (tg *target) conn(ctx context.Context, t *Transport, out *transport.Outcome) (*slot, *grpc.ClientConn, error) {
	s := tg.pick(t.opts.Spread)
	s.inflight.Add(1)
	cc := s.cc.Load()
	if cc == nil {
		var err error
		if cc, err = s.open(ctx, t, tg.key, out); err != nil {
			s.inflight.Add(-1)
			return nil, nil, err
		}
	}
	if cc.GetState() == connectivity.TransientFailure {
		// gRPC is reconnecting after a failure: the call would fail at once, unsent.
		s.inflight.Add(-1)
		s.errMu.Lock()
		err := s.dialErr
		s.errMu.Unlock()
		if err == nil {
			err = status.Error(codes.Unavailable, "connection in transient failure")
		}
		return nil, nil, err
	}
	return s, cc, nil
}

// pick returns the slot for the next call: the next in turn, or with spread the next open one
// that is not full, opening another only when all are.
func (tg *target) pick(spread int) *slot {
	n := uint64(len(tg.slots))
	if spread <= 0 {
		return &tg.slots[tg.next.Add(1)%n]
	}
	open := uint64(tg.opened.Load())
	if open > 0 {
		s := &tg.slots[tg.next.Add(1)%open]
		if s.inflight.Load() < int64(spread) {
			return s
		}
	}
	for open < n {
		if tg.opened.CompareAndSwap(int64(open), int64(open+1)) {
			return &tg.slots[open]
		}
		open = uint64(tg.opened.Load())
	}
	return &tg.slots[tg.next.Add(1)%n]
}

// open dials s's connection and waits until it is ready, within ctx.
func (s *slot) open(ctx context.Context, t *Transport, k targetKey, out *transport.Outcome) (*grpc.ClientConn, error) {
	select {
	case s.lock <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-s.lock }()
	if cc := s.cc.Load(); cc != nil {
		return cc, nil
	}
	start := time.Now()
	cc, err := s.dial(t, k)
	if err != nil {
		return nil, err
	}
	cctx, cancel := context.WithTimeout(ctx, t.opts.ConnectTimeout)
	defer cancel()
	err = waitReady(cctx, cc)
	out.Opened = true
	s.errMu.Lock()
	out.Conn.Connect = s.connect
	s.errMu.Unlock()
	if k.scheme == "grpcs" {
		out.Conn.TLS = time.Since(start) - out.Conn.Connect
	}
	if err != nil {
		out.Conn.Failed = true
		cc.Close()
		s.errMu.Lock()
		dialErr := s.dialErr
		s.errMu.Unlock()
		switch {
		case ctx.Err() != nil:
		case strings.EqualFold(k.scheme, "grpc") && errors.Is(dialErr, errBeforeSettings) && speaksTLS(ctx, k.host, t.opts.ConnectTimeout):
			// accepted, then closed before any byte: as a TLS server closes on a plaintext client
			err = ErrServerTLS
			s.setErr(err)
		case dialErr != nil:
			err = dialErr
		}
		return nil, err
	}
	s.cc.Store(cc)
	if t.closed.Load() { // Close ran meanwhile and did not see cc
		cc.Close()
		return nil, ErrClosed
	}
	return cc, nil
}

// dial makes the connection of s, which gRPC dials through s so that the time and failure of the
// dial are known.
func (s *slot) dial(t *Transport, k targetKey) (*grpc.ClientConn, error) {
	creds := recordingCreds{insecure.NewCredentials(), s, false, false}
	if strings.EqualFold(k.scheme, "grpcs") {
		c, hasCert := s.tlsConfig(t, k)
		creds = recordingCreds{credentials.NewTLS(c), s, true, hasCert}
	}
	d := net.Dialer{Timeout: t.opts.ConnectTimeout}
	dialer := func(ctx context.Context, addr string) (net.Conn, error) {
		start := time.Now()
		c, err := d.DialContext(ctx, "tcp", addr)
		s.errMu.Lock()
		s.dialErr, s.connect = err, time.Since(start)
		s.errMu.Unlock()
		s.maxStreams.Store(-1)
		if err != nil {
			return nil, err
		}
		return rawconn.Wrap(c), nil // reads and writes the scheduler does not see as system calls
	}
	cc, err := grpc.NewClient("passthrough:///"+k.host,
		grpc.WithTransportCredentials(creds),
		grpc.WithContextDialer(dialer),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(MaxAnswer)),
	)
	if err != nil {
		return nil, fmt.Errorf("grpcx: %s: %w", k.host, err)
	}
	return cc, nil
}

// waitReady connects cc and waits until it is ready; a transient failure ends the wait.
func waitReady(ctx context.Context, cc *grpc.ClientConn) error {
	cc.Connect()
	for {
		st := cc.GetState()
		switch st {
		case connectivity.Ready:
			return nil
		case connectivity.TransientFailure, connectivity.Shutdown:
			return fmt.Errorf("grpcx: connection %s", strings.ToLower(st.String()))
		}
		if !cc.WaitForStateChange(ctx, st) {
			return ctx.Err()
		}
	}
}

// method returns the method at path, resolving it on first use (failures included, so that a
// wrong name costs one look-up, not one per call).
func (tg *target) method(ctx context.Context, cc *grpc.ClientConn, path []byte) *method {
	tg.mu.RLock()
	m := tg.methods[string(path)]
	tg.mu.RUnlock()
	if m != nil {
		return m
	}
	tg.mu.Lock()
	defer tg.mu.Unlock()
	if m = tg.methods[string(path)]; m != nil {
		return m
	}
	if tg.resolver == nil {
		tg.resolver = FromReflection(cc)
	}
	m = &method{bodies: map[string][]byte{}, streamBodies: map[string][][]byte{}}
	svc, name, err := SplitName(string(path))
	if err == nil {
		m.path = "/" + svc + "/" + name
		m.wirePath = []byte(m.path)
		m.desc, err = tg.resolver.Method(ctx, string(path))
	}
	if err != nil && ctx.Err() != nil {
		return &method{err: err} // the call's time ran out: try again on the next call
	}
	m.err = err
	tg.methods[string(path)] = m
	return m
}

// body returns the request message for the JSON in js, behind its 5-byte gRPC prefix, and
// scratch: marshalled once per distinct body, up to max bodies; beyond them marshalled into
// scratch on every call.
func (m *method) body(js, scratch []byte, max int) (framed, scratchOut []byte, err error) {
	m.mu.RLock()
	b, ok := m.bodies[string(js)]
	full := len(m.bodies) >= max
	m.mu.RUnlock()
	if ok {
		return b, scratch, nil
	}
	msg := dynamicpb.NewMessage(m.desc.Input())
	if len(js) > 0 {
		if err := protojson.Unmarshal(js, msg); err != nil {
			if isArray(js) && !listInput(m.desc.Input()) {
				return nil, scratch, fmt.Errorf("grpcx: %s is unary: it takes one request message, not an array of them", m.path)
			}
			return nil, scratch, fmt.Errorf("grpcx: the body is not a %s in JSON: %w", m.desc.Input().FullName(), err)
		}
	}
	if full {
		scratch, err = marshalFramed(scratch, msg)
		return scratch, scratch, err
	}
	if b, err = marshalFramed(nil, msg); err != nil {
		return nil, scratch, err
	}
	m.mu.Lock()
	if len(m.bodies) < max {
		m.bodies[string(js)] = b
	}
	m.mu.Unlock()
	return b, scratch, nil
}

// marshalFramed appends to dst the 5-byte gRPC prefix (uncompressed, the length) and msg,
// marshalled.
func marshalFramed(dst []byte, msg proto.Message) ([]byte, error) {
	dst = append(dst[:0], 0, 0, 0, 0, 0)
	dst, err := proto.MarshalOptions{}.MarshalAppend(dst, msg)
	if err != nil {
		return nil, fmt.Errorf("grpcx: marshalling the body: %w", err)
	}
	binary.BigEndian.PutUint32(dst[1:frameHeader], uint32(len(dst)-frameHeader))
	return dst, nil
}

// decode appends the answer b, decoded to JSON, to dst.
func (m *method) decode(b, dst []byte) ([]byte, error) {
	msg := dynamicpb.NewMessage(m.desc.Output())
	if err := proto.Unmarshal(b, msg); err != nil {
		return dst, fmt.Errorf("grpcx: the answer is not a %s: %w", m.desc.Output().FullName(), err)
	}
	js, err := protojson.Marshal(msg)
	if err != nil {
		return dst, fmt.Errorf("grpcx: the answer to JSON: %w", err)
	}
	return append(dst, js...), nil
}

// recordingCreds keeps the failure of a TLS handshake in the slot, so that the call that waited
// for the connection can tell a certificate problem from the rest, and hands grpc-go the
// connection watched (watchConn).
type recordingCreds struct {
	credentials.TransportCredentials
	s       *slot
	tls     bool // the credentials make TLS connections
	hasCert bool // with a client certificate
}

func (c recordingCreds) ClientHandshake(ctx context.Context, authority string, raw net.Conn) (net.Conn, credentials.AuthInfo, error) {
	conn, info, err := c.TransportCredentials.ClientHandshake(ctx, authority, raw)
	if err != nil {
		c.s.setErr(tlsAlert(err, c.hasCert))
		return conn, info, err
	}
	return &watchConn{Conn: conn, s: c.s, tls: c.tls, hasCert: c.hasCert}, info, nil
}

func (c recordingCreds) Clone() credentials.TransportCredentials {
	return recordingCreds{c.TransportCredentials.Clone(), c.s, c.tls, c.hasCert}
}
