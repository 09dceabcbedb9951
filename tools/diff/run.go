package diff

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rpcbench/rpcbench/engine"
	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/runner"
	"github.com/rpcbench/rpcbench/tools/jsondiff"
	"github.com/rpcbench/rpcbench/transport"
	_ "github.com/rpcbench/rpcbench/transport/protocols" // the transports of every protocol
)

// Request is one request of a corpus, sent alike to every server.
type Request struct {
	// ID numbers the request in the corpus, from 1.
	ID int `json:"id"`
	// Label is what the summary counts it under: the JSON-RPC method, or the endpoint's name.
	Label string `json:"method"`
	// Where says where the request was written (targets.jsonl:12, fixtures/x.io:3).
	Where  string             `json:"where,omitempty"`
	Method string             `json:"-"` // HTTP method; empty: POST
	Path   string             `json:"-"` // path and query under each server's URL; empty: the URL's own
	Header []transport.Header `json:"-"`
	Body   []byte             `json:"-"`
	// Expected is the expected answer (a fixture's "<<" line); nil compares the servers with the
	// first one.
	Expected []byte `json:"-"`
	// ShapeOnly judges the answers by shape, not value (a fixture marked speconly).
	ShapeOnly bool `json:"-"`
}

// Answer is what one server answered to one request.
type Answer struct {
	Status  int           `json:"status"`
	Body    []byte        `json:"-"`
	Class   string        `json:"class,omitempty"` // why no usable answer arrived (timeout, refused, …); empty when one did
	Error   string        `json:"error,omitempty"`
	Sent    time.Time     `json:"sent"`
	Latency time.Duration `json:"latency_ns"`
	// class is Class as the engine counts it; bytesIn and bytesOut what went over the wire.
	class             result.Class
	bytesIn, bytesOut int64
}

// Result is a request, every server's answer and the differences of each from the reference.
type Result struct {
	Request *Request
	Answers []Answer
	// Diffs[k] are the differences of server k's answer from the reference: the expected answer,
	// or server 0's (so Diffs[0] is empty then).
	Diffs [][]jsondiff.Difference
	// Ref is the index in Answers of the second instance of server 0 (Config.Reference), whose
	// differences from server 0 (Diffs[Ref]) are noise; 0 without one (server 0 is never its own).
	Ref int
	// Noise[k] are the differences of server k from server 0 at the paths (array indexes taken as
	// [*]) where the reference differs from server 0 in this request too: noise, not counted.
	// Diffs[k] holds the others. Empty without a reference.
	Noise [][]jsondiff.Difference
	// Pinned is the block number (0x…) that Config.PinBlock put in place of "latest", "pending"
	// or an omitted block; empty when the request was not rewritten. Sent is the body sent then.
	Pinned string
	Sent   []byte
	// Skipped says why the request was not sent (Config.SkipAboveHead); empty when it was.
	Skipped string
}

func (r *Result) isRef(k int) bool { return r.Ref > 0 && k == r.Ref }

// noise is r.Noise[k], nil when there is none.
func (r *Result) noise(k int) []jsondiff.Difference {
	if r.Noise == nil {
		return nil
	}
	return r.Noise[k]
}

// Equal reports whether every server answered and no candidate's answer differs outside the
// noise. A skipped request, sent to none, has nothing unequal.
func (r *Result) Equal() bool {
	for k, a := range r.Answers {
		if a.Class != "" || !r.isRef(k) && len(r.Diffs[k]) > 0 {
			return false
		}
	}
	return true
}

// Config says where to send the requests and how to compare the answers. The zero value is not
// usable: it needs URLs (two or more, or one with fixtures).
type Config struct {
	// URLs are the servers: http(s)://host:port/path, or ws(s):// for JSON-RPC over WebSocket.
	URLs []string
	// Reference, if set, is a second instance of the first server (URLs[0]): each request goes to
	// it too, after the URLs, and the paths where its answer differs from the first server's are
	// noise, not differences of the others (Diffy's rule). It cannot go with expected answers.
	Reference string
	// Rules of the comparison.
	Rules jsondiff.Options
	// ErrorRules relaxes the comparison of JSON-RPC errors per method ("*": every method).
	ErrorRules map[string]ErrorRule
	// PinBlock asks the first server for its head (eth_blockNumber) before each request whose
	// method takes a block, and sends every server that block number in place of "latest",
	// "pending" or an omitted block, so that all answer the same question.
	PinBlock bool
	// SkipAboveHead, with PinBlock, asks every server for its head and skips a request whose
	// block is above any of them (a node behind), counting it as skipped.
	SkipAboveHead bool
	// StopAtFirst ends the run at the first request whose answers differ, the first to end (with
	// more than one in flight, not always the first sent); those still in flight are not compared.
	StopAtFirst bool
	// Timeout bounds one request to one server; ConnectTimeout a connection's set-up. 0: 30 s and
	// 10 s.
	Timeout, ConnectTimeout time.Duration
	// Insecure skips the verification of the servers' certificates.
	Insecure bool
	// MaxBody bounds an answer's body; 0: 16 MiB.
	MaxBody int64
	// ShowSecrets keeps the URLs' passwords and key-like query values in the answers' errors
	// (which quote the URL); without it they are REDACTED there, as in every other output.
	ShowSecrets bool
}

// Defaults of Config.
const (
	DefaultTimeout        = 30 * time.Second
	DefaultConnectTimeout = 10 * time.Second
	DefaultMaxBody        = 16 << 20
)

// server is one URL and its transport.
type server struct {
	scheme, host, path string
	tr                 transport.Transport
	showSecrets        bool // keep the URL's secrets in the errors (Config.ShowSecrets)
}

// Prepare prepares the run of corpus c with load, as plan.Prepare does for any run: the endpoints
// are c's, under the first URL, the time limits and TLS settings cfg's. With no request count,
// duration or stages the run sends each entry of c once (c.Size); with no rate and no stages it
// then keeps load.Connections requests in flight (the closed model; 0: 1).
func Prepare(cfg Config, c Corpus, load plan.Load, fsys fs.FS) (*plan.Prepared, error) {
	if cfg.Reference != "" {
		for i := range c.Fixed {
			if c.Fixed[i].Expected != nil {
				return nil, errors.New("diff: a reference instance learns noise from the first server's answers; it cannot go with expected answers (fixtures)")
			}
		}
	}
	p := c.Plan
	if c.Size > 0 && load.Requests == 0 && load.Duration == 0 && len(load.Stages) == 0 {
		load.Requests = uint64(c.Size)
	}
	if c.Size > 0 && load.Model == "" && load.Rate == 0 && len(load.Stages) == 0 {
		load.Model = plan.Closed
		load.Connections = max(load.Connections, 1)
	}
	p.Load = load
	p.Diff = slices.Clone(cfg.URLs)
	if cfg.Reference != "" {
		p.Diff = append(p.Diff, cfg.Reference)
	}
	p.HTTP = plan.HTTP{Timeout: cfg.Timeout, ConnectTimeout: cfg.ConnectTimeout, Insecure: cfg.Insecure, MaxBody: cfg.MaxBody}
	return plan.Prepare(p, fsys)
}

// Run runs a prepared diff (Prepare) through runner.Run, so that the load is the engine's schedule
// — its rate or connections, stages, duration, warm-up, interruption — and the options' outputs
// receive it as any run's: each arrival the engine draws from c is sent to every server at once,
// the answers compared, and sink given the Result from the worker that sent it, one call at a
// time, in the order the requests end (warm-up requests are sent and not given). The run's own
// figures are those of the requests to every server: a request's latency lasts until every
// server answered, and it fails when one did not answer. Run ends with the runner's, or when
// StopAtFirst found a difference, or sink returned an error (which Run returns); requests cut by
// an interruption are not given to sink.
func Run(ctx context.Context, cfg Config, prep *plan.Prepared, c Corpus, o runner.Options, sink func(*Result) error) (*runner.Outcome, error) {
	j, err := newJudge(cfg)
	if err != nil {
		return nil, err
	}
	urls := cfg.URLs
	if cfg.Reference != "" {
		urls = append(slices.Clip(urls), cfg.Reference)
	}
	servers, err := dial(cfg, urls, prep.Plan.Load)
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, s := range servers {
			s.tr.Close()
		}
	}()
	src := c.source
	if src == nil {
		src = prep.Source
	}
	// the first difference (or the sink's error) halts the run at once, as a second Ctrl-C cuts
	// it: the requests in flight then are not compared, and none is sent after it; the result says
	// why it stopped, not that it was interrupted
	halt := make(chan struct{})
	f := &fanout{j: j, servers: servers, c: c, names: prep.Plan.Endpoints, sink: sink, stopAtFirst: cfg.StopAtFirst,
		cancel: func() { close(halt) }}
	o.Engine = append(slices.Clip(o.Engine), engine.WithSource(tagged{src}), engine.WithTransport(f), engine.WithVerifier(f),
		engine.WithHalt(halt, f.why))
	out, err := runner.Run(ctx, prep, o)
	if err == nil {
		err = f.sinkErr
	}
	return out, err
}

// slot is a worker's request as it goes from the source to the transport and the verifier: the
// engine hands each worker's request to the three in turn, so the arrival's number and its
// Result travel with it (in transport.Request.SourceState, which transports ignore).
type slot struct {
	inner any // the source's own state
	i     uint64
	res   *Result
}

// tagged is a source that keeps each arrival's number in its request's slot.
type tagged struct{ src plan.Source }

func (t tagged) Fill(i uint64, r *transport.Request) error {
	s, _ := r.SourceState.(*slot)
	if s == nil {
		s = &slot{}
	}
	r.SourceState = s.inner
	err := t.src.Fill(i, r)
	s.inner, s.i, s.res = r.SourceState, i, nil
	r.SourceState = s
	return err
}

// fanout is the transport and verifier of a diff run: it sends each request to every server at
// once and compares the answers (Do), and gives the Result to the sink when the engine counts
// the request (VerifyDetail; never for a warm-up request).
type fanout struct {
	j           *judge
	servers     []server
	c           Corpus
	names       []plan.Endpoint
	stopAtFirst bool
	cancel      func()

	mu      sync.Mutex
	sink    func(*Result) error
	sinkErr error
	stopped bool
}

func (f *fanout) Close() error { return nil } // the servers' transports are Run's to close

// request describes arrival s.i, filled into r, for the comparison.
func (f *fanout) request(s *slot, r *transport.Request) *Request {
	if f.c.Fixed != nil {
		q := f.c.Fixed[s.i%uint64(len(f.c.Fixed))]
		q.ID = int(s.i) + 1
		return &q
	}
	q := &Request{ID: int(s.i) + 1, Method: r.Method, Header: slices.Clone(r.Header), Body: bytes.Clone(r.Body)}
	if !f.c.byEndpoint {
		q.Label = LabelOf(r.Body)
	}
	if f.c.OwnPath {
		q.Path = string(r.Path)
		if rest, ok := strings.CutPrefix(q.Path, f.c.base); ok && f.c.base != "" && (rest == "" || rest[0] == '/' || rest[0] == '?') {
			q.Path = rest
		}
	}
	if q.Label == "" && r.Endpoint < len(f.names) {
		q.Label = f.names[r.Endpoint].Name
	}
	if f.c.where != nil {
		q.Where = f.c.where(s.i, r)
	}
	return q
}

// Do sends r to every server and compares the answers; out is the request's as a whole: failed
// with the first server's failure that did not answer, else answered with the first server's
// status, sent when the first server was sent to, its bytes those of every server.
func (f *fanout) Do(ctx context.Context, r *transport.Request, out *transport.Outcome) {
	s := r.SourceState.(*slot)
	f.mu.Lock()
	stopped := f.stopped
	f.mu.Unlock()
	if stopped { // StopAtFirst found a difference: the run is cut (Run's halt); this is not sent
		<-ctx.Done()
		s.res = nil
		out.Class, out.Err = result.Canceled, ctx.Err()
		return
	}
	began := time.Now()
	res := f.j.send(ctx, f.servers, f.request(s, r))
	out.Sent = began
	// the first difference stops the run as soon as it is known, before the engine counts it: no
	// request passes the check above after it; one in flight then is cut, not compared
	f.mu.Lock()
	cut := f.stopped
	if !cut && f.stopAtFirst && !res.Equal() {
		f.stop()
	}
	f.mu.Unlock()
	if cut {
		s.res = nil
		out.Class, out.Err = result.Canceled, context.Canceled
		return
	}
	s.res = res
	if res.Skipped != "" {
		out.Answered, out.Class = true, result.OK
		return
	}
	for k, a := range res.Answers {
		if !a.Sent.IsZero() && a.Sent.Before(out.Sent) {
			out.Sent = a.Sent
		}
		out.BytesIn += a.bytesIn
		out.BytesOut += a.bytesOut
		if a.Class != "" && out.Class == result.OK {
			out.Class, out.Err = a.class, fmt.Errorf("%s: %s", serverLetter(k), a.Error)
			if a.class == result.OK {
				out.Class = result.Other // not sent: a head could not be read
			}
		}
	}
	if out.Class == result.OK {
		out.Answered, out.Status = true, res.Answers[0].Status
	}
}

// errSkipped is the check failure of a request that was not sent: its block is above a head.
var errSkipped = errors.New("skipped: block above a head")

// Verify implements engine.Verifier.
func (f *fanout) Verify(r *transport.Request, out *transport.Outcome) (result.Class, error) {
	return f.VerifyDetail(r, out, true, nil)
}

// VerifyDetail gives the request's Result to the sink and judges the answer as the engine's
// default does, by the first server's status; a skipped request fails the check "skipped".
func (f *fanout) VerifyDetail(r *transport.Request, out *transport.Outcome, judge bool, _ *result.Detail) (result.Class, error) {
	s := r.SourceState.(*slot)
	res := s.res
	s.res = nil
	if res == nil && out.Class == result.Canceled {
		return out.Class, out.Err // not sent: the run stopped at the first difference
	}
	if res == nil {
		return result.Other, errors.New("diff: no comparison for the request")
	}
	if out.Class != result.Canceled {
		f.give(res)
	}
	switch {
	case !judge:
		return out.Class, out.Err
	case res.Skipped != "":
		return result.Check, errSkipped
	case r.Protocol.Success(out.Status):
		return result.OK, nil
	}
	return result.Status, nil
}

// give hands res to the sink, one at a time, and stops the run at the sink's first error (Do
// stops it at the first difference when asked to).
func (f *fanout) give(res *Result) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.sinkErr != nil {
		return
	}
	if f.sinkErr = f.sink(res); f.sinkErr != nil && !f.stopped {
		f.stop()
	}
}

// ErrStoppedAtFirst is why a StopAtFirst run stopped early, as its result says.
var ErrStoppedAtFirst = errors.New("stopped at the first difference")

// why says why f halted the run: the sink's error, else the first difference.
func (f *fanout) why() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.sinkErr != nil {
		return fmt.Errorf("stopped: %w", f.sinkErr)
	}
	return ErrStoppedAtFirst
}

// stop cuts the run, once; f.mu is held.
func (f *fanout) stop() {
	f.stopped = true
	f.cancel()
}

// dial makes a transport per server.
func dial(cfg Config, urls []string, load plan.Load) ([]server, error) {
	if len(urls) == 0 {
		return nil, errors.New("diff: no server URL")
	}
	tc := transport.Config{
		Timeout: cfg.Timeout, ConnectTimeout: cfg.ConnectTimeout, Conns: max(load.Connections, 1), Open: load.Model == plan.Open,
		InsecureSkipVerify: cfg.Insecure, KeepBody: true, MaxBody: cfg.MaxBody,
	}
	if tc.Timeout == 0 {
		tc.Timeout = DefaultTimeout
	}
	if tc.ConnectTimeout == 0 {
		tc.ConnectTimeout = DefaultConnectTimeout
	}
	if tc.MaxBody == 0 {
		tc.MaxBody = DefaultMaxBody
	}
	var out []server
	fail := func(err error) ([]server, error) {
		for _, s := range out {
			s.tr.Close()
		}
		return nil, err
	}
	for _, raw := range urls {
		shown := plan.ShownURL(raw, cfg.ShowSecrets)
		u, err := url.Parse(raw)
		if err != nil || u.Host == "" {
			return fail(fmt.Errorf("diff: URL %q: want scheme://host:port/path, e.g. http://127.0.0.1:18545/", shown))
		}
		p, err := transport.ProtocolFor(strings.ToLower(u.Scheme))
		if err != nil {
			return fail(fmt.Errorf("diff: URL %q: %w", shown, err))
		}
		tr, err := transport.New(p, tc)
		if err != nil {
			return fail(fmt.Errorf("diff: URL %q: %w", shown, err))
		}
		out = append(out, server{scheme: strings.ToLower(u.Scheme), host: u.Host, path: u.RequestURI(), tr: tr, showSecrets: cfg.ShowSecrets})
	}
	return out, nil
}

// send sends q to every server at once and compares the answers.
func (j *judge) send(ctx context.Context, servers []server, q *Request) *Result {
	r := &Result{Request: q, Answers: make([]Answer, len(servers)), Diffs: make([][]jsondiff.Difference, len(servers)), Ref: j.ref}
	body := q.Body
	if j.pin {
		var stop bool
		if body, stop = j.pinBlock(ctx, servers, q, r); stop {
			return r
		}
	}
	var wg sync.WaitGroup
	for k, s := range servers[1:] {
		wg.Go(func() { r.Answers[k+1] = s.do(ctx, q, body) })
	}
	r.Answers[0] = servers[0].do(ctx, q, body)
	wg.Wait()
	schemes := make([]string, len(servers))
	for k, s := range servers {
		schemes[k] = s.scheme
	}
	compare(r, j.options(q), schemes)
	return r
}

// do sends q to s with body, timing it.
func (s server) do(ctx context.Context, q *Request, body []byte) Answer {
	req := transport.Request{
		Method: q.Method, Scheme: s.scheme, Host: s.host, Path: []byte(joinPath(s.path, q.Path)),
		Header: q.Header, Body: body,
	}
	if req.Method == "" {
		req.Method = "POST"
	}
	req.Protocol, _ = transport.ProtocolFor(s.scheme)
	var out transport.Outcome
	began := time.Now()
	s.tr.Do(ctx, &req, &out)
	end := time.Now()
	a := Answer{Status: out.Status, Sent: out.Sent, Latency: end.Sub(began), Body: bytes.Clone(out.Body),
		class: out.Class, bytesIn: out.BytesIn, bytesOut: out.BytesOut}
	if a.Sent.IsZero() {
		a.Sent = began
	}
	if !out.Answered {
		a.Class = out.Class.String()
		if out.Class == 0 {
			a.Class = "other"
		}
		if out.Err != nil {
			// the transports' errors quote the URL they sent to ("Get \"http://…?api_key=…\"")
			a.Error = plan.ShownURL(out.Err.Error(), s.showSecrets)
		}
	}
	return a
}

// joinPath puts a request's path under a server URL's path: a server at /rpc and a request for
// /v1/x give /rpc/v1/x; a request for / or none gives the server's path.
func joinPath(base, path string) string {
	if path == "" || path == "/" {
		return base
	}
	base, query, _ := strings.Cut(base, "?")
	_ = query // a server URL's own query gives way to the request's
	return strings.TrimSuffix(base, "/") + path
}

// compare fills r.Diffs, and r.Noise with a reference; schemes are the servers' URL schemes.
// The statuses of two servers are compared only when both speak HTTP or both WebSocket: a call
// over WebSocket has the handshake's 101 where one over HTTP has 200.
func compare(r *Result, rules *jsondiff.Options, schemes []string) {
	o := *rules
	if r.Request.ShapeOnly {
		o.ShapeOnly = true
	}
	ref, refStatus, start := r.Request.Expected, 0, 0
	if ref == nil {
		ref, refStatus, start = r.Answers[0].Body, r.Answers[0].Status, 1
		if r.Answers[0].Class != "" {
			return // nothing to compare with: counted as an error of server 0
		}
	}
	for k := start; k < len(r.Answers); k++ {
		a := r.Answers[k]
		if a.Class != "" {
			continue
		}
		var diffs []jsondiff.Difference
		if refStatus != 0 && a.Status != refStatus && isWS(schemes[0]) == isWS(schemes[k]) {
			diffs = append(diffs, jsondiff.Difference{Path: "(status)", Kind: jsondiff.Changed, TypeA: "status", TypeB: "status",
				A: fmt.Sprint(refStatus), B: fmt.Sprint(a.Status)})
		}
		r.Diffs[k] = append(diffs, bodies(ref, a.Body, &o)...)
	}
	if r.Ref > 0 && len(r.Diffs[r.Ref]) > 0 {
		splitNoise(r)
	}
}

// isWS says whether a URL scheme is WebSocket's (ws, wss).
func isWS(scheme string) bool { return scheme == "ws" || scheme == "wss" }

// bodies compares two answer bodies: structurally when both are JSON, else as text.
func bodies(a, b []byte, o *jsondiff.Options) []jsondiff.Difference {
	diffs, err := jsondiff.Compare(a, b, o)
	if err == nil {
		return diffs
	}
	if bytes.Equal(bytes.TrimSpace(a), bytes.TrimSpace(b)) {
		return nil
	}
	kind := func(x []byte) string {
		if json.Valid(x) {
			return "json"
		}
		return "text"
	}
	return []jsondiff.Difference{{Path: "(body)", Kind: jsondiff.Changed, TypeA: kind(a), TypeB: kind(b),
		A: jsondiff.Clip(string(a), 200), B: jsondiff.Clip(string(b), 200)}}
}

// LabelOf names a JSON-RPC body by its method ("batch" for an array); "" when body is not one.
func LabelOf(body []byte) string {
	b := bytes.TrimSpace(body)
	if len(b) > 0 && b[0] == '[' {
		var calls []struct{ Method string }
		if json.Unmarshal(b, &calls) == nil {
			return "batch"
		}
		return ""
	}
	var call struct{ Method string }
	if json.Unmarshal(b, &call) != nil {
		return ""
	}
	return call.Method
}
