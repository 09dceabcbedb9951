package runner

import (
	"fmt"
	"strings"
	"time"

	"github.com/google/pprof/profile"

	"github.com/rpcbench/rpcbench/monitor"
	"github.com/rpcbench/rpcbench/output"
	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/summary"
)

// Profiling captures a CPU and an allocation profile of a Go target (its net/http/pprof at URL)
// over a run's measured window, written to CPUPath and AllocsPath. A Profiling serves one run.
type Profiling struct {
	// Name is the flag that asked for it, for messages (--profile-url).
	Name string
	// URL is the target's pprof base (monitor.ProfileURL).
	URL                 string
	CPUPath, AllocsPath string
	p                   *monitor.Profiles
}

// start begins profiling after the plan's warm-up, for its measured length when it has one (a run
// that ends on a count has none known: the capture ends with the run).
func (r *Profiling) start(np plan.Plan) {
	if r == nil {
		return
	}
	window := np.Load.MeasuredLength()
	if np.Load.Requests > 0 {
		window = 0
	}
	r.p = monitor.StartProfiles(r.URL, np.Load.Warmup, window, nil)
}

// stop ends the profiling, writes what was captured (also of an interrupted run) and names the
// files in s's notes; with s nil (the run could not start) it only stops. Problems go to warn: the
// run's figures stand without the profiles.
func (r *Profiling) stop(s *summary.Summary, warn func(string)) {
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
		if err := output.WriteFile(r.CPUPath, res.CPU.Write); err != nil {
			warn(fmt.Sprintf("%s: %v", r.Name, err))
		} else {
			what := fmt.Sprintf("%s (CPU over %s: %s on CPU", r.CPUPath, res.CPUSpan.Round(100*time.Millisecond), cpuTime(res.CPU))
			if res.CPULost > 0 {
				what += fmt.Sprintf("; the last %s cut by the stop", res.CPULost.Round(100*time.Millisecond))
			}
			saved = append(saved, what+")")
		}
	}
	if res.Allocs != nil {
		if err := output.WriteFile(r.AllocsPath, res.Allocs.Write); err != nil {
			warn(fmt.Sprintf("%s: %v", r.Name, err))
		} else {
			what := r.AllocsPath + " (allocations"
			if res.AllocBytes > 0 {
				what += fmt.Sprintf(", without the profiler's own: %.0f%% of the %s allocated in the window left out", 100*float64(res.ProfilerBytes)/float64(res.AllocBytes), fmt.Sprintf("%.1f MiB", float64(res.AllocBytes)/(1<<20)))
			}
			saved = append(saved, what+")")
		}
	}
	if res.Err != nil {
		msg := strings.ReplaceAll(res.Err.Error(), "\n", "; ")
		warn(fmt.Sprintf("%s %s: %s", r.Name, plan.RedactURL(r.URL), msg))
		failed := "profiling the target failed: " // nothing saved
		if len(saved) > 0 {
			failed = "profiling the target failed in part: "
		}
		s.Notes = append(s.Notes, failed+msg)
	}
	if len(saved) > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("target profiles over the measured window: %s; read them with go tool pprof -top FILE", strings.Join(saved, ", ")))
	}
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
