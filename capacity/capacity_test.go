package capacity

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/summary"
)

// model is a service that meets p99<50ms up to capacity arrivals per second and misses it above:
// its steps are summaries made by hand, so the search's arithmetic is checked without a clock.
func model(capacity float64, rates *[]float64) func(context.Context, *plan.Prepared) (*summary.Summary, error) {
	return func(_ context.Context, prep *plan.Prepared) (*summary.Summary, error) {
		r := prep.Plan.Load.Rate
		*rates = append(*rates, r)
		n := uint64(math.Round(r * 10))
		s := &summary.Summary{DurationS: 10, IntendedRate: r}
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
	// 7611/7288 = 1.044 ≤ 1.05: done.
	want := []float64{100, 200, 400, 800, 1600, 3200, 6400, 12800, 9050.97, 7610.9, 6979.3, 7288.2}
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
	if got := res.Answer(); got != "max sustainable: 7,288/s at p99 2.00 ms (first failure at 7,611/s)" {
		t.Errorf("answer %q", got)
	}
	if res.Steps[7].Phase != "rise" || res.Steps[8].Phase != "bisect" || res.Steps[7].Pass || !res.Steps[6].Pass {
		t.Errorf("steps 6-8: %+v %+v %+v", res.Steps[6], res.Steps[7], res.Steps[8])
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
	// √(29.73·32.42) = 31.05 F; 31.05/29.73 = 1.044: done.
	want := []float64{100, 50, 25, 35.36, 29.73, 32.42, 31.05}
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
	if want := []float64{100, 200, 400, 800, 1000}; len(rates) != len(want) || rates[4] != 1000 || !res.AtMax || res.Best.Rate != 1000 {
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

// oneAtATime is a service of known capacity: it serves one request at a time, each for 10 ms of
// its own clock (request n ends 10 ms after the later of its arrival and request n−1's end), so it
// answers at most 100 requests per second whatever the machine's load; above that its queue, and
// the latency, grow without end. The capacity is low so that the generator, even under -race on a
// busy machine, is never what limits the rate.
func oneAtATime() *httptest.Server {
	var mu sync.Mutex
	var next time.Time
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		now := time.Now()
		if next.Before(now) {
			next = now
		}
		next = next.Add(10 * time.Millisecond)
		done := next
		mu.Unlock()
		time.Sleep(time.Until(done))
	}))
}

// TestSearchFindsAKnownCapacity searches the capacity of a service that serves 100 requests per
// second: the answer must be within 10 % of it.
func TestSearchFindsAKnownCapacity(t *testing.T) {
	if testing.Short() {
		t.Skip("runs about ten 1.3 s steps")
	}
	srv := oneAtATime()
	defer srv.Close()
	var progress []Step
	res, err := Search(context.Background(), Config{
		Plan: plan.Plan{Endpoints: []plan.Endpoint{{URL: srv.URL + "/"}}},
		// The median, not the tail: on a busy machine the p99 spikes at any rate, while above the
		// capacity the queue, and so the median, grows without end.
		SLO: slo(t, "p50<25ms,errors<1%"), Start: 25, Step: time.Second, Warmup: 300 * time.Millisecond,
		OnStep: func(s Step) { progress = append(progress, s) },
	})
	if err != nil {
		t.Fatal(err)
	}
	var table bytes.Buffer
	if err := Render(&table, res, slo(t, "p50<25ms,errors<1%"), srv.URL, "text"); err != nil {
		t.Fatal(err)
	}
	if res.Best == nil || res.Best.Rate < 90 || res.Best.Rate > 110 || res.FirstFail < res.Best.Rate || res.FirstFail > 121 {
		t.Errorf("best %v/s, first failure %v/s; want the capacity, 100/s, within 10 %%\n%s", res.Best.Rate, res.FirstFail, table.String())
	}
	if len(progress) != len(res.Steps) {
		t.Errorf("OnStep saw %d steps of %d", len(progress), len(res.Steps))
	}
	var doc map[string]any
	var js bytes.Buffer
	if err := Render(&js, res, slo(t, "p99<50ms"), srv.URL, "json"); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil || doc["max_sustainable_rps"] != res.Best.Rate || len(doc["steps"].([]any)) != len(res.Steps) {
		t.Errorf("JSON report %s; want max_sustainable_rps %v and every step", js.String(), res.Best.Rate)
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
		SLO:  slo(t, "p99<1s"), Start: 50, Step: 300 * time.Millisecond, Warmup: -1,
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
	// 12 steps (see TestSearchRisesThenBisects): 100 … 6400, 6979 and 7288 passed (9); 12800,
	// 9051 and 7611 failed (3); two points each
	filled := strings.Count(html, `fill="#2a6fdb" stroke="#2a6fdb"`) + strings.Count(html, `fill="#e08a00" stroke="#e08a00"`)
	hollow := strings.Count(html, `fill="#fff" stroke=`)
	if filled != 18 || hollow != 6 {
		t.Errorf("%d filled and %d hollow points; want 18 and 6 (9 passing and 3 failing steps, p50 and p99 each)", filled, hollow)
	}
	if !strings.Contains(html, "objective 50.0 ms") || strings.Count(html, "<tr><td>") != 12 || !strings.Contains(html, "max sustainable: 7,288/s") {
		t.Errorf("page lacks the objective's line, a row per step or the answer:\n%s", html)
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
	// the same steps as TestSearchRisesThenBisects: the best is 7288.2, the first failure 7610.9
	if len(rates) != 12 || res.Best == nil || !near(res.Best.Rate, 7288.2) || !near(res.FirstFail, 7610.9) {
		t.Fatalf("rates %v, best %+v, first fail %v; want 12 steps, 7288.2 passing, 7610.9 failing", rates, res.Best, res.FirstFail)
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
