package capacity

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/engine"
	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/runner"
	"github.com/rpcbench/rpcbench/serve/items"
	"github.com/rpcbench/rpcbench/summary"
)

// model is a service that meets p99<50ms up to capacity arrivals per second and misses it above:
// its steps are summaries made by hand, so the search's arithmetic is checked without a clock.
// A step holds rate × its length requests.
func model(capacity float64, rates *[]float64) func(context.Context, *plan.Prepared, engine.Observer) (*summary.Summary, error) {
	return func(_ context.Context, prep *plan.Prepared, _ engine.Observer) (*summary.Summary, error) {
		r, d := prep.Plan.Load.Rate, prep.Plan.Load.Duration.Seconds()
		*rates = append(*rates, r)
		n := uint64(math.Round(r * d))
		s := &summary.Summary{DurationS: d, IntendedRate: r}
		s.Requests.Intended, s.Requests.Sent, s.Requests.Completed, s.Requests.OK = n, n, n, n
		s.Latency.P50, s.Latency.P99 = 1, 2
		if r > capacity {
			s.Latency.P50, s.Latency.P99 = 400, 900
		}
		return s, nil
	}
}

func slo(t *testing.T, text string) plan.SLO {
	t.Helper()
	s, err := plan.ParseSLO(text)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func near(a, b float64) bool { return math.Abs(a-b) < 0.1 }

func TestSearchRisesThenBisects(t *testing.T) {
	var rates []float64
	res, err := Search(context.Background(), Config{
		Plan: plan.Plan{Endpoints: []plan.Endpoint{{URL: "http://127.0.0.1:1/"}}},
		SLO:  slo(t, "p99<50ms"), Start: 100, Run: model(7400, &rates),
	})
	if err != nil {
		t.Fatal(err)
	}
	// by hand: doubling from 100 passes up to 6400 and fails at 12800; then geometric middles
	// √(6400·12800) = 9051 F, √(6400·9051) = 7611 F, √(6400·7611) = 6979 P, √(6979·7611) = 7288 P;
	// 7611/7288 = 1.044 ≤ 1.05: done; then two repeats of 7288 (pass) and of 7611 (fail) confirm
	// the ends.
	want := []float64{100, 200, 400, 800, 1600, 3200, 6400, 12800, 9050.97, 7610.9, 6979.3, 7288.2, 7288.2, 7288.2, 7610.9, 7610.9}
	if len(rates) != len(want) {
		t.Fatalf("rates %v; want %v", rates, want)
	}
	for i := range want {
		if math.Abs(rates[i]-want[i]) > 0.1 {
			t.Fatalf("rates %v; want %v", rates, want)
		}
	}
	if res.Best == nil || !near(res.Best.Rate, 7288.2) || !near(res.FirstFail, 7610.9) || res.AtMax || res.Interrupted {
		t.Errorf("best %+v, first failure %v, at max %v, interrupted %v; want 7288.2 and 7610.9", res.Best, res.FirstFail, res.AtMax, res.Interrupted)
	}
	if !near(res.High, 7610.9) {
		t.Errorf("high %v; want 7610.9", res.High)
	}
	if got := res.Answer(); got != "between 7,288 and 7,611/s: max sustainable 7,288/s (3 of 3 runs passed, p99 up to 2.00 ms), 7,611/s failed 3 of 3 runs" {
		t.Errorf("answer %q", got)
	}
	if w := res.Warnings(); len(w) != 0 {
		t.Errorf("warnings %q; want none (the verdicts rise monotonically)", w)
	}
	if res.Steps[7].Phase != "rise" || res.Steps[8].Phase != "bisect" || res.Steps[12].Phase != "confirm" || res.Steps[7].Pass || !res.Steps[6].Pass {
		t.Errorf("steps 6-8, 12: %+v %+v %+v %+v", res.Steps[6], res.Steps[7], res.Steps[8], res.Steps[12])
	}
}

func TestSearchFallsWhenTheFirstStepFails(t *testing.T) {
	var rates []float64
	res, err := Search(context.Background(), Config{
		Plan: plan.Plan{Endpoints: []plan.Endpoint{{URL: "http://127.0.0.1:1/"}}},
		SLO:  slo(t, "p99<50ms"), Start: 100, Run: model(30, &rates),
	})
	if err != nil {
		t.Fatal(err)
	}
	// 100 F, 50 F, 25 P; then √(25·50) = 35.36 F, √(25·35.36) = 29.73 P, √(29.73·35.36) = 32.42 F,
	// √(29.73·32.42) = 31.05 F; 31.05/29.73 = 1.044: done; then the repeats of both ends.
	want := []float64{100, 50, 25, 35.36, 29.73, 32.42, 31.05, 29.73, 29.73, 31.05, 31.05}
	if len(rates) != len(want) {
		t.Fatalf("rates %v; want %v", rates, want)
	}
	for i := range want {
		if math.Abs(rates[i]-want[i]) > 0.01 {
			t.Fatalf("rates %v; want %v", rates, want)
		}
	}
	if res.Best == nil || math.Abs(res.Best.Rate-29.73) > 0.01 {
		t.Errorf("best %+v; want 29.73", res.Best)
	}
	// p99 needs 1,000 answers: at 29.73/s a step lasts 1000/29.73 = 33.6 s, not 10 s
	if st := res.Best; st.FewSamples || st.Answers != 1000 || st.Needed != 1000 {
		t.Errorf("best %+v; want 1,000 answers of the 1,000 p99 needs", st)
	}
}

func TestSearchStopsAtMaxAndMaxSteps(t *testing.T) {
	var rates []float64
	res, err := Search(context.Background(), Config{
		Plan: plan.Plan{Endpoints: []plan.Endpoint{{URL: "http://127.0.0.1:1/"}}},
		SLO:  slo(t, "p99<50ms"), Start: 100, Max: 1000, Run: model(1e9, &rates),
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{100, 200, 400, 800, 1000, 1000, 1000}; len(rates) != len(want) || rates[6] != 1000 || !res.AtMax || res.Best.Rate != 1000 {
		t.Errorf("rates %v, at max %v, best %+v; want %v ending at max", rates, res.AtMax, res.Best, want)
	}
	if !strings.Contains(res.Answer(), "raise --max") {
		t.Errorf("answer %q; want it to say the capacity may be higher", res.Answer())
	}
	rates = nil
	res, err = Search(context.Background(), Config{
		Plan: plan.Plan{Endpoints: []plan.Endpoint{{URL: "http://127.0.0.1:1/"}}},
		SLO:  slo(t, "p99<50ms"), Start: 100, MaxSteps: 3, Run: model(1e9, &rates),
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rates) != 3 || len(res.Steps) != 3 {
		t.Errorf("rates %v; want 3 steps", rates)
	}
}

func TestSearchRefusesBadConfigs(t *testing.T) {
	p := plan.Plan{Endpoints: []plan.Endpoint{{URL: "http://127.0.0.1:1/"}}}
	for _, tc := range []struct {
		c    Config
		want string
	}{
		{Config{Plan: p}, "no SLO"},
		{Config{Plan: p, SLO: slo(t, "p99<1s"), Start: 10, Max: 5}, "max rate 5"},
		{Config{Plan: p, SLO: slo(t, "p99<1s"), Factor: 0.5}, "factor 0.5"},
		{Config{Plan: p, SLO: slo(t, "p99<1s"), Precision: 2}, "precision 2"},
		{Config{Plan: plan.Plan{}, SLO: slo(t, "p99<1s")}, "no endpoint"},
	} {
		if _, err := Search(context.Background(), tc.c); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Search(%+v) = %v; want an error saying %q", tc.c, err, tc.want)
		}
	}
}

// interval is what a stand-in service does in one tick of a step: ok answers and failed ones (500,
// answered at once), every one taking latency.
type interval struct {
	ok, failed int
	latency    time.Duration
}

// ticking is a stand-in service that can collapse: at each rate, service says what each of its
// intervals holds; it sends a warm-up tick, then up to three measured ticks to the step's observer,
// stopping when the step is cut short. ticks counts the measured ticks each rate sent. The summary
// it returns holds what the ticks sent.
func ticking(service func(rate float64) interval, ticks map[float64]int) func(context.Context, *plan.Prepared, engine.Observer) (*summary.Summary, error) {
	return func(ctx context.Context, prep *plan.Prepared, observe engine.Observer) (*summary.Summary, error) {
		r := prep.Plan.Load.Rate
		in := service(r)
		warm := result.NewInterval(1)
		observe(&engine.Tick{Interval: warm, Warmup: true})
		s := &summary.Summary{DurationS: 3, IntendedRate: r}
		for range 3 {
			if ctx.Err() != nil {
				break
			}
			iv := result.NewInterval(1)
			c := iv.Endpoints[0]
			n := uint64(in.ok + in.failed)
			c.Sent, c.Completed, c.OK, c.Errors[result.Status] = n, n, uint64(in.ok), uint64(in.failed)
			c.Status[200], c.Status[500] = uint64(in.ok), uint64(in.failed)
			for range n {
				result.RecordDuration(c.Latency, in.latency)
			}
			ticks[r]++
			s.Requests.Intended += n
			s.Requests.Sent += n
			s.Requests.Completed += n
			s.Requests.OK += uint64(in.ok)
			s.Requests.Errors += uint64(in.failed)
			observe(&engine.Tick{Interval: iv})
		}
		ms := float64(in.latency) / float64(time.Millisecond)
		s.Latency.P50, s.Latency.P99 = ms, ms
		return s, nil
	}
}

// A service that sheds load with quick 500s above 7,400/s, judged by its latency alone: its
// steps above the capacity meet p99<50ms but fail more than half their requests, so they collapse
// (cut short after their first interval) and fail; the steps below, where 45 % fail, are no
// collapse and pass. The search is that of TestSearchRisesThenBisects.
func TestSearchFailsAStepThatCollapsesOnErrors(t *testing.T) {
	ticks := map[float64]int{}
	res, err := Search(context.Background(), Config{
		Plan: plan.Plan{Endpoints: []plan.Endpoint{{URL: "http://127.0.0.1:1/"}}},
		SLO:  slo(t, "p90<50ms"), Start: 100, Confirmations: 1,
		Run: ticking(func(r float64) interval {
			if r > 7400 {
				return interval{ok: 45, failed: 55, latency: time.Millisecond} // 55 of 100 ended failed: over half
			}
			return interval{ok: 55, failed: 45, latency: time.Millisecond} // 45 of 100: under half
		}, ticks),
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Best == nil || !near(res.Best.Rate, 7288.2) || !near(res.FirstFail, 7610.9) || res.AtMax {
		t.Fatalf("best %+v, first failure %v, at max %v; want 7288.2 and 7610.9 (the steps above 7,400/s collapse)", res.Best, res.FirstFail, res.AtMax)
	}
	for _, st := range res.Steps {
		over := st.Rate > 7400
		if st.Collapsed != over || st.Pass == over || !st.SLO.Pass {
			t.Errorf("step at %.1f/s: collapsed %v, pass %v, SLO met %v; want collapsed and failed above 7,400/s, neither below, the SLO met at every rate", st.Rate, st.Collapsed, st.Pass, st.SLO.Pass)
		}
		if want := map[bool]int{true: 1, false: 3}[over]; ticks[st.Rate] != want {
			t.Errorf("step at %.1f/s ran %d intervals; want %d", st.Rate, ticks[st.Rate], want)
		}
	}
	if got := res.Answer(); !strings.HasPrefix(got, "between 7,288 and 7,611/s: max sustainable 7,288/s (1 of 1 run passed") {
		t.Errorf("answer %q", got)
	}
}

// A service whose latency grows past its capacity, 7,400/s: 300 ms at 7,400–10,000/s (6 times the
// loosest objective, 50 ms: a step that fails but runs whole), 600 ms above (12 times: it collapses).
func TestSearchCollapsesOnlyFarPastTheObjective(t *testing.T) {
	ticks := map[float64]int{}
	res, err := Search(context.Background(), Config{
		Plan: plan.Plan{Endpoints: []plan.Endpoint{{URL: "http://127.0.0.1:1/"}}},
		SLO:  slo(t, "p50<20ms,p90<50ms"), Start: 100, Confirmations: 1,
		Run: ticking(func(r float64) interval {
			switch {
			case r > 10000:
				return interval{ok: 100, latency: 600 * time.Millisecond}
			case r > 7400:
				return interval{ok: 100, latency: 300 * time.Millisecond}
			}
			return interval{ok: 100, latency: time.Millisecond}
		}, ticks),
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Best == nil || !near(res.Best.Rate, 7288.2) || !near(res.FirstFail, 7610.9) {
		t.Fatalf("best %+v, first failure %v; want 7288.2 and 7610.9", res.Best, res.FirstFail)
	}
	// by hand (see TestSearchRisesThenBisects): 12800 collapses; 9051 and 7611 fail whole
	for _, st := range res.Steps {
		collapse, pass := st.Rate > 10000, st.Rate <= 7400
		if st.Collapsed != collapse || st.Pass != pass {
			t.Errorf("step at %.1f/s: collapsed %v, pass %v; want %v and %v", st.Rate, st.Collapsed, st.Pass, collapse, pass)
		}
		if want := map[bool]int{true: 1, false: 3}[collapse]; ticks[st.Rate] != want {
			t.Errorf("step at %.1f/s ran %d intervals; want %d", st.Rate, ticks[st.Rate], want)
		}
	}
}

// ownClock is a loopback service of known capacity that keeps its own clock: it serves one request
// at a time, each for 100 ms, and answers 503 at once to a request that arrives while it is busy —
// all reckoned on a clock where request n of a step arrives at n/rate (the step's rate, which the
// test tells it), not on the machine's. What it answers thus depends on the order of the requests
// alone, never on how busy the machine is: at 10/s and below every request is served; above, a
// request arrives before the one served ahead of it ends and about half are turned away.
type ownClock struct {
	mu   sync.Mutex
	rate float64 // requests per second of the current step
	n    int     // requests so far in the current step
	free float64 // when, in ms on its clock, the request being served ends
}

// step starts a step at rate: request 0 arrives at 0 ms, to an idle server.
func (o *ownClock) step(rate float64) {
	o.mu.Lock()
	o.rate, o.n, o.free = rate, 0, 0
	o.mu.Unlock()
}

func (o *ownClock) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	o.mu.Lock()
	arrival := float64(o.n) * 1000 / o.rate
	o.n++
	busy := arrival < o.free
	if !busy {
		o.free = arrival + 100
	}
	o.mu.Unlock()
	if busy {
		w.WriteHeader(http.StatusServiceUnavailable)
	}
}

// TestSearchFindsAKnownCapacity searches, through the engine, the capacity of a service that
// serves 10 requests per second on its own clock (ownClock). The rates are low so that the
// generator, even under -race on a busy machine, sends each request within a second of its time.
func TestSearchFindsAKnownCapacity(t *testing.T) {
	if testing.Short() {
		t.Skip("runs eight steps of up to 1.3 s")
	}
	svc := &ownClock{}
	srv := httptest.NewServer(svc)
	defer srv.Close()
	engineRun := (&search{}).runEngine
	var rates []float64
	var progress []Step
	objective := slo(t, "errors<1%")
	res, err := Search(context.Background(), Config{
		Plan: plan.Plan{Endpoints: []plan.Endpoint{{URL: srv.URL + "/"}}},
		SLO:  objective, Start: 2.5, Step: time.Second, Warmup: plan.Wait(300 * time.Millisecond), Confirmations: 2,
		OnStep: func(s Step) { progress = append(progress, s) },
		Run: func(ctx context.Context, prep *plan.Prepared, observe engine.Observer) (*summary.Summary, error) {
			rates = append(rates, prep.Plan.Load.Rate)
			svc.step(prep.Plan.Load.Rate)
			return engineRun(ctx, prep, observe)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	var table bytes.Buffer
	if err := Render(&table, res, objective, srv.URL, "text"); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s", table.String())
	// By hand: at a rate r ≤ 10/s request n arrives at n·1000/r ms, when the one before it, served
	// from (n−1)·1000/r ms for 100 ms, has ended: all are served. Above 10/s request 1 arrives
	// before request 0 ends and is turned away, and so on: some 1 in 2 fail. Doubling from 2.5:
	// 2.5, 5, 10 pass, 20 fails; geometric middles √(10·20) = 14.142, √(10·14.142) = 11.892,
	// √(10·11.892) = 10.905, √(10·10.905) = 10.443 fail; 10.443/10 ≤ 1.05: done; one repeat of
	// each end (10 passes, 10.443 fails) confirms them.
	want := []float64{2.5, 5, 10, 20, 14.142, 11.892, 10.905, 10.443, 10, 10.443}
	if len(rates) != len(want) {
		t.Fatalf("rates %v; want %v\n%s", rates, want, table.String())
	}
	for i := range want {
		if math.Abs(rates[i]-want[i]) > 0.001 {
			t.Fatalf("rates %v; want %v\n%s", rates, want, table.String())
		}
	}
	if res.Best == nil || res.Best.Rate != 10 || math.Abs(res.High-10.443) > 0.001 || res.AtMax || res.Interrupted {
		t.Errorf("best %+v, high %v/s; want 10/s and 10.443/s\n%s", res.Best, res.High, table.String())
	}
	if !strings.HasPrefix(res.Answer(), "between 10 and 10.4/s: max sustainable 10/s (2 of 2 runs passed, ") {
		t.Errorf("answer %q; want 10/s", res.Answer())
	}
	if len(progress) != len(res.Steps) {
		t.Errorf("OnStep saw %d steps of %d", len(progress), len(res.Steps))
	}
	var doc map[string]any
	var js bytes.Buffer
	if err := Render(&js, res, objective, srv.URL, "json"); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil || doc["max_sustainable_rps"] != 10.0 || len(doc["steps"].([]any)) != len(want) {
		t.Errorf("JSON report %s; want max_sustainable_rps 10 and every step", js.String())
	}
}

// TestSearchKeepsAnInterruptedStep cancels the search in its second step: the first step and
// what the second measured are kept, and the result says it was interrupted.
func TestSearchKeepsAnInterruptedStep(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, err := Search(ctx, Config{
		Plan: plan.Plan{Endpoints: []plan.Endpoint{{URL: srv.URL + "/"}}},
		SLO:  slo(t, "p99<60s"), Start: 50, Step: 300 * time.Millisecond, Warmup: plan.Wait(0), // no latency of a busy machine fails it
		OnStep: func(Step) { cancel() }, // after the first step: the second starts cancelled
	})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Interrupted || len(res.Steps) < 1 || !res.Steps[0].Pass || res.Steps[0].Summary.Requests.OK == 0 {
		t.Errorf("interrupted %v, steps %+v; want the first step kept and the search marked interrupted", res.Interrupted, res.Steps)
	}
	if !strings.Contains(res.Answer(), "interrupted") {
		t.Errorf("answer %q; want it to say the search was interrupted", res.Answer())
	}
}

// The HTML page draws each step's p50 and p99 against its rate — filled when the step passed,
// hollow when it failed — with the objective's latency as a line, and lists every step.
func TestRenderHTMLChartsTheKnee(t *testing.T) {
	var rates []float64
	res, err := Search(context.Background(), Config{
		Plan: plan.Plan{Endpoints: []plan.Endpoint{{URL: "http://127.0.0.1:1/"}}},
		SLO:  slo(t, "p99<50ms"), Start: 100, Run: model(7400, &rates),
	})
	if err != nil {
		t.Fatal(err)
	}
	var page bytes.Buffer
	if err := Render(&page, res, slo(t, "p99<50ms"), "http://127.0.0.1:1/", "html"); err != nil {
		t.Fatal(err)
	}
	html := page.String()
	// 16 steps (see TestSearchRisesThenBisects): 100 … 6400, 6979 and 7288 three times passed
	// (11); 12800, 9051 and 7611 three times failed (5); two points each
	filled := strings.Count(html, `fill="#2a6fdb" stroke="#2a6fdb"`) + strings.Count(html, `fill="#e08a00" stroke="#e08a00"`)
	hollow := strings.Count(html, `fill="#fff" stroke=`)
	if filled != 22 || hollow != 10 {
		t.Errorf("%d filled and %d hollow points; want 22 and 10 (11 passing and 5 failing steps, p50 and p99 each)", filled, hollow)
	}
	if !strings.Contains(html, "objective 50.0 ms") || strings.Count(html, "<tr><td>") != 16 || !strings.Contains(html, "max sustainable 7,288/s") {
		t.Errorf("page lacks the objective's line, a row per step or the answer:\n%s", html)
	}
}

// queue is a service of known capacity, simulated: c servers, each serving a request for exactly
// svc, first come first served. Request n of a step (warm-up included) arrives at n/rate on the
// queue's own clock, so what it answers depends on the order of the arrivals alone: at or below
// c/svc no request waits (each server is free again when its next request arrives) and every
// latency is svc; above, the queue grows for as long as the step lasts. A step's figures are
// those of the requests that arrive after its warm-up, percentiles by nearest rank.
func queue(c int, svc time.Duration, prep *plan.Prepared) *summary.Summary {
	l := prep.Plan.Load
	s := svc.Seconds()
	warm, measured := int(l.Rate*l.Warmup.Seconds()), int(l.Rate*l.Duration.Seconds())
	free := make([]float64, c)
	lat := make([]float64, 0, measured)
	for n := range warm + measured {
		at := float64(n) / l.Rate
		i := 0
		for j := range free {
			if free[j] < free[i] {
				i = j
			}
		}
		start := math.Max(at, free[i])
		free[i] = start + s
		if n >= warm {
			lat = append(lat, (free[i]-at)*1000)
		}
	}
	sort.Float64s(lat)
	rank := func(q float64) float64 { return lat[int(math.Ceil(q*float64(len(lat))))-1] }
	sum := &summary.Summary{DurationS: l.Duration.Seconds(), IntendedRate: l.Rate}
	n := uint64(len(lat))
	sum.Requests.Intended, sum.Requests.Sent, sum.Requests.Completed, sum.Requests.OK = n, n, n, n
	sum.Latency.P50, sum.Latency.P99 = rank(0.50), rank(0.99)
	return sum
}

// TestSearchRangeHoldsAKnownCapacity runs 20 searches of a simulated queue of known capacity —
// 4 servers, 10 ms each: 400/s — against p99<15ms, with noise injected into the steps' outcomes:
// a step within 10 % of the capacity flips its verdict with a seeded chance of 1 in 4 (a pass
// turned into a p99 of 200 ms, a machine's stall; a failure into the p99 of an idle queue). A
// single step at the edge then decides wrongly often; the range the search answers must hold
// 400/s in at least 19 of the 20 searches, its ends backed by three runs that agree, and the
// warning must appear exactly when the verdicts were not monotonic in the rate.
func TestSearchRangeHoldsAKnownCapacity(t *testing.T) {
	const servers, svc, truth = 4, 10 * time.Millisecond, 400.0
	held, flips, warnings := 0, 0, 0
	var widths []float64
	for seed := range uint64(20) {
		noise := rand.New(rand.NewPCG(seed, 24))
		res, err := Search(context.Background(), Config{
			Plan: plan.Plan{Endpoints: []plan.Endpoint{{URL: "http://127.0.0.1:1/"}}},
			SLO:  slo(t, "p99<15ms"), Start: 30, Step: 2 * time.Second, Warmup: plan.Wait(500 * time.Millisecond),
			Run: func(_ context.Context, prep *plan.Prepared, _ engine.Observer) (*summary.Summary, error) {
				s := queue(servers, svc, prep)
				if r := prep.Plan.Load.Rate; math.Abs(r/truth-1) <= 0.10 && noise.Float64() < 0.25 {
					flips++
					if s.Latency.P99 < 15 {
						s.Latency.P99 = 200
					} else {
						s.Latency.P50, s.Latency.P99 = 10, 10
					}
				}
				return s, nil
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		var text bytes.Buffer
		if err := Render(&text, res, slo(t, "p99<15ms"), "queue", "text"); err != nil {
			t.Fatal(err)
		}
		// the ends and the verdicts, counted here from the steps
		runs := func(rate float64) (passed, all int) {
			for _, st := range res.Steps {
				if st.Rate == rate {
					all++
					if st.Pass {
						passed++
					}
				}
			}
			return passed, all
		}
		lowFail, highPass := math.Inf(1), 0.0
		for _, st := range res.Steps {
			if st.Pass {
				highPass = math.Max(highPass, st.Rate)
			} else {
				lowFail = math.Min(lowFail, st.Rate)
			}
		}
		if res.Best == nil || res.High == 0 {
			t.Errorf("seed %d: no range: best %+v, high %v\n%s", seed, res.Best, res.High, text.String())
			continue
		}
		if p, n := runs(res.Best.Rate); p != n || n < 3 {
			t.Errorf("seed %d: max sustainable %v/s rests on %d passes of %d runs; want 3 or more, all passed\n%s", seed, res.Best.Rate, p, n, text.String())
		}
		if p, n := runs(res.High); p != 0 || n < 3 {
			t.Errorf("seed %d: upper end %v/s passed %d of %d runs; want 3 or more, all failed\n%s", seed, res.High, p, n, text.String())
		}
		warned := strings.Contains(text.String(), "warning: verdicts were not monotonic in the rate")
		if warned {
			warnings++
		}
		if warned != (highPass > lowFail) {
			t.Errorf("seed %d: warned %v; verdicts not monotonic %v (a failure at %v/s, a pass at %v/s)\n%s", seed, warned, highPass > lowFail, lowFail, highPass, text.String())
		}
		var page, js bytes.Buffer
		if err := Render(&page, res, slo(t, "p99<15ms"), "queue", "html"); err != nil {
			t.Fatal(err)
		}
		if err := Render(&js, res, slo(t, "p99<15ms"), "queue", "json"); err != nil {
			t.Fatal(err)
		}
		var doc struct{ Warnings []string }
		if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		inJSON := len(doc.Warnings) > 0 && strings.HasPrefix(doc.Warnings[0], "verdicts were not monotonic in the rate")
		if inHTML := strings.Contains(page.String(), "<strong>warning:</strong> verdicts were not monotonic"); inHTML != warned || inJSON != warned {
			t.Errorf("seed %d: the warning in text %v, HTML %v, JSON %v; want it in all or none", seed, warned, inHTML, inJSON)
		}
		if !strings.Contains(text.String(), fmt.Sprintf("max sustainable %s/s (", rate(res.Best.Rate))) {
			t.Errorf("seed %d: the text does not name the max sustainable rate\n%s", seed, text.String())
		}
		if res.Best.Rate <= truth && truth <= res.High {
			held++
		} else {
			t.Logf("seed %d: range %.1f–%.1f/s misses %v/s\n%s", seed, res.Best.Rate, res.High, truth, text.String())
		}
		// noise reaches 360–440/s; an end that meets mixed verdicts moves by 2·precision (10 %):
		// the range lies within 360/1.1 = 327 and 440·1.1 = 484/s
		if res.Best.Rate < 327 || res.High > 484 {
			t.Errorf("seed %d: range %.1f–%.1f/s; want it within 327–484/s\n%s", seed, res.Best.Rate, res.High, text.String())
		}
		widths = append(widths, res.High/res.Best.Rate)
	}
	sort.Float64s(widths)
	t.Logf("the range held %v/s in %d of 20 searches; %d verdicts flipped; %d searches warned; high/low: median %.3f, widest %.3f", truth, held, flips, warnings, widths[len(widths)/2], widths[len(widths)-1])
	if held < 19 {
		t.Errorf("the range held the capacity in %d of 20 searches; want at least 19", held)
	}
	if flips < 20 {
		t.Errorf("%d verdicts flipped in 20 searches: the noise did not test the search", flips)
	}
}

// A step judged on p99 lasts long enough for 1,000 answers, up to ten times --step; a step that
// still has fewer passes or fails on them but confirms nothing, and the report says so.
func TestSearchLengthensStepsForPercentiles(t *testing.T) {
	var rates []float64
	lengths := map[float64]time.Duration{}
	run := model(60, &rates)
	res, err := Search(context.Background(), Config{
		Plan: plan.Plan{Endpoints: []plan.Endpoint{{URL: "http://127.0.0.1:1/"}}},
		SLO:  slo(t, "p99<50ms"), Start: 50, Step: time.Second, MaxSteps: 12,
		Run: func(ctx context.Context, prep *plan.Prepared, o engine.Observer) (*summary.Summary, error) {
			lengths[prep.Plan.Load.Rate] = prep.Plan.Load.Duration
			return run(ctx, prep, o)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	// by hand: 1,000 answers take 20 s at 50/s (capped at 10 s: 500 answers), 10 s at 100/s
	for r, want := range map[float64]time.Duration{50: 10 * time.Second, 100: 10 * time.Second} {
		if lengths[r] != want {
			t.Errorf("step at %v/s lasted %v; want %v", r, lengths[r], want)
		}
	}
	first := res.Steps[0]
	if first.Rate != 50 || !first.Pass || !first.FewSamples || first.Answers != 500 || !strings.Contains(verdict(first), "pass (few answers: 500 of 1,000)") {
		t.Errorf("first step %+v, verdict %q; want 50/s passed on few answers, 500 of 1,000", first, verdict(first))
	}
	// every rate at or under 60/s passes on fewer than 1,000 answers (at most 600 in 10 s): none
	// is confirmed
	if res.Best != nil {
		t.Errorf("best %+v; want none: no passing rate had the answers p99 needs", res.Best)
	}
	if a := res.Answer(); !strings.HasPrefix(a, "no rate confirmed: a rate needs all its 3 runs to pass, each with 1,000 answers; the highest that passed, ") || strings.Contains(a, "max sustainable") {
		t.Errorf("answer %q", a)
	}
	warned := false
	for _, w := range res.Warnings() {
		warned = warned || strings.Contains(w, "had fewer answers than the 1,000 the objective's percentiles need")
	}
	if !warned {
		t.Errorf("warnings %q; want one about the steps with few answers", res.Warnings())
	}
}

// When the steps watched the target, each format shows its CPU in every step and the answer gives
// it at the max sustainable rate; the generator's own CPU is not the target's.
func TestReportShowsTheTargetsCPU(t *testing.T) {
	var rates []float64
	run := model(7400, &rates)
	res, err := Search(context.Background(), Config{
		Plan: plan.Plan{Endpoints: []plan.Endpoint{{URL: "http://127.0.0.1:1/"}}},
		SLO:  slo(t, "p99<50ms"), Start: 100,
		Run: func(ctx context.Context, prep *plan.Prepared, o engine.Observer) (*summary.Summary, error) {
			s, err := run(ctx, prep, o)
			r := prep.Plan.Load.Rate
			// the target's CPU: 1 % of one core per 100/s, peak 1.5 times that; the generator at 99 %
			s.Resources = []result.Resources{
				{Target: "rpcbench (self)", Self: true, Summary: result.ResourceSummary{Samples: 3, CPUPercent: result.ResourceStat{Avg: 99, Peak: 99, Samples: 3}}},
				{Target: "pid 7", Summary: result.ResourceSummary{Samples: 3, CPUPercent: result.ResourceStat{Avg: r / 100, Peak: 1.5 * r / 100, Samples: 3}}},
			}
			return s, err
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	// the answer: 7,288/s (see TestSearchRisesThenBisects), CPU 72.88 % and 109.3 %
	want := "; CPU of pid 7 at 7,288/s: 73% avg, 109% peak of one core"
	if a := res.Answer(); !strings.HasSuffix(a, want) {
		t.Errorf("answer %q; want it to end %q", a, want)
	}
	for format, rows := range map[string][]string{
		"text":     {"  errors    CPU  verdict", "    0.00%    64%  pass\n", "(CPU: of pid 7, average over each step's measured part, in % of one core)"},
		"markdown": {"| errors | CPU of pid 7 | verdict |", "| 0.00% | 128% | FAIL p99<50ms |"},
		"html":     {"<th>CPU of pid 7 <small>avg, % of one core</small></th>", "<td>0.00%</td><td>64%</td><td>pass</td>"},
	} {
		var b bytes.Buffer
		if err := Render(&b, res, slo(t, "p99<50ms"), "http://127.0.0.1:1/", format); err != nil {
			t.Fatal(err)
		}
		for _, w := range append(rows, want[2:]) {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s report lacks %q:\n%s", format, w, b.String())
			}
		}
		if strings.Contains(b.String(), "99%") {
			t.Errorf("%s report shows the generator's CPU as the target's:\n%s", format, b.String())
		}
	}
}

// With Judge in place of an SLO (a calibration), the search runs on the judge's verdicts and keeps
// its reasons; no SLO is needed, and none is judged.
func TestSearchWithJudge(t *testing.T) {
	var rates []float64
	res, err := Search(context.Background(), Config{
		Plan: plan.Plan{Endpoints: []plan.Endpoint{{URL: "http://127.0.0.1:1/"}}},
		// the model's p99 is 2 ms up to 7400/s, 900 ms above; the judge fails p99 above 10 ms
		Start: 100, Run: model(7400, &rates),
		Judge: func(s *summary.Summary) (bool, string) {
			if s.Latency.P99 > 10 {
				return false, "p99 over 10ms"
			}
			return true, ""
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	// the same steps as TestSearchRisesThenBisects (16, the ends confirmed): the best is 7288.2, the
	// first failure 7610.9
	if len(rates) != 16 || res.Best == nil || !near(res.Best.Rate, 7288.2) || !near(res.FirstFail, 7610.9) {
		t.Fatalf("rates %v, best %+v, first fail %v; want 16 steps, 7288.2 passing, 7610.9 failing", rates, res.Best, res.FirstFail)
	}
	for _, st := range res.Steps {
		if st.SLO != nil || st.Pass != (st.Rate <= 7400) || (st.Why == "") != st.Pass || (!st.Pass && st.Why != "p99 over 10ms") {
			t.Errorf("step %v: pass %v, why %q, SLO %v; want the judge's verdict and reason, no SLO", st.Rate, st.Pass, st.Why, st.SLO)
		}
	}
	if err := (Config{Start: 1}).Validate(); err == nil || !strings.Contains(err.Error(), "no SLO") {
		t.Errorf("without SLO or judge: %v; want an error naming the missing SLO", err)
	}
}

// A search whose requests the server cannot serve (a gRPC method it does not have) is refused
// before any step, saying why — not an interruption that nobody asked for; a server that is not
// there is the same, as a failure to connect.
func TestSearchRefusesWhatThePreflightFinds(t *testing.T) {
	t.Parallel()
	srv, err := items.New(items.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	for _, c := range []struct {
		url     string
		connect bool
	}{
		{"grpc://" + srv.GRPCAddr() + "/rpz.ItemService/NoSuchMethod", false},
		{"grpc://127.0.0.1:1/rpz.ItemService/GetItem", true},
	} {
		res, err := Search(context.Background(), Config{
			Plan: plan.Plan{Endpoints: []plan.Endpoint{{URL: c.url, Body: []byte(`{"id":"1"}`)}}, HTTP: plan.HTTP{ConnectTimeout: 2 * time.Second}},
			SLO:  slo(t, "p99<50ms"), Start: 10, Step: 200 * time.Millisecond, Warmup: plan.Wait(0),
		})
		var pe *runner.PreflightError
		if !errors.As(err, &pe) || pe.Connect != c.connect || res != nil {
			t.Errorf("%s: result %+v, error %v; want no search and a PreflightError (connect %v)", c.url, res, err, c.connect)
		}
	}
}
