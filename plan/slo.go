package plan

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// SLO is a list of service-level objectives a run must meet, as given to --slo:
// "p99<50ms,p999<200ms,errors<0.1%,rate>=0.99". The zero value (no objective) judges nothing.
// An SLO is plain data; it encodes to JSON as its text.
//
// The objectives:
//   - latency: p50, p75, p90, p95, p99, p999 (or p99.9), p9999 (or p99.99), max, mean of the
//     latency from the intended send time; `<` or `<=` a duration with a unit: µs (or us), ms, s.
//   - errors: the share of the intended requests that did not succeed, failed or never sent
//     ((Errors + Dropped) / Intended); `<` or `<=` a percentage (0.1%) or a fraction (0.001).
//   - rate: the achieved share of the intended rate, successful answers per second over the
//     intended arrivals per second; `>` or `>=` a fraction (0.99) or a percentage (99%).
//   - rps: successful answers per second; `>` or `>=` a number (1000 or 1000/s).
type SLO []Objective

// Objective is one service-level objective: Metric Op Threshold.
type Objective struct {
	// Metric names what is judged: a latency percentile ("p99"), "max", "mean", "errors", "rate"
	// or "rps".
	Metric string `json:"metric"`
	// Op is the comparison: "<" or "<=" for latency and errors, ">" or ">=" for rate and rps.
	Op string `json:"op"`
	// Threshold is in milliseconds for latency, a fraction for errors and rate, per second for rps.
	Threshold float64 `json:"threshold"`
}

// latencyMetrics are the latency objectives, each with the names it may be written as.
var latencyMetrics = map[string]string{
	"p50": "p50", "p75": "p75", "p90": "p90", "p95": "p95", "p99": "p99",
	"p999": "p999", "p99.9": "p999", "p9999": "p9999", "p99.99": "p9999",
	"max": "max", "mean": "mean",
}

// IsLatency reports whether o judges a latency (its Threshold is in milliseconds).
func (o Objective) IsLatency() bool { _, ok := latencyMetrics[o.Metric]; return ok }

// Holds reports whether value meets the objective.
func (o Objective) Holds(value float64) bool {
	switch o.Op {
	case "<":
		return value < o.Threshold
	case "<=":
		return value <= o.Threshold
	case ">":
		return value > o.Threshold
	case ">=":
		return value >= o.Threshold
	}
	return false
}

// String writes o as it is parsed: "p99<50ms", "errors<0.1%", "rate>=0.99", "rps>=1000".
func (o Objective) String() string {
	var v string
	switch {
	case o.IsLatency():
		v = formatMs(o.Threshold)
	case o.Metric == "errors":
		v = strconv.FormatFloat(o.Threshold*100, 'g', -1, 64) + "%"
	default:
		v = strconv.FormatFloat(o.Threshold, 'g', -1, 64)
	}
	return o.Metric + o.Op + v
}

// formatMs writes a threshold in ms with the unit that keeps it short and exact.
func formatMs(ms float64) string {
	switch {
	case ms >= 1000 && math.Mod(ms, 1000) == 0:
		return strconv.FormatFloat(ms/1000, 'g', -1, 64) + "s"
	case ms < 1:
		return strconv.FormatFloat(ms*1000, 'g', -1, 64) + "µs"
	}
	return strconv.FormatFloat(ms, 'g', -1, 64) + "ms"
}

// String writes s as --slo takes it.
func (s SLO) String() string {
	parts := make([]string, len(s))
	for i, o := range s {
		parts[i] = o.String()
	}
	return strings.Join(parts, ",")
}

// Has reports whether s has an objective on metric.
func (s SLO) Has(metric string) bool {
	for _, o := range s {
		if o.Metric == metric {
			return true
		}
	}
	return false
}

// MarshalText implements encoding.TextMarshaler: the SLO as --slo takes it.
func (s SLO) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler with ParseSLO.
func (s *SLO) UnmarshalText(b []byte) error {
	v, err := ParseSLO(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// ParseSLO parses objectives separated by commas, e.g. "p99<50ms,errors<0.1%,rate>=0.99". An
// empty text is no objective. Errors name the objective and what was expected.
func ParseSLO(text string) (SLO, error) {
	var s SLO
	if strings.TrimSpace(text) == "" {
		return nil, nil
	}
	var errs []error
	seen := map[string]bool{}
	for part := range strings.SplitSeq(text, ",") {
		o, err := parseObjective(strings.TrimSpace(part))
		switch {
		case err != nil:
			errs = append(errs, err)
		case seen[o.Metric]:
			errs = append(errs, fmt.Errorf("%s: %s is given twice", strings.TrimSpace(part), o.Metric))
		default:
			seen[o.Metric] = true
			s = append(s, o)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return s, nil
}

const sloMetrics = "p50, p75, p90, p95, p99, p999, p9999, max, mean, errors, rate or rps"

func parseObjective(part string) (Objective, error) {
	if part == "" {
		return Objective{}, errors.New(`empty objective: want e.g. "p99<50ms" between commas`)
	}
	i := strings.IndexAny(part, "<>=")
	if i < 0 {
		return Objective{}, fmt.Errorf("%s: no comparison: want METRIC<VALUE, e.g. p99<50ms", part)
	}
	name := strings.ToLower(strings.TrimSpace(part[:i]))
	rest := part[i:]
	op := ""
	for _, cand := range []string{"<=", ">=", "<", ">"} {
		if strings.HasPrefix(rest, cand) {
			op = cand
			break
		}
	}
	if op == "" {
		return Objective{}, fmt.Errorf("%s: comparison %q: want <, <=, > or >=", part, rest[:1])
	}
	value := strings.TrimSpace(rest[len(op):])
	o := Objective{Metric: name, Op: op}
	if m, ok := latencyMetrics[name]; ok {
		o.Metric = m
		if op[0] != '<' {
			return o, fmt.Errorf("%s: %s is an upper bound: want < or <=", part, name)
		}
		ms, err := parseMs(value)
		if err != nil {
			return o, fmt.Errorf("%s: %v", part, err)
		}
		o.Threshold = ms
		return o, nil
	}
	var err error
	switch name {
	case "errors":
		if op[0] != '<' {
			return o, fmt.Errorf("%s: errors is an upper bound: want < or <=", part)
		}
		o.Threshold, err = parseShare(value)
	case "rate":
		if op[0] != '>' {
			return o, fmt.Errorf("%s: rate is a lower bound: want > or >=", part)
		}
		o.Threshold, err = parseShare(value)
	case "rps":
		if op[0] != '>' {
			return o, fmt.Errorf("%s: rps is a lower bound: want > or >=", part)
		}
		o.Threshold, err = parseRPS(value)
	case "":
		return o, fmt.Errorf("%s: no metric before %s: want one of %s", part, op, sloMetrics)
	default:
		return o, fmt.Errorf("%s: metric %q: want one of %s", part, name, sloMetrics)
	}
	if err != nil {
		return o, fmt.Errorf("%s: %v", part, err)
	}
	return o, nil
}

// parseNumber parses a finite number that is not negative.
func parseNumber(s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	if v < 0 {
		return 0, fmt.Errorf("%s is negative", s)
	}
	return v, nil
}

// parseMs parses "50ms", "800µs", "800us", "1.5s" into milliseconds.
func parseMs(s string) (float64, error) {
	if s == "" {
		return 0, errors.New("no value: want a duration such as 50ms")
	}
	end := len(s)
	for end > 0 && !(s[end-1] >= '0' && s[end-1] <= '9' || s[end-1] == '.') {
		end--
	}
	num, unit := s[:end], s[end:]
	var scale float64
	switch unit {
	case "µs", "us", "μs": // U+00B5 and U+03BC
		scale = 0.001
	case "ms":
		scale = 1
	case "s":
		scale = 1000
	case "":
		return 0, fmt.Errorf("%s has no unit: want µs, ms or s", s)
	default:
		return 0, fmt.Errorf("unit %s: want µs, ms or s", unit)
	}
	v, err := parseNumber(num)
	if err != nil {
		return 0, err
	}
	return v * scale, nil
}

// parseShare parses "0.1%" or "0.001" into a fraction in [0, 1].
func parseShare(s string) (float64, error) {
	if s == "" {
		return 0, errors.New("no value: want a percentage such as 1% or a fraction such as 0.01")
	}
	pct := strings.HasSuffix(s, "%")
	v, err := parseNumber(strings.TrimSuffix(s, "%"))
	if err != nil {
		return 0, err
	}
	if pct {
		v /= 100
	}
	if v > 1 {
		return 0, fmt.Errorf("%s is more than 100%%: want a percentage (1%%) or a fraction (0.01)", s)
	}
	return v, nil
}

// parseRPS parses "1000" or "1000/s".
func parseRPS(s string) (float64, error) {
	if s == "" {
		return 0, errors.New("no value: want answers per second such as 1000")
	}
	return parseNumber(strings.TrimSuffix(s, "/s"))
}
