package plan

import (
	"strings"
	"testing"

	"github.com/rpcbench/rpcbench/transport"
)

func TestPlanProtocol(t *testing.T) {
	t.Parallel()
	ep := func(urls ...string) []Endpoint {
		var eps []Endpoint
		for _, u := range urls {
			eps = append(eps, Endpoint{URL: u})
		}
		return eps
	}
	for _, tc := range []struct {
		name  string
		p     Plan
		proto transport.Protocol // after Normalized
		err   string             // "" for valid
	}{
		{"http defaults to HTTP/1.1", Plan{Endpoints: ep("http://127.0.0.1:1/a", "https://127.0.0.1:2/b")}, transport.HTTP1, ""},
		{"ws", Plan{Endpoints: []Endpoint{{Name: "a", URL: "ws://127.0.0.1:1/"}, {Name: "b", URL: "ws://127.0.0.1:1/"}}}, transport.WS, ""},
		{"h2c named", Plan{Endpoints: ep("http://127.0.0.1:1/"), Protocol: transport.H2C}, transport.H2C, ""},
		{"http and ws mixed", Plan{Endpoints: ep("http://127.0.0.1:1/a", "ws://127.0.0.1:1/b")}, transport.HTTP1,
			`endpoint 2: URL "ws://127.0.0.1:1/b": protocol http1 does not carry ws:// URLs; one run speaks one protocol`},
		{"ws to two URLs", Plan{Endpoints: ep("ws://127.0.0.1:1/a", "ws://127.0.0.1:1/b")}, transport.WS,
			"WebSocket endpoints must share one URL"},
		{"h2 cannot carry http", Plan{Endpoints: ep("http://127.0.0.1:1/"), Protocol: transport.H2}, transport.H2,
			`protocol h2 does not carry http:// URLs`},
		{"unknown protocol", Plan{Endpoints: ep("http://127.0.0.1:1/"), Protocol: "quic"}, "quic", `protocol "quic": want http1, h2, h2c, h3, grpc or ws`},
	} {
		n := tc.p.Normalized()
		if n.Protocol != tc.proto {
			t.Errorf("%s: protocol %q; want %q", tc.name, n.Protocol, tc.proto)
		}
		err := n.Validate()
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s: Validate() = %v; want %q", tc.name, err, tc.err)
		}
	}
}

// An uppercase scheme is taken as curl takes it: the request goes out over http, templated or not.
func TestUppercaseScheme(t *testing.T) {
	t.Parallel()
	p := Plan{Endpoints: []Endpoint{{Name: "a", URL: "HTTP://127.0.0.1:1/a"}, {Name: "b", URL: "Https://127.0.0.1:1/b?id={{seq}}"}}}.Normalized()
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	if p.Protocol != transport.HTTP1 || p.Endpoints[0].URL != "http://127.0.0.1:1/a" || p.Endpoints[1].URL != "https://127.0.0.1:1/b?id={{seq}}" {
		t.Errorf("protocol %q, URLs %q and %q; want http1 and lower-case schemes", p.Protocol, p.Endpoints[0].URL, p.Endpoints[1].URL)
	}
	src, err := NewSource(p, Inputs{})
	if err != nil {
		t.Fatal(err)
	}
	var r transport.Request
	for i := range uint64(2) {
		if err := src.Fill(i, &r); err != nil {
			t.Fatal(err)
		}
		if r.Scheme != "http" && r.Scheme != "https" {
			t.Errorf("request %d: scheme %q; want http or https", i, r.Scheme)
		}
	}
}
