package compare

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/summary"
)

// runOf returns a run of the given totals whose timeline has one point per rps/p99 pair, each
// interval one second long with 1000 requests of which errs failed.
func runOf(rps, p99 float64, sent, errors uint64, rpss, p99s []float64, errs uint64) *summary.Summary {
	s := run(rps, p99, sent, errors)
	for i := range rpss {
		s.Timeline = append(s.Timeline, summary.Point{Start: float64(i), End: float64(i + 1), Sent: 1000, OK: 1000 - errs, Errors: errs, RPS: rpss[i], P99: p99s[i], Max: p99s[i]})
	}
	return s
}

// base: 10 intervals around 1000/s and 10 ms; slower: every interval below and above them.
func fixtures() (base, slower, noisy, short *summary.Summary) {
	base = runOf(1000, 10, 10000, 0, seq(995, 1004, 1), seq(9.5, 10.4, 0.1), 0)
	slower = runOf(900, 12, 10000, 50, seq(895, 904, 1), seq(11.5, 12.4, 0.1), 5)
	// p99 10% up overall, but interval by interval it interleaves with the base
	noisy = runOf(1000, 11, 10000, 0, seq(995, 1004, 1), seq(9.55, 10.45, 0.1), 0)
	short = runOf(900, 12, 1000, 0, []float64{895}, []float64{11.5}, 0)
	return
}

func TestDeltaChanges(t *testing.T) {
	t.Parallel()
	base, slower, noisy, short := fixtures()
	tests := []struct {
		name    string
		next    *summary.Summary
		metric  string
		diff    float64
		rel     float64 // NaN: none
		p       float64 // -1: not tested
		verdict string
	}{
		// every interval of the new run is below every one of the base: U 0 of 10×10, exact
		// P = 2/C(20,10) = 2/184756
		{"slower", slower, "throughput", -100, -0.1, 2.0 / 184756, "worse"},
		{"slower", slower, "p99", 2, 0.2, 2.0 / 184756, "worse"},
		// 0% in 10 intervals against 0.5% in 10: two groups of ten ties, U 0; only the 2 splits
		// that keep the groups whole are as extreme: P = 2/184756
		{"slower", slower, "error rate", 0.5, math.NaN(), 2.0 / 184756, "worse"},
		{"slower", slower, "p99.9", 0, math.NaN(), -1, "same"},
		// interleaved intervals: the base's k-th value beats the new run's k below it, U = 45 of
		// 100; 68301 of the 184756 splits of ranks 1…20 have a rank sum ≤ 45 + 55: P = 2·68301/184756
		{"noisy", noisy, "p99", 1, 0.1, 2 * 68301.0 / 184756, "within noise"},
		{"short", short, "p99", 2, 0.2, -2, "too few intervals"},
	}
	for _, tc := range tests {
		d := NewDelta(base, tc.next, []string{"base", tc.name}, 0)
		c, ok := d.Find(tc.metric)
		if !ok {
			t.Fatalf("no change %q", tc.metric)
		}
		if math.Abs(c.Diff-tc.diff) > 1e-9 {
			t.Errorf("%s %s: got diff %v; want %v", tc.name, tc.metric, c.Diff, tc.diff)
		}
		if math.IsNaN(tc.rel) != math.IsNaN(c.Rel) || !math.IsNaN(tc.rel) && math.Abs(c.Rel-tc.rel) > 1e-9 {
			t.Errorf("%s %s: got rel %v; want %v", tc.name, tc.metric, c.Rel, tc.rel)
		}
		switch {
		case tc.p == -1 && c.Test != nil:
			t.Errorf("%s %s: got a test %+v; want none", tc.name, tc.metric, c.Test)
		case tc.p >= 0 && (c.Test == nil || math.Abs(c.Test.P-tc.p) > 1e-9*tc.p):
			t.Errorf("%s %s: got test %+v; want P %v", tc.name, tc.metric, c.Test, tc.p)
		}
		if got := c.Verdict(); got != tc.verdict {
			t.Errorf("%s %s: got verdict %q; want %q", tc.name, tc.metric, got, tc.verdict)
		}
	}
	d := NewDelta(base, noisy, nil, 0)
	if c, _ := d.Find("p99"); c.Test.U != 45 || c.Samples != [2]int{10, 10} {
		t.Errorf("noisy p99: got U %v of %v samples; want U 45 of 10 and 10", c.Test.U, c.Samples)
	}
}

func TestGates(t *testing.T) {
	t.Parallel()
	base, slower, noisy, short := fixtures()
	tests := []struct {
		spec   string
		next   *summary.Summary
		failed bool
		why    string
	}{
		{"p99:+10%", slower, true, "p99 rose 20.0% (limit 10%), beyond the noise (P 1.1e-05 < 0.05)"},
		{"p99:25%", slower, false, "p99 rose 20.0%, within the limit 25%"},
		{"p99:+1.5ms", slower, true, "p99 rose by 2.00ms (limit 1.5ms), beyond the noise (P 1.1e-05 < 0.05)"},
		{"rps:-5%", slower, true, "throughput fell 10.0% (limit 5%), beyond the noise (P 1.1e-05 < 0.05)"},
		{"rps:-15%", slower, false, "throughput fell 10.0%, within the limit 15%"},
		{"errors:+0.5pp", slower, false, "error rate rose by 0.50pp, within the limit 0.5pp"},
		{"errors:+0.4pp", slower, true, "error rate rose by 0.50pp (limit 0.4pp), beyond the noise (P 1.1e-05 < 0.05)"},
		{"p99:+5%", noisy, false, "p99 rose 10.0% (limit 5%), within the noise (P 0.74 ≥ 0.05)"},
		{"p99:+5%", short, false, "p99 rose 20.0% (limit 5%), but 10 and 1 intervals are too few to tell it from noise (the smallest P they allow is 0.18 ≥ 0.05)"},
		{"rps:-5%", base, false, "throughput did not change"},
	}
	for _, tc := range tests {
		gates, err := ParseGates(tc.spec)
		if err != nil {
			t.Fatalf("%s: %v", tc.spec, err)
		}
		r := NewDelta(base, tc.next, nil, 0).Check(gates)[0]
		if r.Failed != tc.failed || r.Why != tc.why {
			t.Errorf("%s: got failed %v, %q; want %v, %q", tc.spec, r.Failed, r.Why, tc.failed, tc.why)
		}
	}
}

func TestParseGates(t *testing.T) {
	t.Parallel()
	gates, err := ParseGates("p99:+10%, rps:-5%,errors:+0.5pp,p50:2ms")
	if err != nil {
		t.Fatal(err)
	}
	want := []Gate{
		{"p99:+10%", "p99", 10, "%"},
		{"rps:-5%", "throughput", 5, "%"},
		{"errors:+0.5pp", "error rate", 0.5, "pp"},
		{"p50:2ms", "p50", 2, "ms"},
	}
	if len(gates) != len(want) {
		t.Fatalf("got %+v; want %+v", gates, want)
	}
	for i := range want {
		if gates[i] != want[i] {
			t.Errorf("gate %d: got %+v; want %+v", i, gates[i], want[i])
		}
	}
	bad := []struct{ spec, want string }{
		{"p99", `"p99": want FIGURE:LIMIT`},
		{"p99.9:+10%", `unknown figure "p99.9"; want one of rps, errors, p50, p90, p99, max`},
		{"p99:+10", `the limit "+10" has no unit`},
		{"p99:-10%", `p99 gets worse as it rises; write p99:+10%`},
		{"rps:+5%", `rps gets worse as it falls; write rps:-5%`},
		{"rps:-5pp", `pp (percentage points) is a limit for errors only`},
		{"errors:+1%", `limit the error rate in percentage points`},
		{"rps:-5ms", `ms is a limit for latencies only`},
		{"p99:+x%", `want a limit such as +10%, got "+x%"`},
	}
	for _, tc := range bad {
		_, err := ParseGates(tc.spec)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got error %v; want one containing %q", tc.spec, err, tc.want)
		}
	}
	if _, err := ParseGates("p99:x,rps:y"); err == nil || strings.Count(err.Error(), "\n") != 1 {
		t.Errorf("got %v; want both problems, one per line", err)
	}
}

// In JSON a change says which way is better, its relative change (null from 0) and its verdict.
func TestChangeJSON(t *testing.T) {
	t.Parallel()
	base, slower, _, _ := fixtures()
	c, _ := NewDelta(base, slower, nil, 0).Find("error rate")
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"better":"lower"`, `"rel":null`, `"verdict":"worse"`, `"samples":[10,10]`, `"significant":true`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("got %s; want it to hold %s", b, want)
		}
	}
}

// openOf is an open-model run at rate over 10 intervals of 1 s whose answers/s are rpss, none failed.
func openOf(rate float64, rpss []float64) *summary.Summary {
	var ok float64
	for _, r := range rpss {
		ok += r
	}
	s := runOf(ok/10, 10, uint64(ok), 0, rpss, seq(9.5, 10.4, 0.1), 0)
	s.Config.Load = plan.Load{Model: plan.Open, Rate: rate, Duration: 10 * time.Second}
	s.IntendedRate, s.DurationS, s.Requests.OK = rate, 10, uint64(ok)
	return s
}

// In the open model the rate is the input: a run asked for half the rate has half the throughput,
// which is not a regression; what the target made of its own rate is. rps:-5% reads that.
func TestDeltaOpenModelGatesAchievedShare(t *testing.T) {
	t.Parallel()
	base := openOf(2000, seq(1995, 2004, 1))  // 19995 of 20,000: 99.975% of 2000/s
	half := openOf(1000, seq(995, 1004, 1))   // 9995 of 10,000: 99.95% of 1000/s
	short := openOf(2000, seq(1795, 1804, 1)) // 17995 of 20,000: 89.975% of 2000/s
	gates, err := ParseGates("rps:-5%")
	if err != nil {
		t.Fatal(err)
	}
	d := NewDelta(base, half, []string{"base", "half"}, 0)
	if c, _ := d.Find("throughput"); c.Verdict() != "not judged" || c.Worse() {
		t.Errorf("throughput of open-model runs: verdict %q, worse %v; want \"not judged\", false", c.Verdict(), c.Worse())
	}
	if d.InputsNote != "compared at their own inputs: rate 2000/s vs 1000/s" {
		t.Errorf("inputs note %q; want the two rates", d.InputsNote)
	}
	if r := d.Check(gates)[0]; r.Failed || r.Change.Name != "achieved/intended" {
		t.Errorf("half the rate asked: gate failed %v on %q (%s); want a pass on achieved/intended", r.Failed, r.Change.Name, r.Why)
	}
	d = NewDelta(base, short, []string{"base", "short"}, 0)
	r := d.Check(gates)[0]
	// 89.975/99.975 − 1 = −10.0%; every interval below the base's: P = 2/C(20,10)
	if !r.Failed || !strings.Contains(r.Why, "achieved/intended fell 10.0% (limit 5%), beyond the noise") {
		t.Errorf("a tenth short of the same rate: failed %v, %q; want a failure on achieved/intended", r.Failed, r.Why)
	}
	if math.Abs(r.Change.Test.P-2.0/184756) > 1e-12 {
		t.Errorf("P %v; want 2/184756", r.Change.Test.P)
	}
}

// Gates share the level by Holm's method: P values taken in increasing order, the k-th of m held to
// alpha/(m−k+1), and none beyond the noise after the first that is not.
func TestGatesShareTheLevel(t *testing.T) {
	t.Parallel()
	delta := func(ps ...float64) *Delta {
		d := &Delta{Alpha: 0.05}
		for i, p := range ps {
			// every figure 20% worse, tested on 20 intervals each (MinP far below any level here)
			d.Changes = append(d.Changes, Change{Name: []string{"p50", "p90", "p99"}[i], Unit: "ms", Better: LowerIsBetter, Base: 10, New: 12, Diff: 2, Rel: 0.2,
				Test: &RankTest{N1: 20, N2: 20, P: p, MinP: 1e-11}})
		}
		return d
	}
	gates, err := ParseGates("p50:+10%,p90:+10%,p99:+10%")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		ps     []float64
		failed []bool
		levels []float64
	}{
		// 0.01 < 0.05/3, 0.02 < 0.05/2, 0.04 < 0.05: every one beyond the noise
		{"all below their levels", []float64{0.04, 0.01, 0.02}, []bool{true, true, true}, []float64{0.05, 0.05 / 3, 0.05 / 2}},
		// 0.02 ≥ 0.05/3 stops it: none is beyond, though each is below 0.05 alone
		{"the smallest above its level", []float64{0.03, 0.02, 0.04}, []bool{false, false, false}, []float64{0.05 / 2, 0.05 / 3, 0.05}},
		// 0.001 < 0.05/3; 0.03 ≥ 0.05/2 stops the rest
		{"one beyond", []float64{0.001, 0.03, 0.04}, []bool{true, false, false}, []float64{0.05 / 3, 0.05 / 2, 0.05}},
	} {
		rs := delta(tc.ps...).Check(gates)
		for i, r := range rs {
			if r.Failed != tc.failed[i] || math.Abs(r.Level-tc.levels[i]) > 1e-12 {
				t.Errorf("%s: gate %s (P %v): failed %v at level %v; want %v at %v (%s)", tc.name, r.Gate.Spec, tc.ps[i], r.Failed, r.Level, tc.failed[i], tc.levels[i], r.Why)
			}
		}
	}
	// a gate Holm's sequence never reached says so, not that its P was at or above its level
	if r := delta(0.03, 0.02, 0.04).Check(gates)[2]; strings.Contains(r.Why, "≥") || !strings.Contains(r.Why, "its P 0.04 is below 0.05") || !strings.Contains(r.Why, "ends Holm's sequence") {
		t.Errorf("p99 (P 0.04, level 0.05) after a stop: %q; want it below its level, the sequence ended before it", r.Why)
	}
	// one gate alone is held to alpha itself
	one, _ := ParseGates("p50:+10%")
	if r := delta(0.04).Check(one)[0]; !r.Failed || r.Level != 0.05 || !strings.HasSuffix(r.Why, "beyond the noise (P 0.04 < 0.05)") {
		t.Errorf("one gate, P 0.04: failed %v at %v, %q; want a failure at 0.05", r.Failed, r.Level, r.Why)
	}
}

// Runs sent by different senders are not "the same inputs": the event loop times answers by the
// kernel's receive timestamps, a goroutine per connection when it reads them.
func TestDeltaNamesTheSender(t *testing.T) {
	t.Parallel()
	loop, goroutines := openOf(1000, seq(995, 1004, 1)), openOf(1000, seq(995, 1004, 1))
	loop.Sender = "event loop"
	if d := NewDelta(loop, goroutines, []string{"loop", "goroutines"}, 0); d.InputsNote != "compared at their own inputs: sender event loop vs goroutines" {
		t.Errorf("inputs note %q; want the senders", d.InputsNote)
	}
	goroutines.Sender = "event loop"
	if d := NewDelta(loop, goroutines, []string{"a", "b"}, 0); d.InputsNote != "" {
		t.Errorf("inputs note %q; want none: the same sender", d.InputsNote)
	}
}
