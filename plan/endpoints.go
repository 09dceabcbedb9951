package plan

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/rpcbench/rpcbench/result"
)

// Order says how requests pick their entry (target or endpoint) when no weights are given.
type Order string

// The orders.
const (
	// Sequential takes the entries in turn: arrival i gets entry i mod n (the default).
	Sequential Order = "sequential"
	// Random takes an entry at random for each request.
	Random Order = "random"
)

// Traffic says where requests come from beyond the endpoints as given. The zero value sends the
// endpoints in turn, with no target file, no data and no setup.
type Traffic struct {
	// Targets names the target file the requests were read from ("-": standard input); its entries
	// are grouped into the plan's endpoints by name (see GroupTargets).
	Targets string `json:"targets,omitempty"`
	// TargetsFormat is the target file's format, TargetsHTTP or TargetsJSON; empty: told by content.
	TargetsFormat string `json:"targets_format,omitempty"`
	// Order is how entries are taken when no endpoint has a weight; default Sequential.
	Order Order `json:"order,omitempty"`
	// Data names the data file whose rows templates read as {{.field}}.
	Data string `json:"data,omitempty"`
	// DataOrder is how rows are read; default DataSequential when there is a data file.
	DataOrder DataOrder `json:"data_order,omitempty"`
	// Setup names a target file sent before the measured run, outside the figures.
	Setup string `json:"setup,omitempty"`
	// SetupCount is the number of setup requests; 0 sends each setup entry once.
	SetupCount uint64 `json:"setup_count,omitempty"`
	// Weights set the share of the endpoints (or of the JSON-RPC calls) by name, after the target
	// or calls file is read: an endpoint's share is its weight over the sum.
	Weights map[string]float64 `json:"weights,omitempty"`
	// Header is added to every request of the endpoints, the target file and the setup file that
	// lacks a header of its name (as -H adds to each entry of a target file).
	Header []result.RequestHeader `json:"header,omitempty"`
	// Base, when set, is the URL that the relative URLs of the target and setup files
	// ("GET /v0/items", see JoinURL) are relative to; a plan file sets it to each target's URL.
	// Their absolute URLs must then name Base's scheme and host, so that a run against a target
	// goes to that target, unless RewriteHost.
	Base string `json:"base,omitempty"`
	// RewriteHost sends the absolute URLs of the target and setup files that name another scheme
	// and host than Base's to Base's: their scheme, user-info and host are replaced by Base's,
	// their path and query stay (e.g. a file written by `rpcbench gen` from one node, run against
	// every target of a plan file).
	RewriteHost bool `json:"rewrite_host,omitempty"`
}

// normalized fills in the defaults of t.
func (t Traffic) normalized() Traffic {
	if t.Order == "" {
		t.Order = Sequential
	}
	if t.Data != "" && t.DataOrder == "" {
		t.DataOrder = DataSequential
	}
	return t
}

// validateTraffic returns the problems of the traffic settings and of the endpoints' weights and
// templates.
func (p Plan) validateTraffic() []error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf("plan: "+format, a...)) }
	t := p.Traffic
	switch t.TargetsFormat {
	case "", TargetsHTTP, TargetsJSON:
	default:
		bad("targets format %q: want http or json", t.TargetsFormat)
	}
	switch t.Order {
	case "", Sequential, Random:
	default:
		bad("targets order %q: want sequential or random", t.Order)
	}
	switch t.DataOrder {
	case "", DataSequential, DataRandom, DataUnique:
	default:
		bad("data order %q: want sequential, random or unique", t.DataOrder)
	}
	if t.DataOrder != "" && t.Data == "" {
		bad("data order %q without a data file: give the data file too", t.DataOrder)
	}
	if t.SetupCount > 0 && t.Setup == "" {
		bad("setup count %d without a setup file: give the setup file too", t.SetupCount)
	}
	if t.RewriteHost && t.Targets == "" && t.Setup == "" {
		bad("rewrite_host without a target or setup file: it sends their URLs to the target's host")
	}
	weighted := 0
	for i, e := range p.Endpoints {
		if e.Weight < 0 || math.IsNaN(e.Weight) || math.IsInf(e.Weight, 0) {
			bad("endpoint %d: weight %v: want a number above 0", i+1, e.Weight)
		}
		if e.Weight > 0 {
			weighted++
		}
		if HasTemplate(e.URL) {
			if err := checkTemplatedURL(e.URL); err != nil {
				bad("endpoint %d: URL %q: %v", i+1, RedactURL(e.URL), err)
			}
		}
	}
	if weighted > 0 && weighted < len(p.Endpoints) {
		var none []string
		for _, e := range p.Endpoints {
			if e.Weight == 0 {
				none = append(none, EndpointLabel(e))
			}
		}
		verb := "has"
		if len(none) > 1 {
			verb = "have"
		}
		bad("weights: %s %s no weight; give every endpoint a weight, or none", strings.Join(none, ", "), verb)
	}
	return errs
}

// EndpointLabel names an endpoint in messages: its name, else its URL.
func EndpointLabel(e Endpoint) string {
	if e.Name != "" {
		return e.Name
	}
	return e.URL
}

// ParseEndpoint reads an endpoint as "[NAME=][METHOD ]URL", e.g.
// "get=GET http://127.0.0.1:8080/v0/entity?id={{randInt 1 1e8}}". Without a method the endpoint
// takes the default (GET, or --method).
func ParseEndpoint(s string) (Endpoint, error) {
	var e Endpoint
	rest := strings.TrimSpace(s)
	if name, after, ok := strings.Cut(rest, "="); ok && name != "" && !strings.ContainsAny(name, " \t:/?{") {
		e.Name, rest = name, strings.TrimSpace(after)
	}
	if m, u, ok := strings.Cut(rest, " "); ok && isToken(m) && !strings.Contains(m, "{{") {
		e.Method, rest = m, strings.TrimSpace(u)
	}
	if err := checkTemplatedURL(rest); err != nil {
		return Endpoint{}, fmt.Errorf("%q: want [NAME=][METHOD ]URL, e.g. get=GET http://127.0.0.1:8080/: %v", s, err)
	}
	e.URL = rest
	return e, nil
}

// ParseWeights reads "NAME=W,…", e.g. "get=8,put=2", into weights by endpoint name.
func ParseWeights(s string) (map[string]float64, error) {
	w := map[string]float64{}
	for _, part := range strings.Split(s, ",") {
		name, val, ok := strings.Cut(strings.TrimSpace(part), "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return nil, fmt.Errorf("%q: want NAME=WEIGHT,…, e.g. get=8,put=2", part)
		}
		v, err := parseWeight(val)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		if _, dup := w[name]; dup {
			return nil, fmt.Errorf("%s: weight given twice", name)
		}
		w[name] = v
	}
	return w, nil
}

// ApplyWeights sets the weights of the endpoints named in w; a name that no endpoint has is an
// error that lists the names there are.
func ApplyWeights(endpoints []Endpoint, w map[string]float64) error {
	var unknown []string
	for name, v := range w {
		found := false
		for i := range endpoints {
			if endpoints[i].Name == name {
				endpoints[i].Weight, found = v, true
			}
		}
		if !found {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	sort.Strings(unknown)
	var names []string
	for _, e := range endpoints {
		if e.Name != "" {
			names = append(names, e.Name)
		}
	}
	if len(names) == 0 {
		return fmt.Errorf("no endpoint named %s: the endpoints have no names; name them as NAME=METHOD URL (or # name: in a target file)", strings.Join(unknown, ", "))
	}
	return fmt.Errorf("no endpoint named %s; the names are %s", strings.Join(unknown, ", "), strings.Join(names, ", "))
}

// maxAutoEndpoints bounds the endpoints made from unnamed targets: each endpoint keeps its own
// histograms, so a file of a million distinct URLs must not make a million of them.
const maxAutoEndpoints = 16

// GroupTargets groups the entries of t into endpoints, one per name, in order of first
// appearance, and returns them. Unnamed entries are named "METHOD path" (query left out), or just
// "METHOD" when that would make more than 16 endpoints; GroupTargets writes those names into
// t.Entries. An endpoint takes its method and URL from its first entry, and its weight from its
// entries (which must agree).
func GroupTargets(t *Targets) ([]Endpoint, error) {
	auto := map[string]bool{}
	for _, e := range t.Entries {
		if e.Name == "" {
			auto[autoName(e, true)] = true
		}
	}
	byPath := len(auto) <= maxAutoEndpoints
	var eps []Endpoint
	index := map[string]int{}
	for i := range t.Entries {
		e := &t.Entries[i]
		if e.Name == "" {
			e.Name = autoName(*e, byPath)
		}
		k, ok := index[e.Name]
		if !ok {
			k = len(eps)
			index[e.Name] = k
			eps = append(eps, Endpoint{Name: e.Name, Method: e.Method, URL: e.URL})
		}
		if e.Weight != 0 {
			if eps[k].Weight != 0 && eps[k].Weight != e.Weight {
				return nil, fmt.Errorf("plan: %s: weight %v for %q, which has weight %v already: give a name one weight", t.Where(i), e.Weight, e.Name, eps[k].Weight)
			}
			eps[k].Weight = e.Weight
		}
	}
	return eps, nil
}

// autoName names an unnamed entry: "METHOD path" without the query, or "METHOD".
func autoName(e Endpoint, withPath bool) string {
	m := strings.ToUpper(e.Method)
	if m == "" {
		m = "GET"
	}
	if !withPath {
		return m
	}
	_, path := splitTemplatedURL(e.URL)
	path, _, _ = strings.Cut(path, "?")
	return m + " " + path
}

// splitTemplatedURL splits "scheme://host/path?query" into "scheme://host" and "/path?query"
// ("/" when empty), leaving templates and escapes as they are.
func splitTemplatedURL(raw string) (origin, path string) {
	i := strings.Index(raw, "://")
	if i < 0 {
		return "", raw
	}
	j := strings.IndexAny(raw[i+3:], "/?")
	if j < 0 {
		return raw, "/"
	}
	origin, path = raw[:i+3+j], raw[i+3+j:]
	if path[0] == '?' {
		path = "/" + path
	}
	return origin, path
}
