package summary

import (
	"strings"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/result"
)

// The expected figures below are worked out by hand from the values recorded. Latencies are
// recorded below 2048 µs, where the histogram (3 significant digits) keeps every microsecond, so
// the percentiles are exact.

// tenToThousand records the 100 latencies 10, 20, …, 1000 µs into c, all answered 200, and
// service times of half as much.
func tenToThousand(c *result.Counts) {
	for v := int64(10); v <= 1000; v += 10 {
		_ = c.Latency.RecordValue(v)
		_ = c.Service.RecordValue(v / 2)
		c.Sent++
		c.Completed++
		c.OK++
		c.Status[200]++
	}
}

func openPlan(rate float64) plan.Plan {
	return plan.Plan{Endpoints: []plan.Endpoint{{Name: "GET /", URL: "http://127.0.0.1:1/"}},
		Load: plan.Load{Model: plan.Open, Rate: rate, Duration: time.Second}}
}

func TestPercentilesOfAKnownHistogram(t *testing.T) {
	t.Parallel()
	iv := result.NewInterval(1)
	tenToThousand(iv.Endpoints[0])
	s := New(Run{Plan: openPlan(100), Trailer: result.Trailer{Elapsed: time.Second, Sending: time.Second, Intended: 100}}, iv)
	// The p-th percentile of 100 values is the ⌊p + 0.5⌋-th smallest (the 100th for 99.9 and
	// 99.99); mean 505 µs; population stdev 10·√((100²−1)/12) = 288.661 µs.
	want := Percentiles{Min: 0.01, Mean: 0.505, Stdev: 0.289, P50: 0.5, P75: 0.75, P90: 0.9, P95: 0.95, P99: 0.99, P999: 1, P9999: 1, Max: 1}
	if s.Latency != want {
		t.Errorf("latency: got %+v; want %+v", s.Latency, want)
	}
	// service times 5, 10, …, 500 µs: mean 252.5 µs, rounded to the microsecond
	wantSvc := Percentiles{Min: 0.005, Mean: 0.253, Stdev: 0.144, P50: 0.25, P75: 0.375, P90: 0.45, P95: 0.475, P99: 0.495, P999: 0.5, P9999: 0.5, Max: 0.5}
	if s.Service != wantSvc {
		t.Errorf("service time: got %+v; want %+v", s.Service, wantSvc)
	}
	if s.TTFB != nil {
		t.Errorf("time to first byte: got %+v; want none (nothing recorded)", *s.TTFB)
	}
	if got := s.Endpoints[0].Latency; got != want {
		t.Errorf("endpoint latency: got %+v; want %+v", got, want)
	}
}

// Throughput is answers per second over the run's length: to the last answer, or to the end of
// the schedule when the last answer came before it.
func TestThroughputWindow(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                       string
		elapsed, sending, sendSpan time.Duration
		want                       float64
		wantDuration               float64
	}{
		{"last answer after the schedule", 2 * time.Second, 1500 * time.Millisecond, 0, 50, 2},                   // 100 / 2 s
		{"last answer before the schedule's end", 950 * time.Millisecond, 1250 * time.Millisecond, 0, 80, 1.25},  // 100 / 1.25 s
		{"generator sent past the schedule", 1 * time.Second, 1 * time.Second, 2500 * time.Millisecond, 40, 2.5}, // 100 / 2.5 s
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			iv := result.NewInterval(1)
			tenToThousand(iv.Endpoints[0])
			s := New(Run{Plan: openPlan(100), Trailer: result.Trailer{Elapsed: tt.elapsed, Sending: tt.sending, SendSpan: tt.sendSpan, Intended: 100}}, iv)
			if s.Throughput != tt.want || s.Endpoints[0].Throughput != tt.want {
				t.Errorf("throughput: got %v (endpoint %v); want %v", s.Throughput, s.Endpoints[0].Throughput, tt.want)
			}
			if s.DurationS != tt.wantDuration {
				t.Errorf("duration: got %v s; want %v s", s.DurationS, tt.wantDuration)
			}
		})
	}
}

// The counts of requests, the rates and the notes, for a generator that kept up, one that never
// sent some arrivals, one that sent them all but late, and the closed model.
func TestRequestsRatesAndNotes(t *testing.T) {
	t.Parallel()
	lag := func(us int64) func(*result.Interval) {
		return func(iv *result.Interval) {
			for range 100 {
				_ = iv.SendLag.RecordValue(us)
			}
		}
	}
	tests := []struct {
		name              string
		model             plan.Model
		intended          uint64
		sending, sendSpan time.Duration
		lag               func(*result.Interval)
		stop              string
		interrupted       bool
		wantIntended      uint64
		wantDropped       uint64
		wantIntendedRate  float64
		wantSendRate      float64
		wantNotes         []string
	}{
		{name: "kept up", model: plan.Open, intended: 100, sending: time.Second,
			wantIntended: 100, wantIntendedRate: 100, wantSendRate: 100},
		{name: "never sent", model: plan.Open, intended: 125, sending: 1250 * time.Millisecond,
			wantIntended: 125, wantDropped: 25, wantIntendedRate: 100, wantSendRate: 80,
			wantNotes: []string{"the generator fell behind: 25 of 125 intended requests were never sent (20.0%); raise --connections or lower the rate"}},
		{name: "sent late", model: plan.Open, intended: 100, sending: time.Second, sendSpan: 1600 * time.Millisecond,
			wantIntended: 100, wantIntendedRate: 100, wantSendRate: 62.5,
			wantNotes: []string{"the generator fell behind: it sent 62.5/s of an intended 100.0/s, taking 1.60s to send what was due in 1.00s; raise --connections or lower the rate"}},
		// 100 in 1.01 s is 99.0/s: within 1 % of the intended 100/s, no note
		{name: "sent a little late", model: plan.Open, intended: 100, sending: time.Second, sendSpan: 1010 * time.Millisecond,
			wantIntended: 100, wantIntendedRate: 100, wantSendRate: 100 / 1.01},
		// 20,000 µs reads back as 20,015 µs, the top of its histogram bucket (16 µs wide there)
		{name: "late sends", model: plan.Open, intended: 100, sending: time.Second, lag: lag(20000),
			wantIntended: 100, wantIntendedRate: 100, wantSendRate: 100,
			wantNotes: []string{"requests went out late: send lag p99 20.0ms, max 20.0ms; latency still counts from the intended send times"}},
		{name: "lag under the threshold", model: plan.Open, intended: 100, sending: time.Second, lag: lag(9000),
			wantIntended: 100, wantIntendedRate: 100, wantSendRate: 100},
		{name: "stopped and interrupted", model: plan.Open, intended: 100, sending: time.Second, stop: "data ran out", interrupted: true,
			wantIntended: 100, wantIntendedRate: 100, wantSendRate: 100,
			wantNotes: []string{"interrupted: the figures cover the run up to the interruption", "stopped early: data ran out"}},
		// the closed model has no schedule: what was intended is what was sent, whatever Intended says
		{name: "closed", model: plan.Closed, intended: 0, sending: time.Second,
			wantIntended: 100, wantIntendedRate: 100, wantSendRate: 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			iv := result.NewInterval(1)
			tenToThousand(iv.Endpoints[0])
			if tt.lag != nil {
				tt.lag(iv)
			}
			p := openPlan(100)
			p.Load.Model = tt.model
			s := New(Run{Plan: p, Trailer: result.Trailer{Elapsed: 2 * time.Second, Sending: tt.sending, SendSpan: tt.sendSpan, Intended: tt.intended, StopReason: tt.stop, Interrupted: tt.interrupted}}, iv)
			r := s.Requests
			if r.Intended != tt.wantIntended || r.Sent != 100 || r.Dropped != tt.wantDropped {
				t.Errorf("intended, sent, never sent: got %d, %d, %d; want %d, 100, %d", r.Intended, r.Sent, r.Dropped, tt.wantIntended, tt.wantDropped)
			}
			if s.IntendedRate != tt.wantIntendedRate || s.SendRate != tt.wantSendRate {
				t.Errorf("intended rate, send rate: got %v, %v; want %v, %v", s.IntendedRate, s.SendRate, tt.wantIntendedRate, tt.wantSendRate)
			}
			if got, want := strings.Join(s.Notes, "\n"), strings.Join(tt.wantNotes, "\n"); got != want {
				t.Errorf("notes:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

// Errors are the requests sent that did not succeed, whatever their class, and every class and
// message is counted apart.
func TestErrorsAndStatus(t *testing.T) {
	t.Parallel()
	iv := result.NewInterval(2)
	a, b := iv.Endpoints[0], iv.Endpoints[1]
	tenToThousand(a)
	// endpoint b: 3 timeouts (no answer), 2 answers with 503, 5 successes
	b.Sent, b.Completed, b.OK = 10, 7, 5
	b.Status[503], b.Status[200] = 2, 5
	b.Errors[result.Timeout], b.Errors[result.Status] = 3, 2
	b.Messages[result.ErrorKey{Class: result.Timeout, Message: "i/o timeout"}] = 3
	b.Messages[result.ErrorKey{Class: result.Status, Message: "status 503"}] = 2
	p := openPlan(100)
	p.Endpoints = append(p.Endpoints, plan.Endpoint{Name: "POST /b", URL: "http://127.0.0.1:1/b"})
	s := New(Run{Plan: p, Trailer: result.Trailer{Elapsed: time.Second, Sending: time.Second, Intended: 110}}, iv)
	if r := s.Requests; r.Sent != 110 || r.Completed != 107 || r.OK != 105 || r.Errors != 5 || r.Dropped != 0 {
		t.Errorf("requests: got %+v; want sent 110, completed 107, ok 105, errors 5, none never sent", r)
	}
	if s.Status["200"] != 105 || s.Status["503"] != 2 || len(s.Status) != 2 {
		t.Errorf("status: got %v; want 200: 105, 503: 2", s.Status)
	}
	if s.Errors["timeout"] != 3 || s.Errors["status"] != 2 || len(s.Errors) != 2 {
		t.Errorf("errors: got %v; want timeout: 3, status: 2", s.Errors)
	}
	want := []ErrorMessage{{"timeout", "i/o timeout", 3}, {"status", "status 503", 2}}
	if len(s.ErrorMessages) != 2 || s.ErrorMessages[0] != want[0] || s.ErrorMessages[1] != want[1] {
		t.Errorf("error messages: got %+v; want %+v", s.ErrorMessages, want)
	}
	eb := s.Endpoints[1]
	if eb.Name != "POST /b" || eb.Requests.Sent != 10 || eb.Requests.Errors != 5 || eb.Throughput != 7 {
		t.Errorf("endpoint b: got %s sent %d errors %d throughput %v; want POST /b, 10, 5, 7/s", eb.Name, eb.Requests.Sent, eb.Requests.Errors, eb.Throughput)
	}
}

// A timeline point holds its interval's counts, answers per second over the interval's length,
// and the latency percentiles each under its own name.
func TestTimelinePoints(t *testing.T) {
	t.Parallel()
	iv := result.NewInterval(2)
	iv.Start, iv.End = 2*time.Second, 2500*time.Millisecond
	tenToThousand(iv.Endpoints[0])
	_ = iv.Endpoints[1].Latency.RecordValue(1500)
	iv.Endpoints[1].Sent, iv.Endpoints[1].Completed = 2, 1 // one answered, one not
	var tl Timeline
	tl.Add(iv, []string{"a", "b"})
	want := []Point{
		{Start: 2, End: 2.5, Sent: 102, OK: 100, Errors: 2, RPS: 202, P50: 0.51, P90: 0.91, P99: 1.0, Max: 1.5, SvcP50: 0.25, SvcP99: 0.495},
		{Start: 2, End: 2.5, Endpoint: "a", Sent: 100, OK: 100, RPS: 200, P50: 0.5, P90: 0.9, P99: 0.99, Max: 1, SvcP50: 0.25, SvcP99: 0.495},
		{Start: 2, End: 2.5, Endpoint: "b", Sent: 2, Errors: 2, RPS: 2, P50: 1.5, P90: 1.5, P99: 1.5, Max: 1.5},
	}
	// all together: 101 latencies 10, 20, …, 1000, 1500 µs; the p-th percentile is the
	// ⌊1.01·p + 0.5⌋-th smallest: p50 the 51st (510), p90 the 91st (910), p99 the 100th (1000);
	// service times 5, 10, …, 500 µs (a's only): p50 the 50th (250), p99 the 99th (495)
	if len(tl.Points) != len(want) {
		t.Fatalf("got %d points; want %d", len(tl.Points), len(want))
	}
	for i, w := range want {
		if got := tl.Points[i]; got != w {
			t.Errorf("point %d:\ngot  %+v\nwant %+v", i, got, w)
		}
	}
	// an empty interval adds nothing
	tl.Add(result.NewInterval(2), nil)
	if len(tl.Points) != len(want) {
		t.Errorf("after an empty interval: got %d points; want %d", len(tl.Points), len(want))
	}
}

// Of carries every fact of an engine run into the Summary.
// The run's record (what the engine's Result and a result file's trailer hold) becomes the
// summary's header figures: the start in UTC, the lengths, the rates, the warm-up and the stop.
func TestRunRecord(t *testing.T) {
	t.Parallel()
	iv := result.NewInterval(1)
	tenToThousand(iv.Endpoints[0])
	p := openPlan(100)
	p.Load.Warmup = 500 * time.Millisecond
	started := time.Date(2026, 5, 6, 7, 8, 9, 0, time.FixedZone("X", 3600))
	run := result.Trailer{MeasuredStart: started, Elapsed: 3 * time.Second, Sending: 2 * time.Second, SendSpan: 2500 * time.Millisecond,
		Intended: 150, WarmupSent: 42, Interrupted: true, StopReason: "data ran out"}
	s := New(Run{Plan: p, Version: "v9", Trailer: run}, iv)
	if s.Tool.Version != "v9" || !s.StartedAt.Equal(started) || s.StartedAt.Location() != time.UTC {
		t.Errorf("tool %q, started %v; want v9, %v in UTC", s.Tool.Version, s.StartedAt, started)
	}
	if s.DurationS != 3 || s.SendingS != 2 || s.SendSpanS != 2.5 {
		t.Errorf("duration, sending, send span: got %v, %v, %v s; want 3, 2, 2.5", s.DurationS, s.SendingS, s.SendSpanS)
	}
	if s.Requests.Intended != 150 || s.Requests.Dropped != 50 || s.IntendedRate != 75 || s.SendRate != 40 {
		t.Errorf("intended %d, never sent %d, rates %v and %v; want 150, 50, 75/s and 40/s", s.Requests.Intended, s.Requests.Dropped, s.IntendedRate, s.SendRate)
	}
	if s.Warmup == nil || *s.Warmup != (Warmup{DurationS: 0.5, Sent: 42}) {
		t.Errorf("warm-up: got %+v; want 0.5 s, 42 sent", s.Warmup)
	}
	if !s.Interrupted || s.StopReason != "data ran out" {
		t.Errorf("interrupted %v, stop reason %q; want true, data ran out", s.Interrupted, s.StopReason)
	}
}

// Requests that failed before a byte was written count as failed, not as sent: intended = ok +
// failed + never sent holds, and the back-offs show in the report.
func TestRequestsFailedBeforeSending(t *testing.T) {
	t.Parallel()
	iv := result.NewInterval(1)
	c := iv.Endpoints[0]
	// 10 sent (7 ok, 3 answered 503) and 4 refused before sending
	c.Sent, c.Completed, c.OK, c.Unsent = 10, 10, 7, 4
	c.Errors[result.Status], c.Errors[result.Refused] = 3, 4
	tests := []struct {
		name     string
		model    plan.Model
		intended uint64 // what the run says was due (open model)
		want     Requests
	}{
		{"closed", plan.Closed, 0, Requests{Intended: 14, Sent: 10, Completed: 10, OK: 7, Errors: 7, Unsent: 4}},
		{"open, 2 never sent", plan.Open, 16, Requests{Intended: 16, Sent: 10, Completed: 10, OK: 7, Errors: 7, Unsent: 4, Dropped: 2}},
		// the 4 refused were made on time: the generator kept up
		{"open, all made", plan.Open, 14, Requests{Intended: 14, Sent: 10, Completed: 10, OK: 7, Errors: 7, Unsent: 4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := plan.Plan{Endpoints: []plan.Endpoint{{Name: "a", URL: "http://127.0.0.1:1/"}}, Load: plan.Load{Model: tt.model, Rate: 16}}
			s := New(Run{Plan: p, Trailer: result.Trailer{Intended: tt.intended, Elapsed: time.Second, Sending: time.Second, Backoffs: 4, BackoffTime: 15 * time.Millisecond}}, iv)
			if s.Requests != tt.want {
				t.Errorf("got requests %+v; want %+v", s.Requests, tt.want)
			}
			if r := s.Requests; r.Intended != r.OK+r.Errors+r.Dropped {
				t.Errorf("intended %d != ok %d + failed %d + never sent %d", r.Intended, r.OK, r.Errors, r.Dropped)
			}
			if got := s.Endpoints[0].Requests; got.Intended != 14 || got.Unsent != 4 || got.Errors != 7 {
				t.Errorf("got endpoint requests %+v; want intended 14, unsent 4, errors 7", got)
			}
			behind := strings.Contains(strings.Join(s.Notes, "\n"), "fell behind")
			if want := tt.want.Dropped > 0; behind != want {
				t.Errorf("got notes %q; want a note that the generator fell behind: %v", s.Notes, want)
			}
			if s.Backoff == nil || s.Backoff.Count != 4 || s.Backoff.TotalS != 0.015 {
				t.Errorf("got back-off %+v; want 4 waits, 0.015 s", s.Backoff)
			}
		})
	}
}
