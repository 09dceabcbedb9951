package plan

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/rpcbench/rpcbench/result"
)

// Call is one JSON-RPC 2.0 call: a method and its params, as a calls file line holds it
// ({"method":"eth_getBalance","params":["0xab…","latest"],"name":"balance"}). Params may hold
// templates ({{randInt 1 1000}}, {{seq}}, {{uuid}}, … but not data fields), rendered for each
// call; they must render to JSON. The zero value is not a valid call: it needs a method.
type Call struct {
	// Name labels the call in reports; calls of the same name share an endpoint. Default: Method.
	Name   string `json:"name,omitempty"`
	Method string `json:"method"`
	// Params is the raw JSON of the params member: an array or an object; empty for none.
	Params json.RawMessage `json:"params,omitempty"`
	// Weight is the call's share of the requests: calls are picked at random in proportion to
	// their weights. 0 for every call: the calls are taken in turn.
	Weight float64 `json:"weight,omitempty"`
}

// MaxBatch is the largest batch NewJSONRPCSource accepts.
const MaxBatch = 10_000

// Label returns the name the call is reported under: its name, else its method.
func (c Call) Label() string {
	if c.Name != "" {
		return c.Name
	}
	return c.Method
}

// Validate says what is wrong with c, or returns nil.
func (c Call) Validate() error {
	if strings.TrimSpace(c.Method) == "" {
		return errors.New("no method: want e.g. {\"method\":\"eth_blockNumber\"}")
	}
	if c.Weight < 0 || math.IsNaN(c.Weight) || math.IsInf(c.Weight, 0) {
		return fmt.Errorf("weight %v: want a number above 0", c.Weight)
	}
	if len(bytes.TrimSpace(c.Params)) == 0 {
		return nil
	}
	if HasTemplate(string(c.Params)) {
		t, err := ParseTemplate(string(c.Params), nil)
		if err != nil {
			return fmt.Errorf("params %.40s: %v", c.Params, err)
		}
		sample := t.appendTo(nil, newGen(1, 1))
		if !json.Valid(sample) {
			return fmt.Errorf("params %.40s render to %.60q, which is not valid JSON", c.Params, sample)
		}
		return checkParamsKind(sample)
	}
	if !json.Valid(c.Params) {
		return fmt.Errorf("params %.40q are not valid JSON", c.Params)
	}
	return checkParamsKind(c.Params)
}

func checkParamsKind(params []byte) error {
	switch bytes.TrimSpace(params)[0] {
	case '[', '{':
		return nil
	}
	return fmt.Errorf("params %.40s: want an array or an object, as JSON-RPC 2.0 says", params)
}

// ParseCalls reads a calls file: one JSON object per line with "method", optional "params" and
// optional "name". Blank lines and lines starting with # are skipped. name labels the errors
// ("calls.jsonl:3: …").
func ParseCalls(r io.Reader, name string) ([]Call, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	var calls []Call
	for line := 1; sc.Scan(); line++ {
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 || b[0] == '#' {
			continue
		}
		var c Call
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&c); err != nil {
			return nil, fmt.Errorf("plan: %s:%d: want a JSON object like {\"method\":\"eth_blockNumber\",\"params\":[]}: %v", name, line, err)
		}
		if dec.More() {
			return nil, fmt.Errorf("plan: %s:%d: more than one JSON value on the line; want one call per line", name, line)
		}
		if err := c.Validate(); err != nil {
			if bytes.Contains(sc.Bytes(), []byte(`\"`)) && bytes.Contains(sc.Bytes(), []byte("{{")) {
				// {{pick \"a\" \"b\"}} inside a JSON string: the template sees the backslashes
				err = fmt.Errorf("%v (inside a JSON string, quote a template's words with backticks: {{pick `a` `b`}})", err)
			}
			return nil, fmt.Errorf("plan: %s:%d: %v", name, line, err)
		}
		calls = append(calls, c)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("plan: %s: %w", name, err)
	}
	if len(calls) == 0 {
		return nil, fmt.Errorf("plan: %s: no calls: want one JSON object per line", name)
	}
	return calls, nil
}

// JSONRPCEndpoints returns the endpoints of a JSON-RPC run against url (http, https, ws or wss):
// one per call name in order of first appearance, so that the report breaks figures down by
// method. Batches of more than one call whose calls have different names are one endpoint,
// "batch of N". Each endpoint is a POST with Content-Type application/json (unless header sets
// one) and the first call of its kind as its body, so that a saved report shows what was sent.
func JSONRPCEndpoints(url string, header []result.RequestHeader, calls []Call, batch int) ([]Endpoint, error) {
	if err := checkCalls(calls, batch); err != nil {
		return nil, err
	}
	h := append([]result.RequestHeader(nil), header...)
	if !hasHeader(h, "Content-Type") {
		h = append(h, result.RequestHeader{Name: "Content-Type", Value: "application/json"})
	}
	names, first := callNames(calls, batch)
	eps := make([]Endpoint, len(names))
	for k, n := range names {
		c := calls[first[k]]
		eps[k] = Endpoint{Name: n, Method: "POST", URL: url, Header: h, Body: appendCall(nil, c, 1)}
		for _, x := range calls {
			if len(names) == 1 || x.Label() == n {
				eps[k].Weight += x.Weight // the share of the endpoint's requests, as the report shows it
			}
		}
		if batch > 1 {
			eps[k].Calls = batch
		}
	}
	return eps, nil
}

func checkCalls(calls []Call, batch int) error {
	if len(calls) == 0 {
		return errors.New("plan: jsonrpc: no calls")
	}
	if batch < 0 || batch > MaxBatch {
		return fmt.Errorf("plan: jsonrpc: batch %d: want 1 to %d calls per batch", batch, MaxBatch)
	}
	weighted := 0
	for i, c := range calls {
		if err := c.Validate(); err != nil {
			return fmt.Errorf("plan: jsonrpc call %d: %v", i+1, err)
		}
		if c.Weight > 0 {
			weighted++
		}
	}
	if weighted > 0 && weighted < len(calls) {
		for i, c := range calls {
			if c.Weight == 0 {
				return fmt.Errorf("plan: jsonrpc call %d (%s) has no weight; give every call a weight, or none", i+1, c.Label())
			}
		}
	}
	return nil
}

// WeighCalls sets the weights of the calls by name (a call's name, or its method when it has
// none), as --weights does: the calls of one name share its weight, as the targets of an endpoint
// do. A name that no call has is an error; names not in w keep no weight.
func WeighCalls(calls []Call, w map[string]float64) error {
	count := map[string]int{}
	for _, c := range calls {
		count[c.Label()]++
	}
	var unknown []string
	for name := range w {
		if count[name] == 0 {
			unknown = append(unknown, fmt.Sprintf("%q", name))
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		names, _ := callNames(calls, 0)
		return fmt.Errorf("no call is named %s; the calls are %s", strings.Join(unknown, ", "), strings.Join(names, ", "))
	}
	for i := range calls {
		if v, ok := w[calls[i].Label()]; ok {
			calls[i].Weight = v / float64(count[calls[i].Label()])
		}
	}
	return nil
}

// callNames returns the endpoint names in order and the index of the first call of each.
func callNames(calls []Call, batch int) (names []string, first []int) {
	seen := map[string]bool{}
	for i, c := range calls {
		if n := c.Label(); !seen[n] {
			seen[n] = true
			names, first = append(names, n), append(first, i)
		}
	}
	if batch > 1 && len(names) > 1 {
		return []string{fmt.Sprintf("batch of %d", batch)}, []int{0}
	}
	return names, first
}

func hasHeader(h []result.RequestHeader, name string) bool {
	for _, x := range h {
		if strings.EqualFold(x.Name, name) {
			return true
		}
	}
	return false
}

// JSONRPCSource renders JSON-RPC 2.0 requests: the calls in turn, one per request or Batch per
// request as an array, each with an id unique in the run (1, 2, 3, … across senders and batches;
// the calls of a batch get consecutive ids). The id is written into the sender's own Request.Body,
// reusing its memory, so that steady state does not allocate. The zero value is not usable: build
// it with NewJSONRPCSource. It is safe for concurrent use.
type JSONRPCSource struct {
	base      []result.Request // per endpoint: everything but the body
	calls     []rpcCall
	weights   *aliasTable // nil: the calls in turn
	batch     uint64
	next      atomic.Uint64 // ids handed out so far
	templated bool          // some params hold templates
	uses      uses
	seed      uint64
	streams   atomic.Uint64 // senders seen, each a stream of the generator
	seq       atomic.Uint64 // {{seq}}
}

// rpcCall is a call pre-rendered around its id: head + id + tail.
type rpcCall struct {
	endpoint int
	tail     []byte    // `,"method":"m","params":…}`
	tailT    *Template // the tail when the params hold templates, else nil
}

// rpcState is what one sender keeps in Request.SourceState when params hold templates.
type rpcState struct {
	g    *gen
	body []byte
}

const rpcHead = `{"jsonrpc":"2.0","id":`

// NewJSONRPCSource prepares calls for endpoints made by JSONRPCEndpoints (and Normalized), sent in
// batches of batch calls (0 or 1: no batching, one object per request).
func NewJSONRPCSource(endpoints []Endpoint, calls []Call, batch int) (*JSONRPCSource, error) {
	if err := checkCalls(calls, batch); err != nil {
		return nil, err
	}
	names, _ := callNames(calls, batch)
	if len(names) != len(endpoints) {
		return nil, fmt.Errorf("plan: jsonrpc: %d endpoints for %d kinds of call; make them with JSONRPCEndpoints", len(endpoints), len(names))
	}
	idx := map[string]int{}
	s := &JSONRPCSource{batch: uint64(max(batch, 1))}
	for k, e := range endpoints {
		u, err := url.Parse(e.URL)
		if err != nil {
			return nil, fmt.Errorf("plan: endpoint %d: %w", k+1, err)
		}
		idx[names[k]] = k
		s.base = append(s.base, result.Request{Endpoint: k, Method: e.Method, Scheme: u.Scheme, Host: u.Host,
			Path: []byte(u.RequestURI()), Header: e.Header})
	}
	for _, c := range calls {
		k := 0
		if len(names) > 1 {
			k = idx[c.Label()]
		}
		tail := appendCall(nil, c, 0)[len(rpcHead)+1:] // drop head and the id "0"
		rc := rpcCall{endpoint: k, tail: tail}
		if HasTemplate(string(c.Params)) {
			t, err := ParseTemplate(string(tail), nil)
			if err != nil {
				return nil, fmt.Errorf("plan: jsonrpc call %s: params: %v", c.Label(), err)
			}
			rc.tailT, s.templated = t, true
			s.uses.add(t.uses)
		}
		s.calls = append(s.calls, rc)
	}
	if calls[0].Weight > 0 {
		w := make([]float64, len(calls))
		for i, c := range calls {
			w[i] = c.Weight
		}
		s.weights = newAliasTable(w)
	}
	s.seed = rand.Uint64()
	return s, nil
}

// appendCall appends c as a request object with the given id.
func appendCall(dst []byte, c Call, id uint64) []byte {
	dst = append(dst, rpcHead...)
	dst = strconv.AppendUint(dst, id, 10)
	dst = append(dst, `,"method":`...)
	m, _ := json.Marshal(c.Method) // a string always marshals
	dst = append(dst, m...)
	if p := bytes.TrimSpace(c.Params); len(p) > 0 {
		dst = append(dst, `,"params":`...)
		dst = append(dst, p...)
	}
	return append(dst, '}')
}

// Fill implements Source. The call is picked by the id, not by i, so that the calls keep their
// turns in the warm-up of the closed model too (where every i is 0).
func (s *JSONRPCSource) Fill(_ uint64, r *result.Request) error {
	last := s.next.Add(s.batch) // ids last-batch+1 … last
	id := last - s.batch + 1
	state := r.SourceState
	body := r.Body[:0]
	var g *gen
	var st *rpcState
	if s.templated || s.weights != nil {
		if st, _ = state.(*rpcState); st == nil {
			st = &rpcState{g: newGen(s.seed, s.streams.Add(1))}
			state = st
		}
		body, g = st.body[:0], st.g
		if s.uses.now {
			g.now = time.Now()
		}
	}
	c := s.call(id, g)
	*r = s.base[c.endpoint]
	r.SourceState = state
	if s.batch == 1 {
		body = s.appendCall(body, c, id, g)
	} else {
		body = append(body, '[')
		for ; id <= last; id++ {
			if id > last-s.batch+1 {
				c = s.call(id, g)
			}
			body = s.appendCall(body, c, id, g)
			if id < last {
				body = append(body, ',')
			}
		}
		body = append(body, ']')
	}
	r.Body = body
	if st != nil {
		st.body = body
	}
	return nil
}

// call picks the call of the given id: the calls in turn, or at random by weight.
func (s *JSONRPCSource) call(id uint64, g *gen) *rpcCall {
	if s.weights != nil {
		return &s.calls[s.weights.pick(g.rng)]
	}
	return &s.calls[(id-1)%uint64(len(s.calls))]
}

// appendCall renders call c with the given id.
func (s *JSONRPCSource) appendCall(body []byte, c *rpcCall, id uint64, g *gen) []byte {
	body = append(body, rpcHead...)
	body = strconv.AppendUint(body, id, 10)
	if c.tailT == nil {
		return append(body, c.tail...)
	}
	if s.uses.seq {
		g.seq = s.seq.Add(1) - 1
	}
	return c.tailT.appendTo(body, g)
}
