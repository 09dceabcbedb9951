package lab

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// DistKind names a service-time distribution.
type DistKind uint8

// The distributions a Dist can draw from.
const (
	DistNone    DistKind = iota // no random part: every draw is 0
	DistExp                     // exponential with mean Mean
	DistUniform                 // uniform on [Min, Max]
	DistNormal                  // normal with mean Mean and standard deviation StdDev, clamped at 0
)

// Dist is a distribution of service times, written exp:MEAN, uniform:MIN-MAX or
// normal:MEAN,STDDEV (for example exp:1ms, uniform:1ms-3ms, normal:2ms,500us).
//
// The zero value is DistNone, which always draws 0. A Dist is a plain value: safe for concurrent
// use once set. *Dist implements flag.Value, so it can be a command-line flag directly.
type Dist struct {
	Kind     DistKind
	Mean     time.Duration // DistExp, DistNormal
	StdDev   time.Duration // DistNormal
	Min, Max time.Duration // DistUniform
}

const distForms = "exp:MEAN, uniform:MIN-MAX or normal:MEAN,STDDEV (e.g. exp:1ms, uniform:1ms-3ms, normal:2ms,500us)"

// ParseDist parses a distribution in the form exp:MEAN, uniform:MIN-MAX or normal:MEAN,STDDEV,
// where each value is a Go duration such as 1ms or 250us. The empty string is DistNone.
func ParseDist(s string) (Dist, error) {
	if s == "" || s == "none" {
		return Dist{}, nil
	}
	kind, args, ok := strings.Cut(s, ":")
	if !ok {
		return Dist{}, fmt.Errorf("%q is not a distribution; want %s", s, distForms)
	}
	switch kind {
	case "exp":
		mean, err := parseDistDuration(s, "mean", args)
		if err != nil {
			return Dist{}, err
		}
		if mean == 0 {
			return Dist{}, fmt.Errorf("%q: the mean of exp must be above 0", s)
		}
		return Dist{Kind: DistExp, Mean: mean}, nil
	case "uniform":
		lo, hi, ok := strings.Cut(args, "-")
		if !ok {
			return Dist{}, fmt.Errorf("%q: want uniform:MIN-MAX, e.g. uniform:1ms-3ms", s)
		}
		minD, err := parseDistDuration(s, "min", lo)
		if err != nil {
			return Dist{}, err
		}
		maxD, err := parseDistDuration(s, "max", hi)
		if err != nil {
			return Dist{}, err
		}
		if maxD < minD {
			return Dist{}, fmt.Errorf("%q: min %v is above max %v", s, minD, maxD)
		}
		return Dist{Kind: DistUniform, Min: minD, Max: maxD}, nil
	case "normal":
		m, sd, ok := strings.Cut(args, ",")
		if !ok {
			return Dist{}, fmt.Errorf("%q: want normal:MEAN,STDDEV, e.g. normal:2ms,500us", s)
		}
		mean, err := parseDistDuration(s, "mean", m)
		if err != nil {
			return Dist{}, err
		}
		std, err := parseDistDuration(s, "stddev", sd)
		if err != nil {
			return Dist{}, err
		}
		return Dist{Kind: DistNormal, Mean: mean, StdDev: std}, nil
	}
	return Dist{}, fmt.Errorf("%q: unknown distribution %q; want %s", s, kind, distForms)
}

func parseDistDuration(spec, what, v string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(v))
	if err != nil {
		return 0, fmt.Errorf("%q: %s %q is not a duration (want e.g. 1ms or 250us)", spec, what, v)
	}
	if d < 0 {
		return 0, fmt.Errorf("%q: %s %v is negative", spec, what, d)
	}
	return d, nil
}

// String returns d in the form ParseDist reads ("" for DistNone).
func (d Dist) String() string {
	switch d.Kind {
	case DistExp:
		return "exp:" + d.Mean.String()
	case DistUniform:
		return "uniform:" + d.Min.String() + "-" + d.Max.String()
	case DistNormal:
		return "normal:" + d.Mean.String() + "," + d.StdDev.String()
	}
	return ""
}

// Set parses s into d (flag.Value).
func (d *Dist) Set(s string) error {
	v, err := ParseDist(s)
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// Validate reports whether d could have been produced by ParseDist.
func (d Dist) Validate() error {
	switch d.Kind {
	case DistNone:
		return nil
	case DistExp:
		if d.Mean <= 0 {
			return fmt.Errorf("exp distribution: mean %v must be above 0", d.Mean)
		}
	case DistUniform:
		if d.Min < 0 || d.Max < d.Min {
			return fmt.Errorf("uniform distribution: want 0 <= min <= max, got min %v, max %v", d.Min, d.Max)
		}
	case DistNormal:
		if d.Mean < 0 || d.StdDev < 0 {
			return fmt.Errorf("normal distribution: mean %v and stddev %v must not be negative", d.Mean, d.StdDev)
		}
	default:
		return fmt.Errorf("unknown distribution kind %d", d.Kind)
	}
	return nil
}

// Sample maps two independent uniform numbers in [0, 1) to a draw from d. It is pure: the same
// u1, u2 give the same duration. Draws are never negative (a normal draw below 0 is 0).
func (d Dist) Sample(u1, u2 float64) time.Duration {
	switch d.Kind {
	case DistExp:
		return time.Duration(-float64(d.Mean) * math.Log1p(-u1))
	case DistUniform:
		return d.Min + time.Duration(u1*float64(d.Max-d.Min+1))
	case DistNormal:
		// Box–Muller; 1-u1 is in (0, 1], so the logarithm is finite.
		z := math.Sqrt(-2*math.Log(1-u1)) * math.Cos(2*math.Pi*u2)
		v := float64(d.Mean) + z*float64(d.StdDev)
		if v < 0 {
			return 0
		}
		return time.Duration(v)
	}
	return 0
}
