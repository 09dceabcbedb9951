package replay

import (
	"fmt"
	"regexp"

	"github.com/rpcbench/rpcbench/check"
	"github.com/rpcbench/rpcbench/engine"
	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/result"
)

// OptionsOf returns the options of a plan file's replay scenario r sent to base, its files named
// relative to dir, with the scenario's headers set on every request.
func OptionsOf(r *plan.ScenarioReplay, base, dir string, set []result.RequestHeader) (Options, error) {
	o := Options{Files: r.FilesIn(dir), Format: r.Format, Base: base, Speed: r.Speed, Rate: r.Rate, Loop: r.Loop,
		Every: r.Every, Fraction: r.Sample, Seed: r.Seed, DropHeaders: r.DropHeaders, SetHeaders: set}
	if err := o.SetFilters(r.Include, r.Exclude); err != nil {
		return o, fmt.Errorf("replay: %w", err)
	}
	return o, nil
}

// SetFilters compiles include and exclude ("": none) into o.Include and o.Exclude; its error
// begins with the name of the one that does not compile: `include "(": …`.
func (o *Options) SetFilters(include, exclude string) error {
	for _, re := range []struct {
		key, expr string
		dst       **regexp.Regexp
	}{{"include", include, &o.Include}, {"exclude", exclude, &o.Exclude}} {
		if re.expr == "" {
			continue
		}
		var err error
		if *re.dst, err = regexp.Compile(re.expr); err != nil {
			return fmt.Errorf("%s %q: %v", re.key, re.expr, err)
		}
	}
	return nil
}

// Judge makes prep, a plan of the timeline (see Plan), judge a JSON-RPC recording's answers as
// JSON-RPC answers, its methods the recording's names.
func (t *Timeline) Judge(prep *plan.Prepared) {
	if !t.JSONRPC() {
		return
	}
	if prep.Verifier == nil {
		prep.Verifier = &check.Verifier{}
	}
	prep.Verifier.JSONRPC = true
	for _, n := range t.info.Names {
		if n != Other && n != "batch" {
			prep.Verifier.Methods = append(prep.Verifier.Methods, n)
		}
	}
}

// Engine returns the options that make the engine send the run of prep by the timeline (its due
// times and requests) and, with recorded, judge each answer by its recorded status (see
// RecordedStatus) before prep's own checks. Start the timeline before the run; Close it after.
func (t *Timeline) Engine(prep *plan.Prepared, recorded bool) []engine.Option {
	opts := []engine.Option{engine.WithTimeline(t), engine.WithSource(t)}
	if recorded {
		v := RecordedStatus{}
		if prep.Verifier != nil {
			v.Inner = prep.Verifier
		}
		opts = append(opts, engine.WithVerifier(v))
	}
	return opts
}
