package summary

import (
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/schedule"
)

const sec = time.Second

// An interval belongs to the stage that holds its midpoint; the drain after the last stage to the
// last; steps of zero length take no interval.
func TestStageOf(t *testing.T) {
	t.Parallel()
	// stage 1 ramps 0→100 over 10 s, stage 2 is a step (no time), stage 3 holds 200 for 10 s
	l := plan.Load{Stages: []schedule.Stage{{Duration: 10 * sec, Target: 100}, {Duration: 0, Target: 200}, {Duration: 10 * sec, Target: 200}}}
	for _, tc := range []struct {
		name       string
		start, end time.Duration
		want       int
	}{
		{"inside the first", 9 * sec, 10 * sec, 1},
		{"mostly in the first", 9400 * time.Millisecond, 10400 * time.Millisecond, 1},
		{"astride, a tie: the later", 9500 * time.Millisecond, 10500 * time.Millisecond, 3},
		{"mostly in the third", 9600 * time.Millisecond, 10600 * time.Millisecond, 3},
		{"across the end: the last", 19500 * time.Millisecond, 20500 * time.Millisecond, 3},
		{"the drain after the end", 25 * sec, 26 * sec, 3},
	} {
		got, ok := StageOf(l, tc.start, tc.end)
		if !ok || got != tc.want {
			t.Errorf("%s: StageOf(%v, %v) = %d, %v; want %d, true", tc.name, tc.start, tc.end, got, ok, tc.want)
		}
	}
	if got, ok := StageOf(plan.Load{Rate: 10, Duration: 10 * sec}, 0, sec); ok {
		t.Errorf("a load without stages: got stage %d; want none", got)
	}
}

// counts builds the Counts of one endpoint: ok answers with latencies okUs (µs), failed answers
// with latencies failUs, and unsent requests that failed before sending.
func counts(c *result.Counts, okUs, failUs []int64, unsent uint64) {
	for _, us := range okUs {
		c.Sent++
		c.Completed++
		c.OK++
		result.RecordDuration(c.Latency, time.Duration(us)*time.Microsecond)
	}
	for _, us := range failUs {
		c.Sent++
		c.Completed++
		c.Errors[result.Status]++
		result.RecordDuration(c.Latency, time.Duration(us)*time.Microsecond)
	}
	c.Unsent += unsent
	c.Errors[result.Refused] += unsent
}

func interval(start, end time.Duration) *result.Interval {
	iv := result.NewInterval(2)
	iv.Start, iv.End = start, end
	return iv
}

// The figures of each stage are those of its intervals' histograms merged, checked against
// figures computed by hand from the latencies put in; ramps are left out unless asked for.
func TestStagesFigures(t *testing.T) {
	t.Parallel()
	// stage 1 holds 100/s for 2 s, stage 2 ramps to 200/s over 2 s, stage 3 steps to 300/s,
	// stage 4 holds it 2 s
	l := plan.Load{Stages: []schedule.Stage{{Duration: 2 * sec, Target: 0}, {Duration: 2 * sec, Target: 200}, {Duration: 0, Target: 300}, {Duration: 2 * sec, Target: 300}}}
	var ivs []*result.Interval
	ivs = append(ivs, interval(0, 0)) // the warm-up's: no length, skipped
	// stage 1: get 3 ok at 1 ms, then 1 ok at 1.5 ms; put one 500 at 2 ms, then one refused
	iv := interval(0, sec)
	counts(iv.Endpoints[0], []int64{1000, 1000, 1000}, nil, 0)
	counts(iv.Endpoints[1], nil, []int64{2000}, 0)
	ivs = append(ivs, iv)
	iv = interval(sec, 2*sec)
	counts(iv.Endpoints[0], []int64{1500}, nil, 0)
	counts(iv.Endpoints[1], nil, nil, 1)
	ivs = append(ivs, iv)
	// stage 2, the ramp: 10 ok at 1 ms a second
	for _, s := range []time.Duration{2 * sec, 3 * sec} {
		iv = interval(s, s+sec)
		counts(iv.Endpoints[0], []int64{1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000}, nil, 0)
		ivs = append(ivs, iv)
	}
	// stage 4: get 2 ok at 0.5 ms, 2 at 0.7 ms, and in the drain after the end 1 at 1.9 ms
	iv = interval(4*sec, 5*sec)
	counts(iv.Endpoints[0], []int64{500, 500}, nil, 0)
	ivs = append(ivs, iv)
	iv = interval(5*sec, 6*sec)
	counts(iv.Endpoints[0], []int64{700, 700}, nil, 0)
	ivs = append(ivs, iv)
	iv = interval(6*sec, 6400*time.Millisecond)
	counts(iv.Endpoints[0], []int64{1900}, nil, 0)
	ivs = append(ivs, iv)

	st := NewStages(l, []string{"get", "put"}, false)
	for _, iv := range ivs {
		st.Add(iv)
	}
	got := st.Results()
	if len(got) != 2 || got[0].Index != 1 || got[1].Index != 4 {
		t.Fatalf("got %d rows %+v; want stages 1 and 4 (the ramp left out)", len(got), got)
	}
	s1, s4 := got[0], got[1]
	// stage 1, all: 6 requests (4 get, 2 put), 4 ok, 2 errors; 5 answers in 2 s; latencies
	// 1, 1, 1, 1.5, 2 ms: p50 1 ms, p95 2 ms, mean 6.5/5 = 1.3 ms
	checkFigures(t, "stage 1", s1.StageFigures, StageFigures{Requests: 6, OK: 4, Errors: 2, RPS: 2.5,
		Latency: Percentiles{Mean: 1.3, P50: 1, P95: 2, P99: 2, Max: 2}})
	if s1.Ramp || s1.From != 0 || s1.To != 0 || s1.Intervals != 2 || s1.MeasuredS != 2 || s1.StartS != 0 || s1.EndS != 2 {
		t.Errorf("stage 1: got %+v; want a hold at 0 over 0–2 s, 2 intervals", s1)
	}
	if len(s1.Endpoints) != 2 {
		t.Fatalf("stage 1: got %d endpoint rows; want 2", len(s1.Endpoints))
	}
	checkFigures(t, "stage 1 get", s1.Endpoints[0], StageFigures{Endpoint: "get", Requests: 4, OK: 4, RPS: 2,
		Latency: Percentiles{Mean: 1.125, P50: 1, P95: 1.5, P99: 1.5, Max: 1.5}})
	checkFigures(t, "stage 1 put", s1.Endpoints[1], StageFigures{Endpoint: "put", Requests: 2, Errors: 2, RPS: 0.5,
		Latency: Percentiles{Mean: 2, P50: 2, P95: 2, P99: 2, Max: 2}})
	// stage 4 with the drain: 5 ok in 2.4 s; latencies 0.5, 0.5, 0.7, 0.7, 1.9 ms: p50 0.7 ms,
	// mean 4.3/5 = 0.86 ms
	checkFigures(t, "stage 4", s4.StageFigures, StageFigures{Requests: 5, OK: 5, RPS: 5 / 2.4,
		Latency: Percentiles{Mean: 0.86, P50: 0.7, P95: 1.9, P99: 1.9, Max: 1.9}})
	if s4.From != 300 || s4.To != 300 || s4.Intervals != 3 || s4.MeasuredS != 2.4 {
		t.Errorf("stage 4: got %+v; want a hold at 300, 3 intervals over 2.4 s", s4)
	}

	// asked for, the ramp has its row: 20 ok at 1 ms over 2 s
	st = NewStages(l, []string{"get", "put"}, true)
	for _, iv := range ivs {
		st.Add(iv)
	}
	got = st.Results()
	if len(got) != 3 || got[1].Index != 2 || !got[1].Ramp || got[1].From != 0 || got[1].To != 200 {
		t.Fatalf("with ramps: got %+v; want stage 2 the ramp 0→200 between 1 and 4", got)
	}
	checkFigures(t, "stage 2", got[1].StageFigures, StageFigures{Requests: 20, OK: 20, RPS: 10,
		Latency: Percentiles{Mean: 1, P50: 1, P95: 1, P99: 1, Max: 1}})
}

func checkFigures(t *testing.T, name string, got, want StageFigures) {
	t.Helper()
	g := got
	g.Latency = Percentiles{Mean: got.Latency.Mean, P50: got.Latency.P50, P95: got.Latency.P95, P99: got.Latency.P99, Max: got.Latency.Max}
	if g != want {
		t.Errorf("%s: got %+v; want %+v", name, g, want)
	}
}

// A warm-up holds the first stage's level, so the first stage starts from it: not a ramp. A run
// without stages has no collector and no rows.
func TestStagesAfterWarmup(t *testing.T) {
	t.Parallel()
	l := plan.Load{Warmup: 5 * sec, Stages: []schedule.Stage{{Duration: 2 * sec, Target: 50}, {Duration: 2 * sec, Target: 100}}}
	st := NewStages(l, []string{"a"}, true)
	st.Add(interval(0, sec))
	st.Add(interval(3*sec, 4*sec))
	got := st.Results()
	if len(got) != 2 || got[0].Ramp || got[0].From != 50 || !got[1].Ramp || got[1].From != 50 || got[1].To != 100 {
		t.Errorf("got %+v; want stage 1 a hold at 50, stage 2 a ramp 50→100", got)
	}
	var none *Stages = NewStages(plan.Load{Rate: 10}, nil, true)
	none.Add(interval(0, sec))
	if none != nil || none.Results() != nil {
		t.Errorf("a load without stages: got %+v; want no collector", none)
	}
}
