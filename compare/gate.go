package compare

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Gate is one limit on how much worse a new run may be than its base: "p99:+10%" (the p99 may
// rise by 10%), "rps:-5%" (the throughput may fall by 5%), "errors:+0.5pp" (the error rate may
// rise by half a percentage point), "p99:+2ms". A run fails a gate when the figure is worse by more
// than the limit and the difference is beyond the noise (see Change.Significant).
type Gate struct {
	Spec   string  `json:"spec"`   // as written: "p99:+10%"
	Metric string  `json:"metric"` // the Change it reads: "p99", "throughput", "error rate"
	Limit  float64 `json:"limit"`  // how much worse, ≥ 0, in Unit
	Unit   string  `json:"unit"`   // "%" (of the base's value), "pp" (percentage points), "ms"
}

// gateFigures are the figures a gate may name, with the Change each reads: those a Timeline holds
// per interval, so that a change can be told from noise.
var gateFigures = map[string]string{
	"rps": throughput.name, "throughput": throughput.name,
	"errors": errorRate.name,
	"p50":    "p50", "p90": "p90", "p99": "p99", "max": "max",
}

// GateFigures lists the names a gate may use, for messages and help.
const GateFigures = "rps, errors, p50, p90, p99, max"

// ParseGates reads a comma-separated list of gates, "FIGURE:LIMIT" each: FIGURE one of
// GateFigures; LIMIT a number with a unit, "%" of the base's value (any figure), "pp" percentage
// points (errors only) or "ms" (latencies only), signed the way the figure gets worse ("+" for
// latencies and errors, "-" for rps) or not signed at all. Every problem is joined in the error.
func ParseGates(s string) ([]Gate, error) {
	var out []Gate
	var errs []error
	for _, spec := range strings.Split(s, ",") {
		spec = strings.TrimSpace(spec)
		g, err := parseGate(spec)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, g)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

func parseGate(spec string) (Gate, error) {
	name, limit, ok := strings.Cut(spec, ":")
	name, limit = strings.TrimSpace(name), strings.TrimSpace(limit)
	if !ok || name == "" || limit == "" {
		return Gate{}, fmt.Errorf("%q: want FIGURE:LIMIT, e.g. p99:+10%%, rps:-5%%, errors:+0.5pp", spec)
	}
	metric, ok := gateFigures[strings.ToLower(name)]
	if !ok {
		return Gate{}, fmt.Errorf("%q: unknown figure %q; want one of %s (figures a run holds interval by interval, so that a change can be told from noise)", spec, name, GateFigures)
	}
	g := Gate{Spec: spec, Metric: metric}
	num := limit
	for _, u := range []string{"%", "pp", "ms"} {
		if rest, ok := strings.CutSuffix(num, u); ok {
			g.Unit, num = u, strings.TrimSpace(rest)
			break
		}
	}
	latency := metric != throughput.name && metric != errorRate.name
	switch {
	case g.Unit == "":
		return Gate{}, fmt.Errorf("%q: the limit %q has no unit; want %% (of the base's value), pp (percentage points, errors only) or ms (latencies only)", spec, limit)
	case g.Unit == "pp" && metric != errorRate.name:
		return Gate{}, fmt.Errorf("%q: pp (percentage points) is a limit for errors only; write %s:+10%%", spec, name)
	case g.Unit == "ms" && !latency:
		return Gate{}, fmt.Errorf("%q: ms is a limit for latencies only; write %s with %%", spec, name)
	case g.Unit == "%" && metric == errorRate.name:
		return Gate{}, fmt.Errorf("%q: limit the error rate in percentage points, e.g. errors:+0.5pp (a relative change of a rate near 0 says little)", spec)
	}
	worse := "+"
	if metric == throughput.name {
		worse = "-"
	}
	if sign := num[:1]; sign == "+" || sign == "-" {
		if sign != worse {
			return Gate{}, fmt.Errorf("%q: %s gets worse as it %s; write %s:%s%s%s", spec, name, map[string]string{"+": "rises", "-": "falls"}[worse], name, worse, num[1:], g.Unit)
		}
		num = num[1:]
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return Gate{}, fmt.Errorf("%q: want a limit such as %s10%s, got %q", spec, worse, g.Unit, limit)
	}
	g.Limit = v
	return g, nil
}

// GateResult is a gate applied to a Delta: the change it read and whether the run failed it.
type GateResult struct {
	Gate   Gate   `json:"gate"`
	Change Change `json:"change"`
	Failed bool   `json:"failed"`
	// Level is the significance level the change's P was held to: the Delta's Alpha shared among
	// the gates by Holm's method (see Check), so that the gates together raise a false alarm at
	// most that often.
	Level float64 `json:"level"`
	// Why says in a sentence what the verdict rests on: "p99 rose 14.6% (limit 10%), beyond the
	// noise (P 0.0004 < 0.05)".
	Why string `json:"why"`
}

// Check applies each gate to the totals of d. A gate fails when its figure is worse than the
// base's by more than its limit and the difference is beyond the noise. A gate on the throughput of
// runs of the open model, where the rate is the input, reads achieved/intended instead: the share
// of its own intended rate each run achieved.
//
// Several gates are several tests, and each would raise a false alarm at d.Alpha on its own: six
// gates on two runs of one binary fail one in sixteen times, not one in twenty. So the gates share
// the level by Holm's step-down method: the tested changes are taken by increasing P, the k-th of
// m held to Alpha/(m−k+1), each beyond the noise only when those before it were. Together they
// fail runs of one distribution at most Alpha of the time, and one gate alone is held to Alpha.
func (d *Delta) Check(gates []Gate) []GateResult {
	out := make([]GateResult, 0, len(gates))
	for _, g := range gates {
		c, _ := d.Find(g.Metric)
		if c.Better == NotJudged { // the open model's throughput: judged against its intended rate
			if a, ok := d.Find(achievedShare.name); ok {
				c = a
			}
		}
		out = append(out, GateResult{Gate: g, Change: c, Level: d.Alpha})
	}
	beyond := holm(out, d.Alpha)
	for i := range out {
		r := &out[i]
		over := r.Gate.beyond(r.Change)
		r.Failed = r.Change.Worse() && over && beyond[i]
		r.Why = why(r.Gate, r.Change, over, beyond[i], r.Level, len(gates))
	}
	return out
}

// holm sets the level of each result's test by Holm's step-down method at alpha and returns whether
// each is beyond the noise at it; a result without a test is not, and is not counted.
func holm(rs []GateResult, alpha float64) []bool {
	var tested []int
	for i, r := range rs {
		if t := r.Change.Test; t != nil && t.N1 > 0 && t.N2 > 0 {
			tested = append(tested, i)
		}
	}
	sort.SliceStable(tested, func(a, b int) bool { return rs[tested[a]].Change.Test.P < rs[tested[b]].Change.Test.P })
	beyond := make([]bool, len(rs))
	stopped := false
	for k, i := range tested {
		rs[i].Level = alpha / float64(len(tested)-k)
		stopped = stopped || !(rs[i].Change.Test.P < rs[i].Level)
		beyond[i] = !stopped
	}
	return beyond
}

// beyond reports whether c moves by more than g's limit (in either direction).
func (g Gate) beyond(c Change) bool {
	if g.Unit == "%" {
		if math.IsNaN(c.Rel) {
			return c.Diff != 0 // from 0 to anything is beyond any share
		}
		return math.Abs(c.Rel)*100 > g.Limit
	}
	return math.Abs(c.Diff) > g.Limit
}

// why phrases a gate's verdict: whether c is beyond the noise at level, the share of gates gates.
func why(g Gate, c Change, over, noise bool, level float64, gates int) string {
	move := "did not change"
	if c.Diff != 0 {
		dir := "rose"
		if c.Diff < 0 {
			dir = "fell"
		}
		amount := ""
		switch {
		case g.Unit == "%" && math.IsNaN(c.Rel):
			amount = "from 0"
		case g.Unit == "%":
			amount = strconv.FormatFloat(math.Abs(c.Rel)*100, 'f', 1, 64) + "%"
		default:
			amount = "by " + strconv.FormatFloat(math.Abs(c.Diff), 'f', 2, 64) + g.Unit
		}
		move = fmt.Sprintf("%s %s %s", c.Name, dir, amount)
	} else {
		move = c.Name + " " + move
	}
	limit := fmt.Sprintf("limit %s%s", strconv.FormatFloat(g.Limit, 'f', -1, 64), g.Unit)
	switch {
	case c.Diff == 0:
		return move
	case c.Better == NotJudged:
		return move + ": not judged (in the open model the rate is the input)"
	case !c.Worse():
		return move + ", not worse"
	case !over:
		return fmt.Sprintf("%s, within the %s", move, limit)
	case c.Test == nil || c.Test.N1 == 0 || c.Test.N2 == 0:
		return fmt.Sprintf("%s (%s), but the runs have no interval values of it to tell it from noise", move, limit)
	case c.Test.MinP >= level:
		return fmt.Sprintf("%s (%s), but %d and %d intervals are too few to tell it from noise (the smallest P they allow is %s ≥ %s%s)", move, limit, c.Test.N1, c.Test.N2, FormatP(c.Test.MinP), FormatP(level), shared(level, gates))
	case !noise && c.Test.P < level:
		// Holm's sequence stopped at a gate before it: its P passes its own level, but is not tested
		return fmt.Sprintf("%s (%s), not beyond the noise: its P %s is below %s%s, but a gate of smaller P was within the noise, which ends Holm's sequence", move, limit, FormatP(c.Test.P), FormatP(level), shared(level, gates))
	case !noise:
		return fmt.Sprintf("%s (%s), within the noise (P %s ≥ %s%s)", move, limit, FormatP(c.Test.P), FormatP(level), shared(level, gates))
	}
	return fmt.Sprintf("%s (%s), beyond the noise (P %s < %s%s)", move, limit, FormatP(c.Test.P), FormatP(level), shared(level, gates))
}

// shared says how a level below alpha came about: ", the level of 3 gates shared by Holm's method";
// "" for one gate.
func shared(level float64, gates int) string {
	if gates < 2 {
		return ""
	}
	return fmt.Sprintf(", its share of the level of %d gates by Holm's method", gates)
}

// FormatP formats a p-value with two significant digits: "0.031", "0.5", "1", "2.1e-07".
func FormatP(p float64) string {
	if p >= 0.001 || p == 0 {
		return strconv.FormatFloat(p, 'g', 2, 64)
	}
	return strconv.FormatFloat(p, 'e', 1, 64)
}

// MarshalJSON writes c with its direction as "higher", "lower" (which way is better) or "not
// judged", its
// relative change (null when the base is 0) and its verdict.
func (c Change) MarshalJSON() ([]byte, error) {
	type plain Change
	better := c.Better.word()
	var rel *float64
	if !math.IsNaN(c.Rel) && !math.IsInf(c.Rel, 0) {
		rel = &c.Rel
	}
	return json.Marshal(struct {
		plain
		Better  string   `json:"better"`
		Rel     *float64 `json:"rel"`
		Verdict string   `json:"verdict"`
	}{plain(c), better, rel, c.Verdict()})
}
