package diff

import (
	"bytes"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/transport"
)

// Corpus is what a diff sends, drawn request by request as the engine's schedule asks: arrival i
// is filled by the source of the prepared plan (or by Fixed), so a target file's or a calls
// file's templates are rendered as the run goes, never the whole list ahead.
type Corpus struct {
	// Plan holds the endpoints under the first URL and what they send (a target file's entries,
	// JSON-RPC calls); its Load is the caller's (see Prepare).
	Plan plan.Plan
	// Size is the number of entries in one round: the default request count, each sent once
	// with one request in flight, when the load gives no count, duration or stages. 0: the load
	// as it is, with the plan's defaults.
	Size int
	// Fixed, when set, are the requests themselves (fixtures, with their expected answers), sent
	// in turn: arrival i is Fixed[i mod len].
	Fixed []Request
	// OwnPath sends each request to its own path under each URL (a target file); otherwise each
	// goes to the URL's own path.
	OwnPath bool
	// base is taken off the front of each request's path before it goes under each URL.
	base string
	// source fills the requests in place of the prepared plan's; where says where arrival i,
	// filled into r, was written.
	source plan.Source
	where  func(i uint64, r *transport.Request) string
	// byEndpoint labels the requests by their endpoint's name (a JSON-RPC call's name, else its
	// method), not by the method in their body.
	byEndpoint bool
}

// FromTargets is the corpus of target file file (plan.LoadTargets): every entry in turn, with
// its templates, whatever its weight, each to its own path, labelled by its JSON-RPC method when
// its body holds one, else by its endpoint's name, and placed at its file and line.
func FromTargets(t *plan.Targets, file string) (Corpus, error) {
	for i := range t.Entries {
		t.Entries[i].Weight = 0 // every entry in turn, whatever its weight
	}
	eps, err := plan.GroupTargets(t)
	if err != nil {
		return Corpus{}, err
	}
	p := plan.Plan{Endpoints: eps, Traffic: plan.Traffic{Targets: file, Order: plan.Order("sequential")}}
	src, err := plan.NewSource(p.Normalized(), plan.Inputs{Targets: t})
	if err != nil {
		return Corpus{}, err
	}
	p.Traffic.Targets = "" // read here: the run's plan holds the endpoints it grouped
	n := len(t.Entries)
	// the source takes the entries in turn by arrival: arrival i is entry i mod n
	return Corpus{Plan: p, Size: n, OwnPath: true, source: src, where: func(i uint64, _ *transport.Request) string { return t.Where(int(i % uint64(n))) }}, nil
}

// FromCalls is the corpus of JSON-RPC calls, every call in turn whatever its weight, to url's
// own path with header; from names where the calls came from ("calls.jsonl", "--jsonrpc") for
// the requests' places.
func FromCalls(url string, header []transport.Header, calls []plan.Call, from string) Corpus {
	for i := range calls {
		calls[i].Weight = 0 // every call in turn
	}
	n := len(calls)
	return Corpus{
		Plan: plan.Plan{Endpoints: []plan.Endpoint{{URL: url, Method: "POST", Header: header}}, JSONRPC: plan.JSONRPC{Calls: calls}},
		Size: n, byEndpoint: true,
		where: func(_ uint64, r *transport.Request) string {
			// the source takes the calls in turn by the id it gives them, from 1: call (id-1) mod n
			id, ok := callID(r.Body)
			if !ok {
				return ""
			}
			return fmt.Sprintf("%s call %d", from, (id-1)%uint64(n)+1)
		},
	}
}

// callID reads the id of a JSON-RPC call as plan's JSON-RPC source writes it: {"jsonrpc":"2.0","id":N,…}.
func callID(body []byte) (uint64, bool) {
	_, rest, ok := bytes.Cut(body, []byte(`"id":`))
	if !ok {
		return 0, false
	}
	end := 0
	for end < len(rest) && rest[end] >= '0' && rest[end] <= '9' {
		end++
	}
	id, err := strconv.ParseUint(string(rest[:end]), 10, 64)
	return id, err == nil && id > 0
}

// FromPlan is the corpus of a plan's requests (a plan file's scenario against the primary, whose
// URL is primary): whatever the plan sends — its endpoints, target file, data, JSON-RPC calls —
// drawn from its prepared source, its load the plan's own. JSON-RPC calls go to each URL's own
// path; any other request to its path under each URL, the primary's own path taken off first.
func FromPlan(p plan.Plan, primary string) Corpus {
	c := Corpus{Plan: p, OwnPath: !p.JSONRPC.On(), byEndpoint: p.JSONRPC.On()}
	if u, err := url.Parse(primary); err == nil {
		c.base = strings.TrimSuffix(u.Path, "/")
	}
	return c
}

// FromList is the corpus of reqs (fixtures, or requests made by hand), sent in turn to url: one
// endpoint per label, so that the run's figures are per method too.
func FromList(url string, reqs []Request) Corpus {
	src := &listSource{reqs: reqs, endpoint: make([]int, len(reqs))}
	c := Corpus{Fixed: reqs, Size: len(reqs), OwnPath: true, source: src}
	index := map[string]int{}
	for i, q := range reqs {
		k, ok := index[q.Label]
		if !ok {
			k = len(c.Plan.Endpoints)
			index[q.Label] = k
			c.Plan.Endpoints = append(c.Plan.Endpoints, plan.Endpoint{Name: q.Label, URL: url, Method: orPOST(q.Method), Body: q.Body})
		}
		src.endpoint[i] = k
	}
	return c
}

func orPOST(method string) string {
	if method == "" {
		return "POST"
	}
	return method
}

// listSource fills arrival i with reqs[i mod len], its endpoint that of its label.
type listSource struct {
	reqs     []Request
	endpoint []int
}

func (s *listSource) Fill(i uint64, r *transport.Request) error {
	k := int(i % uint64(len(s.reqs)))
	q := &s.reqs[k]
	r.Endpoint, r.Method, r.Header, r.Body = s.endpoint[k], orPOST(q.Method), q.Header, q.Body
	r.Path = append(r.Path[:0], q.Path...)
	if len(r.Path) == 0 {
		r.Path = append(r.Path, '/')
	}
	return nil
}
