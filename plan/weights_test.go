package plan

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/rpcbench/rpcbench/transport"
)

// TestWeightsHold draws 10,000 picks and checks each endpoint's count against its binomial
// distribution: n·p ± 5σ, σ = sqrt(n·p·(1−p)). A correct picker falls outside with probability
// below 6e-7 per endpoint, whatever the seed, so the test does not flake; a picker that is off by
// a few percent fails.
func TestWeightsHold(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		weights []float64
	}{
		{"8 to 2", []float64{8, 2}},
		{"equal", []float64{1, 1, 1}},
		{"skewed", []float64{100, 1, 10, 0.5}},
		{"one", []float64{3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := Plan{}
			for i, w := range tt.weights {
				p.Endpoints = append(p.Endpoints, Endpoint{Name: fmt.Sprint("e", i), URL: "http://127.0.0.1:1/", Weight: w})
			}
			p = p.Normalized()
			if err := p.Validate(); err != nil {
				t.Fatal(err)
			}
			src, err := NewSource(p, Inputs{})
			if err != nil {
				t.Fatal(err)
			}
			const n = 10000
			counts := make([]int, len(tt.weights))
			var r transport.Request
			for i := range n {
				if err := src.Fill(uint64(i), &r); err != nil {
					t.Fatal(err)
				}
				counts[r.Endpoint]++
			}
			var sum float64
			for _, w := range tt.weights {
				sum += w
			}
			for k, w := range tt.weights {
				pk := w / sum
				mean, sigma := n*pk, math.Sqrt(n*pk*(1-pk))
				if d := math.Abs(float64(counts[k]) - mean); d > 5*sigma+0.5 {
					t.Errorf("endpoint %d (weight %v): got %d picks of %d; want %.0f ± %.0f (5σ)", k, w, counts[k], n, mean, 5*sigma)
				}
			}
		})
	}
}

func TestAliasTableExact(t *testing.T) {
	t.Parallel()
	for _, w := range [][]float64{
		{5, 1, 3, 1},
		{1e308, 1.7e308}, // their sum overflows: the table must scale before adding
	} {
		tab := newAliasTable(w)
		// the probability of k is (sum over columns i of the part of column i that goes to k) / n
		got := make([]float64, len(w))
		for i := range w {
			got[i] += tab.prob[i] / float64(len(w))
			got[tab.alias[i]] += (1 - tab.prob[i]) / float64(len(w))
		}
		var sum float64
		for _, x := range w {
			sum += x / w[len(w)-1]
		}
		for k := range w {
			if want := w[k] / w[len(w)-1] / sum; math.Abs(got[k]-want) > 1e-12 {
				t.Errorf("weights %v: P(%d) = %v; want %v", w, k, got[k], want)
			}
		}
	}
}

// TestUniqueDataNeverRepeats has 8 senders take rows of a unique data file at once: every row
// is used exactly once, and then Fill says the data ran out.
func TestUniqueDataNeverRepeats(t *testing.T) {
	t.Parallel()
	const rows = 2000
	var csv strings.Builder
	csv.WriteString("id\n")
	for i := range rows {
		fmt.Fprintf(&csv, "k%d\n", i)
	}
	d, err := ReadData("ids.csv", strings.NewReader(csv.String()))
	if err != nil {
		t.Fatal(err)
	}
	p := Plan{Endpoints: []Endpoint{{URL: "http://127.0.0.1:1/v0/entity?id={{.id}}"}}, Traffic: Traffic{Data: "ids.csv", DataOrder: DataUnique}}
	p = p.Normalized()
	src, err := NewSource(p, Inputs{Data: d})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	seen := map[string]int{}
	var wg sync.WaitGroup
	var exhausted [8]error
	for w := range 8 {
		wg.Go(func() {
			var r transport.Request
			for i := uint64(0); i <= rows; i++ { // bounded: one more than all the rows, so each sender sees the end
				if err := src.Fill(i, &r); err != nil {
					exhausted[w] = err
					return
				}
				id := strings.TrimPrefix(string(r.Path), "/v0/entity?id=")
				mu.Lock()
				seen[id]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(seen) != rows {
		t.Errorf("distinct rows used: got %d; want %d", len(seen), rows)
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("row %s: used %d times; want once", id, n)
		}
	}
	for w, err := range exhausted {
		if !errors.Is(err, ErrDataExhausted) || !strings.Contains(err.Error(), "ids.csv") {
			t.Errorf("sender %d: got %v; want ErrDataExhausted naming ids.csv", w, err)
		}
	}
}

func TestNewSourceRendersEntries(t *testing.T) { // not parallel: AllocsPerRun
	in := "# name: put\nPUT http://127.0.0.1:9/v0/entity?id={{seq}}\nX-User: {{.user}}\nX-Static: s\n@" + "/dev/null" + "\n\n" +
		"# name: get\nGET http://127.0.0.1:9/v0/entity?id={{.user}}\n"
	tg, err := ReadTargets("t.txt", strings.NewReader(in), "", "")
	if err != nil {
		t.Fatal(err)
	}
	eps, err := GroupTargets(tg)
	if err != nil {
		t.Fatal(err)
	}
	d, err := ReadData("u.csv", strings.NewReader("user\nann\nbob\n"))
	if err != nil {
		t.Fatal(err)
	}
	p := Plan{Endpoints: eps, Traffic: Traffic{Targets: "t.txt", Data: "u.csv"}}.Normalized()
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	src, err := NewSource(p, Inputs{Targets: tg, Data: d, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var r transport.Request
	want := []string{
		"0 PUT 127.0.0.1:9 /v0/entity?id=0 [{X-User ann} {X-Static s}]",
		"1 GET 127.0.0.1:9 /v0/entity?id=bob []",
		"0 PUT 127.0.0.1:9 /v0/entity?id=1 [{X-User ann} {X-Static s}]",
		"1 GET 127.0.0.1:9 /v0/entity?id=bob []",
	}
	for i, w := range want {
		if err := src.Fill(uint64(i), &r); err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprintf("%d %s %s %s %v", r.Endpoint, r.Method, r.Host, r.Path, r.Header); got != w {
			t.Errorf("request %d: got %q; want %q", i, got, w)
		}
	}
	// steady state: no allocation per request
	i := uint64(0)
	if got := testing.AllocsPerRun(500, func() { src.Fill(i, &r); i++ }); got != 0 {
		t.Errorf("allocs per Fill: got %v; want 0", got)
	}
}

func TestNewSourceStatic(t *testing.T) {
	t.Parallel()
	p := Plan{Endpoints: []Endpoint{{URL: "http://127.0.0.1:9/a?b=1"}, {URL: "http://127.0.0.1:9/c", Method: "post", Body: []byte("x")}}}.Normalized()
	src, err := NewSource(p, Inputs{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := src.(*StaticSource); !ok {
		t.Errorf("source without templates: got %T; want *StaticSource", src)
	}
	var r transport.Request
	src.Fill(1, &r)
	if got := fmt.Sprintf("%d %s %s %s", r.Endpoint, r.Method, r.Path, r.Body); got != "1 POST /c x" {
		t.Errorf("request 1: got %q; want %q", got, "1 POST /c x")
	}
}

func TestNewSourceErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		ep   Endpoint
		data string
		want string
	}{
		{"bad template in URL", Endpoint{URL: "http://127.0.0.1:9/?id={{randint 1 2}}"}, "", `plan: endpoint 1: URL "http://127.0.0.1:9/?id={{randint 1 2}}": template column 8: unknown function "randint"`},
		{"bad header template", Endpoint{Name: "up", URL: "http://127.0.0.1:9/", Header: []transport.Header{{Name: "A", Value: "{{uuid 1}}"}}}, "", `plan: endpoint 1 "up": header A: template column 3`},
		{"bad body", Endpoint{URL: "http://127.0.0.1:9/", Body: []byte("{{.nope}}")}, "id\n1\n", `body: template column 3: unknown field "nope"`},
		{"data nobody reads", Endpoint{URL: "http://127.0.0.1:9/"}, "id\n1\n", "no template reads its fields"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := Inputs{}
			p := Plan{Endpoints: []Endpoint{tt.ep}}
			if tt.data != "" {
				d, err := ReadData("d.csv", strings.NewReader(tt.data))
				if err != nil {
					t.Fatal(err)
				}
				in.Data, p.Traffic.Data = d, "d.csv"
			}
			_, err := NewSource(p.Normalized(), in)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("NewSource: got %v; want an error with %q", err, tt.want)
			}
		})
	}
}

func BenchmarkFill(b *testing.B) {
	p := Plan{Endpoints: []Endpoint{
		{Name: "get", URL: "http://127.0.0.1:9/v0/entity?id={{randInt 1 1e8}}", Weight: 8},
		{Name: "put", Method: "PUT", URL: "http://127.0.0.1:9/v0/entity?id={{randInt 1 1e8}}", Weight: 2, Body: []byte(`{"v":"{{randString 64}}"}`),
			Header: []transport.Header{{Name: "X-Request-Id", Value: "{{uuid}}"}}},
	}}.Normalized()
	src, err := NewSource(p, Inputs{})
	if err != nil {
		b.Fatal(err)
	}
	var r transport.Request
	b.ReportAllocs()
	i := uint64(0)
	for b.Loop() {
		src.Fill(i, &r)
		i++
	}
}
