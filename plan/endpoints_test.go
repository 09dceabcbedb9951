package plan

import (
	"fmt"
	"strings"
	"testing"
)

func TestParseEndpoint(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in                string
		name, method, url string
	}{
		{"http://127.0.0.1:8080/", "", "", "http://127.0.0.1:8080/"},
		{"GET http://127.0.0.1:8080/a?b=c", "", "GET", "http://127.0.0.1:8080/a?b=c"},
		{"get=GET http://127.0.0.1:8080/v0/entity?id={{randInt 1 1e8}}", "get", "GET", "http://127.0.0.1:8080/v0/entity?id={{randInt 1 1e8}}"},
		{"put=http://127.0.0.1:8080/?x=1", "put", "", "http://127.0.0.1:8080/?x=1"},
		{"http://127.0.0.1:8080/?id=1", "", "", "http://127.0.0.1:8080/?id=1"}, // "=" in the query is no name
		{"  n=DELETE  http://[::1]:1/  ", "n", "DELETE", "http://[::1]:1/"},
	}
	for _, tt := range tests {
		e, err := ParseEndpoint(tt.in)
		if err != nil {
			t.Errorf("ParseEndpoint(%q): %v", tt.in, err)
			continue
		}
		if e.Name != tt.name || e.Method != tt.method || e.URL != tt.url {
			t.Errorf("ParseEndpoint(%q): got %q %q %q; want %q %q %q", tt.in, e.Name, e.Method, e.URL, tt.name, tt.method, tt.url)
		}
	}
	for _, bad := range []string{"", "get=", "get=GET /x", "GET", "a=b=c", "GET http://{{uuid}}/"} {
		if _, err := ParseEndpoint(bad); err == nil || !strings.Contains(err.Error(), "want [NAME=][METHOD ]URL") {
			t.Errorf("ParseEndpoint(%q): got %v; want an error that shows the form", bad, err)
		}
	}
}

func TestParseWeights(t *testing.T) {
	t.Parallel()
	w, err := ParseWeights("get=8, put=2,x=0.5")
	if err != nil || len(w) != 3 || w["get"] != 8 || w["put"] != 2 || w["x"] != 0.5 {
		t.Errorf("ParseWeights: got %v, %v; want get 8, put 2, x 0.5", w, err)
	}
	for _, tt := range []struct{ in, want string }{
		{"get", "want NAME=WEIGHT"},
		{"=3", "want NAME=WEIGHT"},
		{"get=0", "want a number above 0"},
		{"get=-1", "want a number above 0"},
		{"get=NaN", "want a number above 0"},
		{"get=1,get=2", "given twice"},
	} {
		if _, err := ParseWeights(tt.in); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseWeights(%q): got %v; want an error with %q", tt.in, err, tt.want)
		}
	}
}

func TestGroupTargets(t *testing.T) {
	t.Parallel()
	tg := &Targets{}
	tg.Add(Endpoint{Method: "GET", URL: "http://h/items?id=1"}, "a")
	tg.Add(Endpoint{Method: "GET", URL: "http://h/items?id=2"}, "b")
	tg.Add(Endpoint{Name: "make", Method: "POST", URL: "http://h/items", Weight: 2}, "c")
	tg.Add(Endpoint{Name: "make", Method: "POST", URL: "http://h/other"}, "d")
	eps, err := GroupTargets(tg)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range eps {
		got = append(got, fmt.Sprintf("%s/%v", e.Name, e.Weight))
	}
	if want := "GET /items/0 make/2"; strings.Join(got, " ") != want {
		t.Errorf("endpoints: got %q; want %q", strings.Join(got, " "), want)
	}

	// a file of many distinct paths groups by method rather than make an endpoint per path
	many := &Targets{}
	for i := range 40 {
		many.Add(Endpoint{Method: []string{"GET", "PUT"}[i%2], URL: fmt.Sprintf("http://h/items/%d", i)}, "x")
	}
	if eps, err := GroupTargets(many); err != nil || len(eps) != 2 || eps[0].Name != "GET" || eps[1].Name != "PUT" {
		t.Errorf("40 distinct paths: got %+v, %v; want the endpoints GET and PUT", eps, err)
	}

	conflict := &Targets{}
	conflict.Add(Endpoint{Name: "n", URL: "http://h/", Weight: 1}, "t.txt:1")
	conflict.Add(Endpoint{Name: "n", URL: "http://h/", Weight: 3}, "t.txt:4")
	if _, err := GroupTargets(conflict); err == nil || !strings.Contains(err.Error(), "t.txt:4: weight 3") {
		t.Errorf("conflicting weights: got %v; want an error at t.txt:4", err)
	}
}

func TestValidateTraffic(t *testing.T) {
	t.Parallel()
	p := Plan{
		Endpoints: []Endpoint{{Name: "a", URL: "http://h/", Weight: 1}, {Name: "b", URL: "http://h/?{{seq}}"}, {URL: "http://{{uuid}}/", Weight: -1}},
		Traffic:   Traffic{Order: "zigzag", DataOrder: "unique", TargetsFormat: "yaml", SetupCount: 3, RewriteHost: true},
	}
	err := p.Validate()
	if err == nil {
		t.Fatal("Validate: got nil; want every problem")
	}
	for _, want := range []string{`targets format "yaml"`, `targets order "zigzag"`, "data order \"unique\" without a data file",
		"setup count 3 without a setup file", "endpoint 3: weight -1", "endpoint 3: URL", "not in its scheme or host", "weights: b has no weight",
		"rewrite_host without a target or setup file"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Validate: got %v; want it to say %q", err, want)
		}
	}
}

func FuzzParseEndpoint(f *testing.F) {
	for _, s := range []string{"get=GET http://h/?id={{randInt 1 1e8}}", "http://h/", "=", "a=b c", "GET  http://h"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := ParseEndpoint(s)
		if err != nil {
			return
		}
		if err := checkTemplatedURL(e.URL); err != nil {
			t.Fatalf("ParseEndpoint(%q) took URL %q, which fails its own check: %v", s, e.URL, err)
		}
	})
}

func FuzzParseWeights(f *testing.F) {
	for _, s := range []string{"get=8,put=2", "a=1e3", ",", "a=", "a=1,a=1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		w, err := ParseWeights(s)
		if err != nil {
			return
		}
		for name, v := range w {
			if name == "" || !(v > 0) {
				t.Fatalf("ParseWeights(%q): got %q=%v; want a name and a weight above 0", s, name, v)
			}
		}
	})
}
