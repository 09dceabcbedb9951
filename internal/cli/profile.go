package cli

import (
	"flag"
	"os"
	"path/filepath"
	"strings"

	"github.com/rpcbench/rpcbench/monitor"
	"github.com/rpcbench/rpcbench/runner"
)

// profileFlags are run's flags that profile a Go target over the measured window.
type profileFlags struct {
	url, dir string
}

func (f *profileFlags) define(fs *flag.FlagSet) {
	fs.StringVar(&f.url, "profile-url", "", "save a CPU and an allocation profile of the Go target whose net/http/pprof is at `URL` (e.g. http://127.0.0.1:6060/debug/pprof) over the measured window: RUN.cpu.pprof and RUN.allocs.pprof beside --out RUN.rb, or in --profile-dir")
	fs.StringVar(&f.dir, "profile-dir", "", "write the --profile-url profiles into `DIR` (created if need be): cpu.pprof and allocs.pprof, or named after --out")
}

// prepare checks the flags against out (the result file, "" when none) and returns the profiling
// to do, nil when none is asked for.
func (f *profileFlags) prepare(out string) (*runner.Profiling, error) {
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
	r := &runner.Profiling{Name: "--profile-url", URL: u, CPUPath: stem + "cpu.pprof", AllocsPath: stem + "allocs.pprof"}
	for _, p := range []string{r.CPUPath, r.AllocsPath} {
		if err := checkOutput("--profile-url", p); err != nil {
			return nil, err
		}
	}
	return r, nil
}
