package plan

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/schedule"
)

// ParseRate reads a rate as "5000" or "5000/s" (per second), "300/m" (per minute), "10/h" (per
// hour) or "1/500ms" (one per 500 ms), and returns it per second.
func ParseRate(s string) (float64, error) {
	bad := fmt.Errorf("%q is not a rate; use e.g. 500/s, 300/m or 1/100ms", s)
	num, per, found := strings.Cut(strings.TrimSpace(s), "/")
	n, err := strconv.ParseFloat(num, 64)
	if err != nil || n < 0 || math.IsInf(n, 0) || math.IsNaN(n) {
		return 0, bad
	}
	if !found {
		return n, nil
	}
	var unit time.Duration
	switch per {
	case "s":
		unit = time.Second
	case "m", "min":
		unit = time.Minute
	case "h":
		unit = time.Hour
	default:
		d, err := time.ParseDuration(per)
		if err != nil || d <= 0 {
			return 0, bad
		}
		unit = d
	}
	return n / unit.Seconds(), nil
}

// ParseStages reads stages as "DURATION:TARGET,…", e.g. "30s:1000,60s:5000,30s:5000": the level
// ramps from 0 to 1000 over 30 s, to 5000 over the next minute, and holds 5000 for 30 s. A stage of
// length 0 ("0s:200") is a step. Targets are rates (as ParseRate reads them) or, for the closed
// model, numbers of connections.
func ParseStages(s string) ([]schedule.Stage, error) {
	var stages []schedule.Stage
	var errs []error
	for i, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		ds, ts, ok := strings.Cut(part, ":")
		if !ok {
			errs = append(errs, fmt.Errorf("stage %d %q: want DURATION:TARGET, e.g. 30s:1000", i+1, part))
			continue
		}
		d, err := time.ParseDuration(strings.TrimSpace(ds))
		if err != nil || d < 0 {
			errs = append(errs, fmt.Errorf("stage %d %q: %q is not a duration; use e.g. 30s or 2m", i+1, part, ds))
			continue
		}
		t, err := ParseRate(ts)
		if err != nil {
			errs = append(errs, fmt.Errorf("stage %d %q: target %v", i+1, part, err))
			continue
		}
		stages = append(stages, schedule.Stage{Duration: d, Target: t})
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return stages, nil
}

// ParseHeader reads a header as "Name: value". Its error quotes only the first word of what is
// not a header: the rest may be a secret ("Authorization Bearer TOKEN").
func ParseHeader(s string) (result.RequestHeader, error) {
	name, value, ok := strings.Cut(s, ":")
	name = strings.TrimSpace(name)
	if !ok || !isToken(name) {
		shown := s
		if w := strings.Fields(s); len(w) > 1 {
			shown = w[0] + " …"
		}
		return result.RequestHeader{}, fmt.Errorf("%q is not a header; use e.g. \"Content-Type: application/json\"", shown)
	}
	if strings.ContainsAny(value, "\r\n") {
		return result.RequestHeader{}, fmt.Errorf("header %q: the value holds a line break", name)
	}
	return result.RequestHeader{Name: name, Value: strings.TrimSpace(value)}, nil
}
