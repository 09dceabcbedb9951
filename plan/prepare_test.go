package plan

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/rpcbench/rpcbench/transport"
)

func TestPrepareReadsFilesThroughFS(t *testing.T) {
	fsys := fstest.MapFS{
		"t/targets.http": {Data: []byte("# name: get\nGET http://127.0.0.1:1/x?id={{.id}}\n\n# name: put\nPUT http://127.0.0.1:1/x\n@put.json\n")},
		"t/put.json":     {Data: []byte(`{"a":1}`)},
		"ids.csv":        {Data: []byte("id\n5\n6\n")},
		"setup.http":     {Data: []byte("POST http://127.0.0.1:1/s?id={{.id}}\n")},
	}
	p := Plan{
		Traffic: Traffic{Targets: "t/targets.http", Data: "ids.csv", Setup: "setup.http", SetupCount: 3,
			Weights: map[string]float64{"get": 3, "put": 1}, Header: []transport.Header{{Name: "X-A", Value: "1"}}},
		Load: Load{Rate: 10, Requests: 4},
	}
	prep, err := Prepare(p, fsys)
	if err != nil {
		t.Fatal(err)
	}
	eps := prep.Plan.Endpoints
	if len(eps) != 2 || eps[0].Name != "get" || eps[1].Name != "put" || eps[0].Weight != 3 || eps[1].Weight != 1 {
		t.Fatalf("endpoints %+v; want get (weight 3) and put (weight 1)", eps)
	}
	var r transport.Request
	sawPut := false
	for i := uint64(0); i < 200 && !sawPut; i++ {
		if err := prep.Source.Fill(i, &r); err != nil {
			t.Fatal(err)
		}
		if len(r.Header) != 1 || r.Header[0].Name != "X-A" {
			t.Fatalf("request %d headers %v; want the plan's X-A added", i, r.Header)
		}
		if r.Method == "PUT" {
			sawPut = true
			if string(r.Body) != `{"a":1}` {
				t.Errorf("PUT body %q; want put.json's, read relative to the target file", r.Body)
			}
		} else if p := string(r.Path); p != "/x?id=5" && p != "/x?id=6" {
			t.Errorf("GET path %q; want an id of the data file", p)
		}
	}
	if !sawPut {
		t.Error("no PUT in 200 requests at weights 3:1")
	}
	if prep.Setup == nil {
		t.Fatal("no setup phase")
	}
	sl := prep.Setup.Plan.Load
	if sl.Model != Closed || sl.Requests != 3 || sl.Connections != 3 {
		t.Errorf("setup load %+v; want closed, 3 requests over 3 connections", sl)
	}
	for i, want := range []string{"/s?id=5", "/s?id=6", "/s?id=5"} {
		if err := prep.Setup.Source.Fill(uint64(i), &r); err != nil {
			t.Fatal(err)
		}
		if string(r.Path) != want {
			t.Errorf("setup request %d: path %q; want %q (the data rows in turn)", i, r.Path, want)
		}
	}
	if prep.Verifier != nil {
		t.Errorf("verifier %+v; want none for a plan without checks", prep.Verifier)
	}
}

func TestPrepareJSONRPC(t *testing.T) {
	fsys := fstest.MapFS{"calls.jsonl": {Data: []byte(`{"method":"a"}` + "\n" + `{"method":"b","params":[1]}` + "\n")}}
	p := Plan{
		Endpoints: []Endpoint{{URL: "http://127.0.0.1:1/"}},
		JSONRPC:   JSONRPC{CallsFile: "calls.jsonl"},
		Traffic:   Traffic{Weights: map[string]float64{"a": 1, "b": 3}},
		Checks:    Checks{Status: "200", Body: []string{"json result exists"}},
		Load:      Load{Connections: 1, Requests: 10},
	}
	prep, err := Prepare(p, fsys)
	if err != nil {
		t.Fatal(err)
	}
	eps := prep.Plan.Endpoints
	if len(eps) != 2 || eps[0].Name != "a" || eps[1].Name != "b" || eps[0].Method != "POST" || eps[1].Weight != 3 {
		t.Fatalf("endpoints %+v; want POST a and b, b of weight 3", eps)
	}
	v := prep.Verifier
	if v == nil || !v.JSONRPC || len(v.Checks) != 1 || !v.Status.Has(200) || v.Status.Has(201) {
		t.Fatalf("verifier %+v; want JSON-RPC answers, status 200 only, one check", v)
	}
	var r transport.Request
	if err := prep.Source.Fill(0, &r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(r.Body), `"jsonrpc":"2.0"`) {
		t.Errorf("body %s; want a JSON-RPC call", r.Body)
	}
}

func TestPrepareErrors(t *testing.T) {
	fsys := fstest.MapFS{
		"t.http":     {Data: []byte("GET http://127.0.0.1:1/\n")},
		"bad.http":   {Data: []byte("GET http://127.0.0.1:1/\nGTE /\n")},
		"calls.json": {Data: []byte("{\"method\":\"a\"}\n")},
		"d.csv":      {Data: []byte("id\n1\n")},
	}
	url := "http://127.0.0.1:1/"
	tests := []struct {
		name  string
		p     Plan
		input string // the InputError's Input; empty: another error
		want  string
	}{
		{"missing targets", Plan{Traffic: Traffic{Targets: "nope.http"}}, "targets", "nope.http"},
		{"bad target line", Plan{Traffic: Traffic{Targets: "bad.http"}}, "targets", "bad.http:2"},
		{"targets and endpoints", Plan{Endpoints: []Endpoint{{URL: url}}, Traffic: Traffic{Targets: "t.http"}}, "", "give one of them"},
		{"unknown weight", Plan{Endpoints: []Endpoint{{Name: "a", URL: url}}, Traffic: Traffic{Weights: map[string]float64{"b": 1}}}, "weights", "no endpoint named b"},
		{"unknown call weight", Plan{Endpoints: []Endpoint{{URL: url}}, JSONRPC: JSONRPC{CallsFile: "calls.json"}, Traffic: Traffic{Weights: map[string]float64{"b": 1}}}, "weights", `no call is named "b"`},
		{"missing calls", Plan{Endpoints: []Endpoint{{URL: url}}, JSONRPC: JSONRPC{CallsFile: "nope.json"}}, "calls", "nope.json"},
		{"calls to two endpoints", Plan{Endpoints: []Endpoint{{URL: url}, {URL: url + "x"}}, JSONRPC: JSONRPC{Calls: []Call{{Method: "a"}}}}, "", "one URL"},
		{"calls and a body", Plan{Endpoints: []Endpoint{{URL: url, Body: []byte("x")}}, JSONRPC: JSONRPC{Calls: []Call{{Method: "a"}}}}, "", "drop the endpoint's body"},
		{"calls with data", Plan{Endpoints: []Endpoint{{URL: url}}, JSONRPC: JSONRPC{Calls: []Call{{Method: "a"}}}, Traffic: Traffic{Data: "d.csv"}}, "", "cannot read data fields"},
		{"WebSocket without calls", Plan{Endpoints: []Endpoint{{URL: "ws://127.0.0.1:1/"}}}, "", "a WebSocket URL carries JSON-RPC calls"},
		{"missing data", Plan{Endpoints: []Endpoint{{URL: url + "?id={{.id}}"}}, Traffic: Traffic{Data: "nope.csv"}}, "data", "nope.csv"},
		{"bad check", Plan{Endpoints: []Endpoint{{URL: url}}, Checks: Checks{Body: []string{"json exists"}}}, "", "check 1"},
		{"bad status", Plan{Endpoints: []Endpoint{{URL: url}}, Checks: Checks{Status: "20"}}, "", "expected status"},
		{"missing setup", Plan{Endpoints: []Endpoint{{URL: url}}, Traffic: Traffic{Setup: "nope.http"}}, "setup", "nope.http"},
		{"invalid plan", Plan{Endpoints: []Endpoint{{URL: url}}, Load: Load{Rate: -1}}, "", "rate -1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Prepare(tc.p, fsys)
			if err == nil {
				t.Fatalf("Prepare accepted %+v", tc.p)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q; want it to say %q", err, tc.want)
			}
			var ie *InputError
			if got := errors.As(err, &ie); got != (tc.input != "") || got && ie.Input != tc.input {
				t.Errorf("error %q: InputError %v (%+v); want input %q", err, got, ie, tc.input)
			}
		})
	}
}

// TestPrepareLeavesThePlanAlone checks that Prepare writes nothing into the caller's plan: the
// header it adds to every endpoint goes into copies.
func TestPrepareLeavesThePlanAlone(t *testing.T) {
	h := make([]transport.Header, 1, 4)
	h[0] = transport.Header{Name: "X-A", Value: "1"}
	p := Plan{
		Endpoints: []Endpoint{{URL: "http://127.0.0.1:1/a", Header: h}, {URL: "http://127.0.0.1:1/b", Header: h}},
		Traffic:   Traffic{Header: []transport.Header{{Name: "X-B", Value: "2"}}},
	}
	prep, err := Prepare(p, fstest.MapFS{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Endpoints[0].Header) != 1 || h[:2][1].Name != "" {
		t.Errorf("the caller's headers changed: %v / %v", p.Endpoints[0].Header, h[:2])
	}
	for _, e := range prep.Plan.Endpoints {
		if len(e.Header) != 2 || e.Header[1].Name != "X-B" {
			t.Errorf("endpoint %s headers %v; want X-A and X-B", e.Name, e.Header)
		}
	}
}
