package plan

import (
	"fmt"
	"math/rand/v2"
	"net/url"
	"strings"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/schedule"
)

// Inputs are the files a plan names, already read (the plan holds only their names). The zero
// value means no target file, no data and a random seed.
type Inputs struct {
	// Targets are the requests, grouped into the plan's endpoints by name (see GroupTargets); nil
	// sends the plan's endpoints themselves.
	Targets *Targets
	// Data is the data file (Plan.Traffic.Data) that templates read as {{.field}}; nil for none.
	Data *Data
	// Seed seeds the senders' random generators; 0 takes a random seed.
	Seed uint64
}

// NewSource builds the Source of a Normalized, valid plan: a StaticSource when nothing changes
// from request to request, else a source that picks an entry (in turn, at random, or by the
// endpoints' weights) and renders its templates. Templates are compiled here, once; a bad one is
// an error that says where it was written.
func NewSource(p Plan, in Inputs) (Source, error) {
	if len(p.Endpoints) == 0 || in.Targets != nil && len(in.Targets.Entries) == 0 {
		return nil, fmt.Errorf("plan: no endpoint: give a URL or targets")
	}
	t := in.Targets
	if t == nil {
		t = &Targets{}
		for i, e := range p.Endpoints {
			where := fmt.Sprintf("endpoint %d", i+1)
			if e.Name != "" && e.Name != defaultName(e.Method, e.URL) {
				where += fmt.Sprintf(" %q", e.Name)
			}
			e.Name = ""
			t.Add(e, where)
		}
	}
	index := map[string]int{}
	for k, e := range p.Endpoints {
		index[e.Name] = k
	}
	var fields []string
	if in.Data != nil {
		fields = in.Data.Columns
	}
	s := &templateSource{data: in.Data, dataOrder: p.Traffic.DataOrder, seed: in.Seed, part: p.Load.Stripe()}
	if s.seed == 0 {
		s.seed = rand.Uint64()
	}
	count := make([]int, len(p.Endpoints))
	for i, e := range t.Entries {
		k := i
		if in.Targets != nil {
			var ok bool
			if k, ok = index[e.Name]; !ok {
				return nil, fmt.Errorf("plan: %s: entry %q is in no endpoint of the plan (group the targets with GroupTargets)", t.Where(i), e.Name)
			}
		}
		c, err := compileEntry(e, k, fields)
		if err != nil {
			return nil, fmt.Errorf("plan: %s: %w", t.Where(i), err)
		}
		s.uses.add(c.uses)
		s.entries = append(s.entries, c)
		count[k]++
	}
	if in.Data != nil && !s.uses.row {
		return nil, fmt.Errorf("plan: data file %s: no template reads its fields (e.g. {{.%s}})", in.Data.Name, in.Data.Columns[0])
	}
	if p.Endpoints[0].Weight > 0 {
		w := make([]float64, len(s.entries))
		for i, c := range s.entries {
			w[i] = p.Endpoints[c.endpoint].Weight / float64(count[c.endpoint])
		}
		s.weights = newAliasTable(w)
	}
	s.random = p.Traffic.Order == Random
	if s.weights == nil && !s.random && s.static() {
		st := &StaticSource{}
		for _, c := range s.entries {
			st.reqs = append(st.reqs, result.Request{
				Endpoint: c.endpoint, Method: c.method, Scheme: c.scheme, Host: c.host,
				Path: c.path.segs0(), Header: c.header, Body: c.body.segs0(),
			})
		}
		return st, nil
	}
	return s, nil
}

// templateSource picks an entry for each request and renders it into the sender's buffers. It is
// safe for concurrent use: the counters are atomic and each sender keeps its own state in the
// Request.
type templateSource struct {
	entries   []entry
	weights   *aliasTable // nil: unweighted
	random    bool        // unweighted: pick at random rather than in turn
	data      *Data
	dataOrder DataOrder
	uses      uses
	seed      uint64
	streams   atomic.Uint64 // senders seen, each a stream of the generator
	seq       atomic.Uint64 // {{seq}}
	rows      atomic.Uint64 // rows handed out (sequential and unique data)
	// part is the stripe of rows unique data takes from (an execution segment's); nil: every row.
	part *schedule.Stripe
}

// entry is one compiled request.
type entry struct {
	endpoint             int
	method, scheme, host string
	path                 *Template
	header               []result.RequestHeader // the values of static headers
	hdrT                 []*Template            // per header: nil when static
	body                 *Template              // nil for no body
	uses                 uses
}

// segs0 returns the text of a template without actions (nil for none).
func (t *Template) segs0() []byte {
	if t == nil || len(t.segs) == 0 {
		return nil
	}
	return t.segs[0].lit
}

// compileEntry compiles entry e of endpoint k. Every request of a target, setup or data-templated
// file, and every endpoint, is compiled here, so a URL's user-info becomes Basic authorization
// here for all of them, as the plan's own endpoints get it from Normalized.
func compileEntry(e Endpoint, k int, fields []string) (entry, error) {
	e.URL, e.Header = basicAuth(e.URL, e.Header)
	origin, path := splitTemplatedURL(e.URL)
	scheme, host, _ := strings.Cut(origin, "://")
	scheme = strings.ToLower(scheme) // HTTP://, as curl takes it
	if !HasTemplate(e.URL) {
		u, err := url.Parse(e.URL)
		if err != nil {
			return entry{}, fmt.Errorf("URL %q: %w", RedactURL(e.URL), unwrapURLError(err))
		}
		scheme, host, path = u.Scheme, u.Host, u.RequestURI()
	}
	c := entry{endpoint: k, method: strings.ToUpper(e.Method), scheme: scheme, host: host}
	if c.method == "" {
		c.method = "GET"
	}
	var err error
	if c.path, err = ParseTemplate(path, fields); err != nil {
		return c, fmt.Errorf("URL %q: %w", RedactURL(e.URL), err)
	}
	c.uses.add(c.path.uses)
	c.header = e.Header
	for i, h := range e.Header {
		if !HasTemplate(h.Value) {
			continue
		}
		if c.hdrT == nil {
			c.hdrT = make([]*Template, len(e.Header))
		}
		if c.hdrT[i], err = ParseTemplate(h.Value, fields); err != nil {
			return c, fmt.Errorf("header %s: %w", h.Name, err)
		}
		c.uses.add(c.hdrT[i].uses)
	}
	if e.Body != nil {
		if c.body, err = ParseTemplate(string(e.Body), fields); err != nil {
			return c, fmt.Errorf("body: %w", err)
		}
		c.uses.add(c.body.uses)
	}
	return c, nil
}

// static reports whether no entry has an action: every request of an entry is the same.
func (s *templateSource) static() bool {
	for _, c := range s.entries {
		if !c.path.Static() || c.hdrT != nil || (c.body != nil && !c.body.Static()) {
			return false
		}
	}
	return true
}

// senderState is what one sender keeps in Request.SourceState.
type senderState struct {
	g                *gen
	path, body, hbuf []byte
	hdrs             []result.RequestHeader
	ends             []int
}

// Fill implements Source. It returns an error wrapping ErrDataExhausted when unique data ran out.
func (s *templateSource) Fill(i uint64, r *result.Request) error {
	st, _ := r.SourceState.(*senderState)
	if st == nil {
		st = &senderState{g: newGen(s.seed, s.streams.Add(1))}
		r.SourceState = st
	}
	g := st.g
	var k int
	switch {
	case s.weights != nil:
		k = s.weights.pick(g.rng)
	case s.random:
		k = g.rng.IntN(len(s.entries))
	default:
		k = int(i % uint64(len(s.entries)))
	}
	e := &s.entries[k]
	if e.uses.seq {
		g.seq = s.seq.Add(1) - 1
	}
	if e.uses.now {
		g.now = time.Now()
	}
	if e.uses.row {
		if err := s.pickRow(g); err != nil {
			return err
		}
	}
	r.Endpoint, r.Method, r.Scheme, r.Host = e.endpoint, e.method, e.scheme, e.host
	st.path = e.path.appendTo(st.path[:0], g)
	r.Path = st.path
	r.Header = e.header
	if e.hdrT != nil {
		r.Header = st.renderHeaders(e)
	}
	r.Body = nil
	if e.body != nil {
		st.body = e.body.appendTo(st.body[:0], g)
		r.Body = st.body
	}
	return nil
}

// renderHeaders renders e's header values into the sender's buffer. The values are strings that
// share the buffer's memory (no copy): they stay valid until the next Fill overwrites it, which
// the Request's contract allows (a Transport keeps no reference after Do).
func (st *senderState) renderHeaders(e *entry) []result.RequestHeader {
	st.hbuf, st.ends = st.hbuf[:0], st.ends[:0]
	for j, h := range e.header {
		if t := e.hdrT[j]; t != nil {
			st.hbuf = t.appendTo(st.hbuf, st.g)
		} else {
			st.hbuf = append(st.hbuf, h.Value...)
		}
		st.ends = append(st.ends, len(st.hbuf))
	}
	st.hdrs = st.hdrs[:0]
	start := 0
	for j, h := range e.header {
		v := ""
		if end := st.ends[j]; end > start {
			v = unsafe.String(&st.hbuf[start], end-start)
		}
		st.hdrs = append(st.hdrs, result.RequestHeader{Name: h.Name, Value: v})
		start = st.ends[j]
	}
	return st.hdrs
}

// pickRow sets g.row to the request's row of data.
func (s *templateSource) pickRow(g *gen) error {
	n := uint64(s.data.Len())
	var k uint64
	switch s.dataOrder {
	case DataRandom:
		k = g.rng.Uint64N(n)
	case DataUnique:
		k = s.part.Global(s.rows.Add(1) - 1) // a segment takes the rows it owns, the others theirs
		if k >= n {
			if s.part != nil {
				return fmt.Errorf("plan: data file %s: %w: each of the %d of its %d rows this segment owns was used once (--data-order unique)", s.data.Name, ErrDataExhausted, s.part.Count(n), n)
			}
			return fmt.Errorf("plan: data file %s: %w: each of its %d rows was used once (--data-order unique)", s.data.Name, ErrDataExhausted, n)
		}
	default:
		k = (s.rows.Add(1) - 1) % n
	}
	g.row = s.data.rows[k]
	return nil
}
