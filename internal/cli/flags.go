package cli

import (
	"flag"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/report"
)

// rateFlag is a rate: "5000", "5000/s", "300/m".
type rateFlag struct {
	v   float64
	set bool
}

func (f *rateFlag) String() string {
	if f == nil || !f.set {
		return ""
	}
	return fmt.Sprint(f.v) + "/s"
}

func (f *rateFlag) Set(s string) error {
	v, err := plan.ParseRate(s)
	if err != nil {
		return err
	}
	f.v, f.set = v, true
	return nil
}

// parsed returns a flag.Value that reads its value into *p with parse.
func parsed[T any](p *T, parse func(string) (T, error)) flag.Value {
	return &parsedValue[T]{p: p, parse: parse}
}

type parsedValue[T any] struct {
	p     *T
	parse func(string) (T, error)
}

func (f *parsedValue[T]) String() string { return "" }

func (f *parsedValue[T]) Set(s string) error {
	v, err := f.parse(s)
	if err != nil {
		return err
	}
	*f.p = v
	return nil
}

// appended returns a flag.Value for a repeatable flag: each value, read with parse, is appended
// to *p.
func appended[T any](p *[]T, parse func(string) (T, error)) flag.Value {
	return &appendedValue[T]{p: p, parse: parse}
}

type appendedValue[T any] struct {
	p     *[]T
	parse func(string) (T, error)
}

func (f *appendedValue[T]) String() string { return "" }

func (f *appendedValue[T]) Set(s string) error {
	v, err := f.parse(s)
	if err != nil {
		return err
	}
	*f.p = append(*f.p, v)
	return nil
}

// asIs is the parse function of plain string flags.
func asIs(s string) (string, error) { return s, nil }

// durationFlag is a duration that must not be negative.
type durationFlag struct{ v *time.Duration }

func (f durationFlag) String() string {
	if f.v == nil || *f.v == 0 {
		return ""
	}
	return f.v.String()
}

func (f durationFlag) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return fmt.Errorf("%q is not a duration; use e.g. 30s, 1m30s or 500ms", s)
	}
	*f.v = d
	return nil
}

// optionalDurationFlag is a duration that is nil until given: a zero given is a zero, not the
// default.
type optionalDurationFlag struct{ v **time.Duration }

func (f optionalDurationFlag) String() string {
	if f.v == nil || *f.v == nil {
		return ""
	}
	return (*f.v).String()
}

func (f optionalDurationFlag) Set(s string) error {
	var d time.Duration
	if err := (durationFlag{&d}).Set(s); err != nil {
		return err
	}
	*f.v = &d
	return nil
}

// positiveDurationFlag is a duration that must be above 0: a zero would mean the default.
type positiveDurationFlag struct{ durationFlag }

func (f positiveDurationFlag) Set(s string) error {
	if err := f.durationFlag.Set(s); err != nil {
		return err
	}
	if *f.v == 0 {
		return fmt.Errorf("%q: want a duration above 0, e.g. 30s", s)
	}
	return nil
}

// choiceFlag is one of a fixed set of words.
type choiceFlag struct {
	v       *string
	choices []string
}

func (f choiceFlag) String() string {
	if f.v == nil {
		return ""
	}
	return *f.v
}

func (f choiceFlag) Set(s string) error {
	for _, c := range f.choices {
		if s == c {
			*f.v = s
			return nil
		}
	}
	return fmt.Errorf("%q: want one of %s", s, strings.Join(f.choices, ", "))
}

var flagErr = regexp.MustCompile(`^invalid (?:value|boolean value) "(.*)" for flag -([\w.-]+): (.*)$`)

// flagError rewrites the flag package's "invalid value … for flag -rate: …" as "--rate: …" (a
// one-letter flag keeps its one dash, as it is written: "-H: …").
func flagError(fs *flag.FlagSet, err error) string {
	msg := err.Error()
	if m := flagErr.FindStringSubmatch(msg); m != nil {
		switch m[3] {
		case "parse error":
			return fmt.Sprintf("%s: %q is not %s", dashed(m[2]), m[1], kindOf(fs, m[2]))
		case "value out of range":
			return fmt.Sprintf("%s: %q is out of range", dashed(m[2]), m[1])
		}
		return fmt.Sprintf("%s: %s", dashed(m[2]), m[3])
	}
	if rest, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		return fmt.Sprintf("unknown flag %s", dashed(rest))
	}
	if rest, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		return fmt.Sprintf("%s needs a value", dashed(rest))
	}
	return msg
}

// dashed writes a flag's name as a user types it: -H, --rate.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// parseInterleaved parses flags that may stand before and after positional arguments
// ("run URL --rate 100"), and returns the positional ones.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// kindOf says what kind of value the plain flag name takes, for error messages.
func kindOf(fs *flag.FlagSet, name string) string {
	f := fs.Lookup(name)
	if f == nil {
		return "valid"
	}
	switch t := fmt.Sprintf("%T", f.Value); {
	case strings.Contains(t, "uint"):
		return "a whole number ≥ 0"
	case strings.Contains(t, "int"):
		return "a whole number"
	case strings.Contains(t, "float"):
		return "a number"
	case strings.Contains(t, "bool"):
		return "true or false"
	}
	return "valid"
}

// percentilesFlag is --percentiles: the latency columns of the reports' tables.
type percentilesFlag struct{ v []float64 }

func (f *percentilesFlag) define(fs *flag.FlagSet) {
	fs.Var(f, "percentiles", "latency `LIST` of the reports' endpoint tables, from 50,75,90,95,99,99.9,99.99 (default 50,90,95,99,99.9; max follows)")
}

func (f *percentilesFlag) String() string {
	if f == nil || f.v == nil {
		return ""
	}
	return fmt.Sprint(f.v)
}

func (f *percentilesFlag) Set(s string) error {
	v, err := report.ParsePercentiles(s)
	if err != nil {
		return err
	}
	f.v = v
	return nil
}

// statsFlag is --stats: the figures of the tables that put runs side by side.
type statsFlag struct{ v []string }

func (f *statsFlag) define(fs *flag.FlagSet) {
	fs.Var(f, "stats", "figures `LIST` of the tables that put runs side by side, in total and per endpoint, from "+strings.Join(plan.StatNames, ",")+" (default rps,errors,p50,p90,p99,p99.9,max; per endpoint rps,errors,p50,p99)")
}

func (f *statsFlag) String() string {
	if f == nil {
		return ""
	}
	return strings.Join(f.v, ",")
}

func (f *statsFlag) Set(s string) error {
	v, err := plan.ParseStats([]string{s})
	if err != nil {
		return err
	}
	f.v = v
	return nil
}
