package cli

import (
	"context"
	"errors"
	"flag"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/rpcbench/rpcbench/engine"
	"github.com/rpcbench/rpcbench/monitor"
	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/summary"
)

// monitorFlags are the flags of `run` that watch the target's resources during the measured part.
// The generator always watches itself as well.
type monitorFlags struct {
	pids       []string // each value one target: a PID, or PIDs joined by commas
	processes  []string
	cgroups    []string
	containers []string
	metrics    string
	series     []string
}

func (f *monitorFlags) define(fs *flag.FlagSet) {
	fs.Var(appended(&f.pids, nonEmpty), "monitor-pid", "watch process `PID` and its children each interval: CPU, memory, disk, network, threads, open files (repeatable; 12,34 sums two)")
	fs.Var(appended(&f.processes, nonEmpty), "monitor-process", "watch every process whose command is `NAME`; the reports say how many matched, their PIDs and when that changed (repeatable)")
	fs.Var(appended(&f.cgroups, nonEmpty), "monitor-cgroup", "watch a cgroup v2 `DIR`, e.g. /sys/fs/cgroup/system.slice/x.service (repeatable)")
	fs.Var(appended(&f.containers, nonEmpty), "monitor-container", "watch container `NAME` through its cgroup (needs docker or podman on PATH; repeatable)")
	fs.StringVar(&f.metrics, "monitor-metrics", "", "scrape the target's Prometheus metrics at `URL` each interval (with --monitor-series)")
	fs.Var(appended(&f.series, nonEmpty), "monitor-series", "a series of --monitor-metrics to follow: `name{label=\"v\"}` (repeatable; counters as a rate per second)")
}

func nonEmpty(s string) (string, error) {
	if strings.TrimSpace(s) == "" {
		return "", errors.New("want a value, got an empty one")
	}
	return strings.TrimSpace(s), nil
}

// selfLabel names the generator among the monitored targets.
const selfLabel = "rpcbench (self)"

// watched is one target to sample, with the label the reports give it.
type watched struct {
	label   string
	sampler *monitor.Sampler
}

// monitorRun is the monitoring of one run: built before the load starts (every target checked),
// started with it and stopped after it.
type monitorRun struct {
	targets []watched // the generator itself last
	scraper *monitor.Scraper
	url     string // the metrics URL as the outputs show it (see monitoring)
	rawURL  string
	series  []string // the selectors, as the scraper names them
	watch   *monitor.Watch
	lag     []float64 // send lag p99 per measured interval, ms; written on the engine's collector
}

// prepare checks every target the flags name and returns the monitoring to start with the run.
// A target that does not exist, a malformed selector or a container without a runtime is a usage
// error naming its flag. The generator itself is watched where /proc can be read (on Linux).
func (f *monitorFlags) prepare() (*monitorRun, error) {
	m := &monitorRun{}
	if f == nil {
		f = &monitorFlags{}
	}
	add := func(flagName, value, label string, t monitor.Target) error {
		s, err := monitor.NewSampler(t)
		if err != nil {
			return usagef("--%s %s: %s", flagName, value, strings.TrimPrefix(err.Error(), "monitor: "))
		}
		m.targets = append(m.targets, watched{label, s})
		return nil
	}
	for _, v := range f.pids {
		var pids []int
		for _, p := range strings.Split(v, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(p))
			if err != nil || n <= 0 {
				return nil, usagef("--monitor-pid %s: want a process ID (a positive number) or several joined by commas", v)
			}
			pids = append(pids, n)
		}
		t := monitor.PIDs(pids...)
		if err := add("monitor-pid", v, t.String(), t); err != nil {
			return nil, err
		}
	}
	for _, name := range f.processes {
		t := monitor.Name(name)
		if err := add("monitor-process", name, t.String(), t); err != nil {
			return nil, err
		}
	}
	for _, dir := range f.cgroups {
		t := monitor.Cgroup(dir)
		if err := add("monitor-cgroup", dir, t.String(), t); err != nil {
			return nil, err
		}
	}
	for _, name := range f.containers {
		dir, err := containerCgroup(name)
		if err != nil {
			return nil, err
		}
		if err := add("monitor-container", name, "container "+name, monitor.Cgroup(dir)); err != nil {
			return nil, err
		}
	}
	if err := m.prepareMetrics(f); err != nil {
		return nil, err
	}
	if self, err := monitor.NewSampler(monitor.Self()); err == nil {
		m.targets = append(m.targets, watched{selfLabel, self})
	} else if len(m.targets) > 0 || m.scraper != nil {
		return nil, usagef("--monitor-*: %v", err)
	}
	return m, nil
}

func (m *monitorRun) prepareMetrics(f *monitorFlags) error {
	switch {
	case f.metrics == "" && len(f.series) > 0:
		return usagef("--monitor-series: give --monitor-metrics URL too, the address of the metrics the series are in")
	case f.metrics == "":
		return nil
	case len(f.series) == 0:
		return usagef("--monitor-metrics %s: give the series to follow with --monitor-series, e.g. --monitor-series 'http_requests_total{code=\"200\"}'", plan.RedactURL(f.metrics))
	}
	shown := plan.RedactURL(f.metrics) // error messages keep no password
	var sel []monitor.Selector
	for _, s := range f.series {
		x, err := monitor.ParseSelector(s)
		if err != nil {
			return usagef("--monitor-series: %s", strings.TrimPrefix(err.Error(), "monitor: "))
		}
		sel = append(sel, x)
		m.series = append(m.series, x.String())
	}
	sc, err := monitor.NewScraper(f.metrics, &http.Client{}, sel...)
	if err != nil {
		return usagef("--monitor-metrics: %s", strings.ReplaceAll(strings.TrimPrefix(err.Error(), "monitor: "), f.metrics, shown))
	}
	m.scraper, m.url, m.rawURL = sc, f.metrics, f.metrics
	return nil
}

// containerCgroup finds the cgroup v2 directory of a running container (monitor.ContainerCgroup),
// a problem a usage error that names the flag and what to watch instead.
func containerCgroup(name string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dir, err := monitor.ContainerCgroup(ctx, name)
	if err != nil {
		return "", usagef("--monitor-container %s: %s (--monitor-cgroup DIR, --monitor-pid PID)", name, strings.TrimPrefix(err.Error(), "monitor: container "+name+": "))
	}
	return dir, nil
}

// options returns the observer that keeps the generator's send lag per measured interval, and the
// one that takes the monitor's last sample at the run's last tick, while the connections that
// carried the load are still open (their sockets are what the network figures read).
func (m *monitorRun) options() []engine.Option {
	if m == nil || len(m.targets) == 0 {
		return nil
	}
	return []engine.Option{engine.WithSendLagP99(&m.lag), engine.WithObserver(endWatchAtFinal(&m.watch))}
}

// endWatchAtFinal returns the observer that ends *w (monitor.Watch.End) at the run's last tick.
func endWatchAtFinal(w **monitor.Watch) engine.Observer {
	return func(t *engine.Tick) {
		if t.Final && *w != nil {
			(*w).End()
		}
	}
}

// start begins sampling after the warm-up, every interval of the plan.
func (m *monitorRun) start(np plan.Plan) {
	if m == nil || len(m.targets) == 0 && m.scraper == nil {
		return
	}
	samplers := make([]*monitor.Sampler, len(m.targets))
	for i, t := range m.targets {
		samplers[i] = t.sampler
	}
	m.watch = monitor.StartWatch(np.Load.Interval, np.Load.Warmup, m.scraper, samplers...)
}

// stop ends the sampling and adds what it saw to s, on the timeline of the measured start.
// With s nil (the run could not start) it only stops.
func (m *monitorRun) stop(s *summary.Summary, measuredStart time.Time) {
	if m == nil || m.watch == nil {
		return
	}
	w := m.watch.Stop()
	m.watch = nil
	if s == nil {
		return
	}
	// the baselines are taken a moment before the engine's measured start: a few ms below 0
	at := func(t time.Time) time.Duration { return t.Sub(measuredStart) }
	var rs []result.Resources
	for i, tr := range w.Targets {
		r := summary.ResourcesOf(tr, m.targets[i].label, at)
		if m.targets[i].label == selfLabel {
			summary.MarkSelf(&r, w, m.lag)
		}
		rs = append(rs, r)
	}
	summary.MarkListeners(context.Background(), rs, w.Targets, s.Config)
	var mt *result.Metrics
	if m.scraper != nil {
		mt = summary.MetricsOf(m.url, m.rawURL, m.series, w, at)
	}
	s.SetResources(rs, mt)
}

// monitoring returns what o asks to watch; with nothing asked, the generator itself.
func (o outputs) monitoring() *monitorRun {
	if o.monitor != nil {
		o.monitor.url = plan.ShownURL(o.monitor.url, o.showSecrets)
		return o.monitor
	}
	m, err := (*monitorFlags)(nil).prepare()
	if err != nil {
		return nil // no /proc here: nothing to watch
	}
	return m
}

// writeResources writes what the monitor saw into the result file, before its trailer.
func (o *resultOut) writeResources(s *summary.Summary) {
	if o.err == nil && len(s.Resources) > 0 {
		o.err = o.w.WriteResources(s.Resources...)
	}
	if o.err == nil && s.Metrics != nil {
		o.err = o.w.WriteMetrics(*s.Metrics)
	}
}
