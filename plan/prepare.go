package plan

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rpcbench/rpcbench/check"
	"github.com/rpcbench/rpcbench/result"
)

// SetupConnections is the number of connections of a setup phase (closed model).
const SetupConnections = 16

// JSONRPC is the JSON-RPC 2.0 calls a plan sends to the URL of its one endpoint: each request a
// call (or Batch calls in one array) with an id unique in the run, reported per call name. The zero
// value sends none: the endpoint's own requests go out.
type JSONRPC struct {
	// Calls are the calls, taken in turn, or at random by weight when they have weights.
	Calls []Call `json:"calls,omitempty"`
	// CallsFile names a calls file (one JSON object per line, see ParseCalls) that Prepare reads
	// instead of Calls.
	CallsFile string `json:"calls_file,omitempty"`
	// Batch is the number of calls per request, sent as one JSON array; 0 or 1: one call.
	Batch int `json:"batch,omitempty"`
}

// On reports whether j sends calls.
func (j JSONRPC) On() bool { return len(j.Calls) > 0 || j.CallsFile != "" }

// Checks judge each answer beyond the default (an HTTP status of 2xx or 3xx; a gRPC OK). The zero
// value judges by status alone.
type Checks struct {
	// Status is the status codes that count as success, e.g. "200,201" or "2xx,404" (see
	// check.ParseStatuses); empty: 2xx and 3xx.
	Status string `json:"status,omitempty"`
	// Miss is the status codes that answer a request for something the target does not hold, e.g.
	// "404" for a key-value store's GET of an absent key (see check.ParseStatuses): such an answer
	// is a miss — a success, not an error, counted apart (summary.Requests.Misses) and judged by
	// nothing else (no check, no answer metric). Empty: no answer is a miss.
	Miss string `json:"miss,omitempty"`
	// Body are checks on each answer's body, as check.Parse reads them: "body contains TEXT",
	// "json PATH exists", "json PATH == VALUE", each optionally after "NAME:".
	Body []string `json:"body,omitempty"`
	// Metrics are numbers read from the body of each answer that succeeded, each recorded into a
	// distribution of its own and reported beside the latency (check.Metric).
	Metrics []AnswerMetric `json:"metrics,omitempty"`
}

// AnswerMetric names a number that the answers carry, at a JSON path such as "State.HopLatency"
// (check.ParsePath); the name says its unit, as the value is recorded as the answer gives it.
type AnswerMetric struct {
	Name string `json:"name"`
	Path string `json:"path"`
}

// InputError is a problem with one input of a plan: a file it names (Input "targets", "data",
// "setup", "calls") or a setting read with them ("weights"). Input is the name of the setting, so
// that a command line can name its flag.
type InputError struct {
	Input string
	Err   error
}

func (e *InputError) Error() string { return "plan: " + e.Input + ": " + e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

func inputErr(input string, err error) error {
	return &InputError{Input: input, Err: errors.New(strings.TrimPrefix(err.Error(), "plan: "))}
}

// Prepared is a plan made ready to run by Prepare: the plan as run, the source of its requests and
// the judge of its answers. Run it with engine.RunPrepared (engine.Run prepares and runs).
type Prepared struct {
	// Plan is the plan as run: valid, every default filled in, its endpoints those of the target
	// file or of the JSON-RPC calls when it has them.
	Plan Plan
	// Source makes each request.
	Source Source
	// Verifier judges the answers; nil when the plan has no checks and no JSON-RPC calls: the
	// status decides, as its protocol counts success.
	Verifier *check.Verifier
	// Setup is the setup phase, whose requests go before the measured run and outside its figures;
	// nil when the plan has none.
	Setup *Prepared
	// Origins are the scheme and host ("http://127.0.0.1:8080", as the URLs write them) of every
	// request Source makes, each once, in order of first appearance.
	Origins []string
}

// origins returns the scheme and host of each of eps's URLs, each once.
func origins(eps []Endpoint) []string {
	var out []string
	for _, e := range eps {
		o := e.URL
		if u, err := url.Parse(e.URL); err == nil {
			o = u.Scheme + "://" + u.Host
		}
		if !slices.Contains(out, o) {
			out = append(out, o)
		}
	}
	return out
}

// Prepare reads the files p names through fsys (nil: OSFiles(nil)), builds its endpoints from the
// target file or the JSON-RPC calls, applies Traffic.Weights, validates the result and fills in
// the defaults — once, here — and compiles the request source, the checks and the setup phase.
// An error names what is wrong (an *InputError for a file or the weights); nothing is sent.
func Prepare(p Plan, fsys fs.FS) (*Prepared, error) {
	if fsys == nil {
		fsys = OSFiles(nil)
	}
	t := p.Traffic
	var in Inputs
	if t.Targets != "" {
		if len(p.Endpoints) > 0 {
			return nil, fmt.Errorf("plan: endpoints and a target file: give one of them (names and weights go in the target file: # name: and # weight:)")
		}
		tg, err := LoadTargets(fsys, t.Targets, t.TargetsFormat, t.Base, t.RewriteHost, t.Header)
		if err != nil {
			return nil, inputErr("targets", err)
		}
		if p.Endpoints, err = GroupTargets(tg); err != nil {
			return nil, inputErr("targets", err)
		}
		in.Targets = tg
	} else {
		p.Endpoints = append([]Endpoint(nil), p.Endpoints...)
		for i := range p.Endpoints {
			p.Endpoints[i].Header = withHeaders(p.Endpoints[i].Header, t.Header)
		}
	}
	var calls []Call
	if p.JSONRPC.On() {
		var err error
		if calls, err = p.jsonrpcCalls(fsys); err != nil {
			return nil, err
		}
		if t.Weights != nil {
			if err := WeighCalls(calls, t.Weights); err != nil {
				return nil, inputErr("weights", err)
			}
		}
		base := p.Endpoints[0]
		if p.Endpoints, err = JSONRPCEndpoints(base.URL, base.Header, calls, p.JSONRPC.Batch); err != nil {
			return nil, err
		}
	} else if t.Weights != nil {
		if err := ApplyWeights(p.Endpoints, t.Weights); err != nil {
			return nil, inputErr("weights", err)
		}
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	p = p.Normalized()
	if p.Protocol == result.WS && !p.JSONRPC.On() && !allHaveBodies(p.Endpoints) && !p.SubscriptionsOnly() {
		return nil, fmt.Errorf("plan: %s: a WebSocket URL carries JSON-RPC calls: give --jsonrpc METHOD or --calls FILE (the plan's JSON-RPC calls)", RedactURL(p.Endpoints[0].URL))
	}
	var data *Data
	if t.Data != "" {
		if p.JSONRPC.On() {
			return nil, fmt.Errorf("plan: data file %s with JSON-RPC calls: their params cannot read data fields; drop the data file", t.Data)
		}
		f, err := fsys.Open(t.Data)
		if err != nil {
			return nil, inputErr("data", err)
		}
		data, err = ReadData(t.Data, f)
		f.Close()
		if err != nil {
			return nil, inputErr("data", err)
		}
		in.Data = data
	}
	prep := &Prepared{Plan: p, Origins: origins(p.Endpoints)}
	if in.Targets != nil {
		prep.Origins = origins(in.Targets.Entries) // an endpoint names its first entry's URL only
	}
	if t.Setup != "" {
		setup, err := p.prepareSetup(fsys, data)
		if err != nil {
			return nil, err
		}
		prep.Setup = setup
		if data != nil {
			mainTargets := in.Targets
			if mainTargets == nil {
				mainTargets = &Targets{Entries: p.Endpoints}
			}
			if !readsData(mainTargets) {
				in.Data = nil // only the setup reads the data
			}
		}
	}
	var err error
	if p.JSONRPC.On() {
		prep.Source, err = NewJSONRPCSource(p.Endpoints, calls, p.JSONRPC.Batch)
	} else {
		prep.Source, err = NewSource(p, in)
	}
	if err != nil {
		return nil, err
	}
	if prep.Verifier, err = p.verifier(calls); err != nil {
		return nil, err
	}
	return prep, nil
}

// jsonrpcCalls returns the plan's calls, read from its calls file when it names one, and checks
// that they have one endpoint to go to.
func (p Plan) jsonrpcCalls(fsys fs.FS) ([]Call, error) {
	j := p.JSONRPC
	switch {
	case j.CallsFile != "" && len(j.Calls) > 0:
		return nil, fmt.Errorf("plan: jsonrpc: both calls and a calls file: give one of them")
	case len(p.Endpoints) != 1:
		return nil, fmt.Errorf("plan: jsonrpc: calls go to one URL; the plan has %d endpoints (JSON-RPC calls do not go with target files or several endpoints)", len(p.Endpoints))
	case len(p.Endpoints[0].Body) > 0:
		return nil, fmt.Errorf("plan: jsonrpc: the calls make the body; drop the endpoint's body")
	case j.Batch < 0 || j.Batch > MaxBatch:
		return nil, fmt.Errorf("plan: jsonrpc: batch %d: want 1 to %d calls per batch", j.Batch, MaxBatch)
	}
	if m := p.Endpoints[0].Method; m != "" && !strings.EqualFold(m, "GET") && !strings.EqualFold(m, "POST") {
		return nil, fmt.Errorf("plan: jsonrpc: method %s: JSON-RPC calls are POSTs", m)
	}
	if j.CallsFile == "" {
		calls := append([]Call(nil), j.Calls...)
		for i, c := range calls {
			if err := c.Validate(); err != nil {
				return nil, fmt.Errorf("plan: jsonrpc call %d: %v", i+1, err)
			}
		}
		return calls, nil
	}
	f, err := fsys.Open(j.CallsFile)
	if err != nil {
		return nil, inputErr("calls", err)
	}
	defer f.Close()
	calls, err := ParseCalls(f, j.CallsFile)
	if err != nil {
		return nil, inputErr("calls", err)
	}
	return calls, nil
}

// verifier compiles the plan's checks; nil when there is nothing beyond the status to judge.
func (p Plan) verifier(calls []Call) (*check.Verifier, error) {
	v := &check.Verifier{JSONRPC: p.JSONRPC.On()}
	for _, c := range calls {
		if !slices.Contains(v.Methods, c.Method) {
			v.Methods = append(v.Methods, c.Method)
		}
	}
	if p.Checks.Status != "" {
		st, err := check.ParseStatuses(p.Checks.Status)
		if err != nil {
			return nil, fmt.Errorf("plan: expected status: %v", err)
		}
		v.Status = st
	}
	if p.Checks.Miss != "" {
		st, err := check.ParseStatuses(p.Checks.Miss)
		if err != nil {
			return nil, fmt.Errorf("plan: miss status: %v", err)
		}
		v.Miss = st
	}
	for i, spec := range p.Checks.Body {
		c, err := check.Parse(spec)
		if err != nil {
			return nil, fmt.Errorf("plan: check %d: %v", i+1, err)
		}
		v.Checks = append(v.Checks, c)
	}
	for _, am := range p.Checks.Metrics {
		m, err := check.NewMetric(am.Name, am.Path)
		if err != nil {
			return nil, fmt.Errorf("plan: answer %v", err)
		}
		v.Metrics = append(v.Metrics, m)
	}
	if v.Empty() {
		return nil, nil
	}
	return v, nil
}

// prepareSetup prepares the setup phase of a Normalized plan: the requests of its setup file,
// each once or SetupCount in turn, over SetupConnections busy connections, with the plan's HTTP
// settings; entries that read data fields get the rows in turn.
func (p Plan) prepareSetup(fsys fs.FS, data *Data) (*Prepared, error) {
	t := p.Traffic
	tg, err := LoadTargets(fsys, t.Setup, "", t.Base, t.RewriteHost, t.Header)
	if err != nil {
		return nil, inputErr("setup", err)
	}
	eps, err := GroupTargets(tg)
	if err != nil {
		return nil, inputErr("setup", err)
	}
	count := t.SetupCount
	if count == 0 {
		count = uint64(len(tg.Entries))
	}
	sp := Plan{
		Endpoints: eps,
		Traffic:   Traffic{Targets: t.Setup},
		Load:      Load{Model: Closed, Connections: int(min(count, SetupConnections)), Requests: count},
		HTTP:      p.HTTP, // its protocol: its own URLs'
	}
	in := Inputs{Targets: tg}
	if data != nil && readsData(tg) {
		sp.Traffic.Data, sp.Traffic.DataOrder, in.Data = t.Data, DataSequential, data
	}
	if err := sp.Validate(); err != nil {
		return nil, inputErr("setup", err)
	}
	sp = sp.Normalized()
	src, err := NewSource(sp, in)
	if err != nil {
		return nil, inputErr("setup", err)
	}
	return &Prepared{Plan: sp, Source: src, Origins: origins(tg.Entries)}, nil
}

// LoadTargets reads the target file name ("-": standard input) through fsys (nil: OSFiles(nil));
// "@path" bodies are relative to it. With a base URL, relative URLs ("GET /items") are relative to
// it and absolute ones must name its scheme and host, or get them when rewriteHost is set (see
// Traffic.Base and Traffic.RewriteHost); without one ("") every URL is taken as written. header is
// added to every entry that lacks a header of its name. Prepare reads a plan's target and setup
// files with it.
func LoadTargets(fsys fs.FS, name, format, base string, rewriteHost bool, header []result.RequestHeader) (*Targets, error) {
	if fsys == nil {
		fsys = OSFiles(nil)
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	shown, dir := name, filepath.Dir(name)
	if name == Stdin {
		shown, dir = "stdin", "."
	}
	t, err := readTargets(fsys, shown, f, format, dir, urlBase{url: base, rewrite: rewriteHost})
	if err != nil {
		return nil, err
	}
	for i := range t.Entries {
		t.Entries[i].Header = withHeaders(t.Entries[i].Header, header)
	}
	return t, nil
}

// withHeaders adds to hs the headers of extra whose names hs lacks.
func withHeaders(hs, extra []result.RequestHeader) []result.RequestHeader {
outer:
	for _, x := range extra {
		for _, h := range hs {
			if strings.EqualFold(h.Name, x.Name) {
				continue outer
			}
		}
		hs = append(hs[:len(hs):len(hs)], x) // a copy: hs may be the caller's
	}
	return hs
}

// readsData reports whether some entry of t reads a data field ({{.field}}).
func readsData(t *Targets) bool {
	for _, e := range t.Entries {
		var b bytes.Buffer
		b.WriteString(e.URL)
		b.Write(e.Body)
		for _, h := range e.Header {
			b.WriteString(h.Value)
		}
		if strings.Contains(strings.ReplaceAll(b.String(), " ", ""), "{{.") {
			return true
		}
	}
	return false
}

// allHaveBodies reports whether every endpoint has a body: over WebSocket, the message it sends.
func allHaveBodies(eps []Endpoint) bool {
	for _, e := range eps {
		if len(e.Body) == 0 {
			return false
		}
	}
	return true
}
