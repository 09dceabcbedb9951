package diff

import (
	"bytes"
	"fmt"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/transport"
)

// FromTargets renders n requests from the entries of target file file (plan.LoadTargets) in turn,
// with their templates — every entry once per round, whatever its weight — each with its own
// path, labelled by its JSON-RPC method when its body holds one, else by its endpoint's name, and
// placed at its file and line. n 0: each entry once.
func FromTargets(t *plan.Targets, file string, n int) ([]Request, error) {
	for i := range t.Entries {
		t.Entries[i].Weight = 0 // every entry in turn, whatever its weight
	}
	eps, err := plan.GroupTargets(t)
	if err != nil {
		return nil, err
	}
	p := plan.Plan{Endpoints: eps, Traffic: plan.Traffic{Targets: file, Order: plan.Order("sequential")}}.Normalized()
	src, err := plan.NewSource(p, plan.Inputs{Targets: t})
	if err != nil {
		return nil, err
	}
	if n == 0 {
		n = len(t.Entries)
	}
	return render(src, n, func(i int, r *transport.Request) (string, string) {
		label := LabelOf(r.Body)
		if label == "" {
			label = p.Endpoints[r.Endpoint].Name
		}
		return label, t.Where(i % len(t.Entries))
	}, true)
}

// FromCalls renders n JSON-RPC requests of calls in turn (every call once per round, whatever its
// weight), to url's own path with header; from names where the calls came from ("calls.jsonl",
// "--jsonrpc") for the requests' places. n 0: each call once.
func FromCalls(url string, header []transport.Header, calls []plan.Call, from string, n int) ([]Request, error) {
	for i := range calls {
		calls[i].Weight = 0 // every call in turn
	}
	eps, err := plan.JSONRPCEndpoints(url, header, calls, 0)
	if err != nil {
		return nil, err
	}
	eps = plan.Plan{Endpoints: eps}.Normalized().Endpoints
	src, err := plan.NewJSONRPCSource(eps, calls, 0)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		n = len(calls)
	}
	return render(src, n, func(i int, r *transport.Request) (string, string) {
		return eps[r.Endpoint].Name, fmt.Sprintf("%s call %d", from, i%len(calls)+1)
	}, false)
}

// render fills n requests from src, copying what the source may reuse. withPath keeps each
// request's own path (targets); without it the request goes to each URL's own path (calls).
func render(src plan.Source, n int, label func(i int, r *transport.Request) (string, string), withPath bool) ([]Request, error) {
	reqs := make([]Request, 0, n)
	var r transport.Request
	for i := range n {
		if err := src.Fill(uint64(i), &r); err != nil {
			return nil, err
		}
		q := Request{ID: i + 1, Method: r.Method, Header: append([]transport.Header(nil), r.Header...), Body: bytes.Clone(r.Body)}
		if withPath {
			q.Path = string(r.Path)
		}
		q.Label, q.Where = label(i, &r)
		reqs = append(reqs, q)
	}
	return reqs, nil
}
