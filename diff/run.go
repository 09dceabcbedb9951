package diff

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rpcbench/rpcbench/jsondiff"
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
	idx     int // the request's index in the corpus
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
	// StopAtFirst ends the run at the first request, in corpus order, whose answers differ.
	StopAtFirst bool
	// Connections is the number of requests in flight at once. 0: 1.
	Connections int
	// Rate bounds the requests started per second (each goes to every server); 0: no bound.
	Rate float64
	// Timeout bounds one request to one server; ConnectTimeout a connection's set-up. 0: 30 s and
	// 10 s.
	Timeout, ConnectTimeout time.Duration
	// Insecure skips the verification of the servers' certificates.
	Insecure bool
	// MaxBody bounds an answer's body; 0: 16 MiB.
	MaxBody int64
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
}

// Run sends every request to every server and calls sink with each Result in corpus order, from
// one goroutine. It returns when the corpus is done, the context is done, StopAtFirst found a
// difference, or sink returned an error (which Run returns). Requests in flight when the context
// ends are dropped, not reported.
func Run(ctx context.Context, cfg Config, reqs []Request, sink func(*Result) error) error {
	if cfg.Reference != "" {
		for i := range reqs {
			if reqs[i].Expected != nil {
				return errors.New("diff: a reference instance learns noise from the first server's answers; it cannot go with expected answers (fixtures)")
			}
		}
	}
	j, err := newJudge(cfg)
	if err != nil {
		return err
	}
	urls := cfg.URLs
	if cfg.Reference != "" {
		urls = append(slices.Clip(urls), cfg.Reference)
	}
	servers, err := dial(cfg, urls)
	if err != nil {
		return err
	}
	defer func() {
		for _, s := range servers {
			s.tr.Close()
		}
	}()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	conns := max(cfg.Connections, 1)
	todo := make(chan int)
	done := make(chan *Result, conns)
	var wg sync.WaitGroup
	for range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range todo {
				r := j.send(ctx, servers, &reqs[i])
				r.idx = i
				select {
				case done <- r:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	go func() {
		defer close(todo)
		start := time.Now()
		for i := range reqs {
			if cfg.Rate > 0 {
				due := start.Add(time.Duration(float64(i) / cfg.Rate * float64(time.Second)))
				if !sleepUntil(ctx, due) {
					return
				}
			}
			select {
			case todo <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(done) }()
	return deliver(ctx, cancel, cfg.StopAtFirst, reqs, done, sink)
}

// deliver hands the results to sink in corpus order.
func deliver(ctx context.Context, cancel func(), stopAtFirst bool, reqs []Request, done <-chan *Result, sink func(*Result) error) error {
	pending := map[int]*Result{}
	next := 0
	var sinkErr error
	for r := range done {
		if ctx.Err() != nil || sinkErr != nil {
			continue // drain
		}
		pending[r.idx] = r
		for next < len(reqs) {
			r, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			if sinkErr = sink(r); sinkErr != nil || stopAtFirst && !r.Equal() {
				cancel()
				break
			}
		}
	}
	return sinkErr
}

func sleepUntil(ctx context.Context, due time.Time) bool {
	d := time.Until(due)
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// dial makes a transport per server.
func dial(cfg Config, urls []string) ([]server, error) {
	if len(urls) == 0 {
		return nil, errors.New("diff: no server URL")
	}
	tc := transport.Config{
		Timeout: cfg.Timeout, ConnectTimeout: cfg.ConnectTimeout, Conns: max(cfg.Connections, 1),
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
		u, err := url.Parse(raw)
		if err != nil || u.Host == "" {
			return fail(fmt.Errorf("diff: URL %q: want scheme://host:port/path, e.g. http://127.0.0.1:18545/", raw))
		}
		p, err := transport.ProtocolFor(strings.ToLower(u.Scheme))
		if err != nil {
			return fail(fmt.Errorf("diff: URL %q: %w", raw, err))
		}
		tr, err := transport.New(p, tc)
		if err != nil {
			return fail(fmt.Errorf("diff: URL %q: %w", raw, err))
		}
		out = append(out, server{scheme: strings.ToLower(u.Scheme), host: u.Host, path: u.RequestURI(), tr: tr})
	}
	return out, nil
}

// send sends q to every server in turn and compares the answers.
func (j *judge) send(ctx context.Context, servers []server, q *Request) *Result {
	r := &Result{Request: q, Answers: make([]Answer, len(servers)), Diffs: make([][]jsondiff.Difference, len(servers)), Ref: j.ref}
	body := q.Body
	if j.pin {
		var stop bool
		if body, stop = j.pinBlock(ctx, servers, q, r); stop {
			return r
		}
	}
	for k, s := range servers {
		r.Answers[k] = s.do(ctx, q, body)
	}
	compare(r, j.options(q))
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
	a := Answer{Status: out.Status, Sent: out.Sent, Latency: end.Sub(began), Body: bytes.Clone(out.Body)}
	if a.Sent.IsZero() {
		a.Sent = began
	}
	if !out.Answered {
		a.Class = out.Class.String()
		if out.Class == 0 {
			a.Class = "other"
		}
		if out.Err != nil {
			a.Error = out.Err.Error()
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

// compare fills r.Diffs, and r.Noise with a reference.
func compare(r *Result, rules *jsondiff.Options) {
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
		if refStatus != 0 && a.Status != refStatus {
			diffs = append(diffs, jsondiff.Difference{Path: "(status)", Kind: jsondiff.Changed, TypeA: "status", TypeB: "status",
				A: fmt.Sprint(refStatus), B: fmt.Sprint(a.Status)})
		}
		r.Diffs[k] = append(diffs, bodies(ref, a.Body, &o)...)
	}
	if r.Ref > 0 && len(r.Diffs[r.Ref]) > 0 {
		splitNoise(r)
	}
}

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
