package compare_test

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/compare"
	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/summary"
)

// The run the README's `compare` example makes, simulated: an open-model run of 5 s at 200/s
// against a target with a set delay, in 20 intervals of 250 ms (50 answers each).
const (
	simIntervals   = 20
	simPerInterval = 50
	simInterval    = 250 * time.Millisecond
)

// simNoise is what the generator, the network stack and a shared machine add to a target's own
// delay, drawn from a known distribution modelled on the README's measured run of a target without
// delay (p50 1.44 ms, p90 3.31 ms, p99 18.8 ms): a lognormal of median 1.4 ms and σ 0.65, and in
// 3% of requests a stall, exponential with a mean of 8 ms.
func simNoise(rng *rand.Rand) time.Duration {
	ms := 1.4 * math.Exp(0.65*rng.NormFloat64())
	if rng.Float64() < 0.03 {
		ms += rng.ExpFloat64() * 8
	}
	return time.Duration(ms * float64(time.Millisecond))
}

// simulatedRun makes the Summary of a simulated run of a target whose every answer takes delay
// plus simNoise, the noise drawn from seed: through the same path as a result file, each request's
// latency recorded in an interval's HDR histogram, the intervals folded into a timeline and a total.
// No clock is read: the figures depend on delay and seed only.
func simulatedRun(seed uint64, delay time.Duration) *summary.Summary {
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	var tl summary.Timeline
	total := result.NewInterval(1)
	for k := range simIntervals {
		iv := result.NewInterval(1)
		iv.Start, iv.End = time.Duration(k)*simInterval, time.Duration(k+1)*simInterval
		iv.Intended = simPerInterval
		c := iv.Endpoints[0]
		for range simPerInterval {
			d := delay + simNoise(rng)
			result.RecordDuration(c.Latency, d)
			result.RecordDuration(c.Service, d)
			c.Sent++
			c.Completed++
			c.OK++
			c.Status[200]++
		}
		tl.Add(iv, []string{"get"})
		total.Merge(iv)
	}
	length := simIntervals * simInterval
	p := plan.Plan{
		Endpoints: []plan.Endpoint{{Name: "get", Method: "GET", URL: "http://127.0.0.1:8087/"}},
		Load:      plan.Load{Model: plan.Open, Rate: simPerInterval / simInterval.Seconds(), Duration: length, Interval: simInterval},
	}
	s := summary.New(summary.Run{Plan: p, Trailer: result.Trailer{Elapsed: length, Sending: length, Intended: simIntervals * simPerInterval}}, total)
	s.SetTimeline(tl.Points)
	return s
}

// simulatedPairs makes trials pairs of simulated runs, each of its own seeds: a base of delay and a
// new run of delay·(1+shift).
func simulatedPairs(delay time.Duration, shift float64, trials int, firstSeed uint64) [][2]*summary.Summary {
	pairs := make([][2]*summary.Summary, trials)
	for i := range pairs {
		seed := firstSeed + 2*uint64(i)
		pairs[i] = [2]*summary.Summary{simulatedRun(seed, delay), simulatedRun(seed+1, time.Duration(float64(delay)*(1+shift)))}
	}
	return pairs
}

// alarms counts the pairs whose new run fails gates, a --fail-on list, at compare's default level.
func alarms(t *testing.T, gates string, pairs [][2]*summary.Summary) int {
	t.Helper()
	gs, err := compare.ParseGates(gates)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range pairs {
		for _, r := range compare.NewDelta(p[0], p[1], []string{"A", "B"}, 0).Check(gs) {
			if r.Failed {
				n++
				break
			}
		}
	}
	return n
}

// compare --fail-on's false alarms and power, measured on result data drawn from known
// distributions: A against A (the same target delay, 10 ms) raises at most 1 alarm in 20 at the
// default level, with every gate at once at a limit of 0 too; and A against A with 5% more delay
// (10.5 ms) is caught in at least 19 of 20 by a gate on p50 with a limit below the 5%, alone or
// among others. The runs are the README example's (5 s at 200/s in 20 intervals of 250 ms). The
// model takes the intervals of both runs to be independent draws of one noise, which interleaved
// runs of one binary approach (a drift of the machine between two runs is not in it: interleave,
// and repeat a run that fails). On 400 pairs: see docs/methodology.md.
func TestGateFalseAlarmsAndPower(t *testing.T) {
	t.Parallel()
	const delay = 10 * time.Millisecond
	same, slower := simulatedPairs(delay, 0, 20, 1), simulatedPairs(delay, 0.05, 20, 1001)
	for _, gates := range []string{"p50:+2%", "p50:+2%,p90:+2%,p99:+2%,errors:+0.5pp", "p50:+0%,p90:+0%,p99:+0%,max:+0%,rps:-0%,errors:+0pp"} {
		if n := alarms(t, gates, same); n > 1 {
			t.Errorf("--fail-on %s, A vs A: %d false alarms in 20; want at most 1", gates, n)
		}
	}
	for _, gates := range []string{"p50:+2%", "p50:+2%,p90:+2%,p99:+2%,errors:+0.5pp"} {
		if n := alarms(t, gates, slower); n < 19 {
			t.Errorf("--fail-on %s, A vs A + 5%% delay: caught %d of 20; want at least 19", gates, n)
		}
	}
}
