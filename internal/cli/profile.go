package cli

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/pprof/profile"

	"github.com/rpcbench/rpcbench/monitor"
	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/summary"
)

// profileFlags are run's flags that profile a Go target over the measured window.
type profileFlags struct {
	url, dir string
}

func (f *profileFlags) define(fs *flag.FlagSet) {
	fs.StringVar(&f.url, "profile-url", "", "save a CPU and an allocation profile of the Go target whose net/http/pprof is at `URL` (e.g. http://127.0.0.1:6060/debug/pprof) over the measured window: RUN.cpu.pprof and RUN.allocs.pprof beside --out RUN.rb, or in --profile-dir")
	fs.StringVar(&f.dir, "profile-dir", "", "write the --profile-url profiles into `DIR` (created if need be): cpu.pprof and allocs.pprof, or named after --out")
}

// profileRun is the profiling of one run: where the profiles go and, once started, the capture.
type profileRun struct {
	url, cpuPath, allocsPath string
	window                   time.Duration
	p                        *monitor.Profiles
}

// prepare checks the flags against out (the result file, "" when none) and returns the profiling
// to do, nil when none is asked for.
func (f *profileFlags) prepare(out string) (*profileRun, error) {
	if f.url == "" {
		if f.dir != "" {
			return nil, usagef("--profile-dir: give --profile-url too (the target to profile)")
		}
		return nil, nil
	}
	u, err := monitor.ProfileURL(f.url)
	if err != nil {
		return nil, usagef("--profile-url: %v", err)
	}
	stem := ""
	if out != "" && out != "-" {
		stem = strings.TrimSuffix(out, filepath.Ext(out)) + "."
	}
	if f.dir != "" {
		if err := os.MkdirAll(f.dir, 0o755); err != nil {
			return nil, usagef("--profile-dir: %v", err)
		}
		stem = filepath.Join(f.dir, filepath.Base(stem)) // dir/RUN.
		if stem == filepath.Join(f.dir, ".") {           // no --out: dir/cpu.pprof
			stem = f.dir + string(filepath.Separator)
		}
	}
	if stem == "" {
		return nil, usagef("--profile-url: say where the profiles go: --out RUN.rb (they go beside it, RUN.cpu.pprof and RUN.allocs.pprof) or --profile-dir DIR")
	}
	r := &profileRun{url: u, cpuPath: stem + "cpu.pprof", allocsPath: stem + "allocs.pprof"}
	for _, p := range []string{r.cpuPath, r.allocsPath} {
		if err := checkOutput("--profile-url", p); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// start begins profiling after the plan's warm-up, for its measured length when it has one.
func (r *profileRun) start(np plan.Plan) {
	if r == nil {
		return
	}
	l := np.Load
	switch {
	case l.Requests > 0:
		r.window = 0 // ends on a count: not known
	case len(l.Stages) > 0:
		for _, st := range l.Stages {
			r.window += st.Duration
		}
	default:
		r.window = l.Duration
	}
	r.p = monitor.StartProfiles(r.url, l.Warmup, r.window, nil)
}

// stop ends the profiling, writes what was captured (also of an interrupted run) and names the
// files in s's notes; with s nil (the run could not start) it only stops. Problems go to stderr:
// the run's figures stand without the profiles.
func (r *profileRun) stop(e *env, s *summary.Summary) {
	if r == nil || r.p == nil {
		return
	}
	res := r.p.Stop()
	r.p = nil
	if s == nil {
		return
	}
	var saved []string
	if res.CPU != nil {
		if err := writeProfile(r.cpuPath, res.CPU); err != nil {
			fmt.Fprintf(e.stderr, "rpcbench run: --profile-url: %v\n", err)
		} else {
			what := fmt.Sprintf("%s (CPU over %s: %s on CPU", r.cpuPath, res.CPUSpan.Round(100*time.Millisecond), cpuTime(res.CPU))
			if res.CPULost > 0 {
				what += fmt.Sprintf("; the last %s cut by the stop", res.CPULost.Round(100*time.Millisecond))
			}
			saved = append(saved, what+")")
		}
	}
	if res.Allocs != nil {
		if err := writeProfile(r.allocsPath, res.Allocs); err != nil {
			fmt.Fprintf(e.stderr, "rpcbench run: --profile-url: %v\n", err)
		} else {
			saved = append(saved, r.allocsPath+" (allocations)")
		}
	}
	if res.Err != nil {
		msg := strings.ReplaceAll(res.Err.Error(), "\n", "; ")
		fmt.Fprintf(e.stderr, "rpcbench run: --profile-url %s: %s\n", r.url, msg)
		s.Notes = append(s.Notes, "profiling the target failed in part: "+msg)
	}
	if len(saved) > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("target profiles over the measured window: %s; read them with go tool pprof -top FILE", strings.Join(saved, ", ")))
	}
}

// writeProfile writes p (gzipped, as pprof reads it) to path through a temporary file.
func writeProfile(path string, p *profile.Profile) error {
	return writeOutput(path, p.Write)
}

// cpuTime is the CPU time a CPU profile's samples add up to: "150ms".
func cpuTime(p *profile.Profile) time.Duration {
	idx := -1
	for i, st := range p.SampleType {
		if st.Type == "cpu" && st.Unit == "nanoseconds" {
			idx = i
		}
	}
	var ns int64
	for _, s := range p.Sample {
		if idx >= 0 && idx < len(s.Value) {
			ns += s.Value[idx]
		}
	}
	return time.Duration(ns).Round(time.Millisecond)
}
