package cli

import (
	"context"
	"errors"
	"flag"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/rpcbench/rpcbench/monitor"
	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/runner"
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

// prepare checks every target the flags name and returns the monitoring to start with the run.
// A target that does not exist, a malformed selector or a container without a runtime is a usage
// error naming its flag. The generator itself is watched where /proc can be read (on Linux).
func (f *monitorFlags) prepare(showSecrets bool) (*runner.Watching, error) {
	m := &runner.Watching{}
	if f == nil {
		f = &monitorFlags{}
	}
	add := func(flagName, value, label string, t monitor.Target) error {
		s, err := monitor.NewSampler(t)
		if err != nil {
			return usagef("--%s %s: %s", flagName, value, strings.TrimPrefix(err.Error(), "monitor: "))
		}
		m.Add(label, s)
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
	if err := prepareMetrics(m, f, showSecrets); err != nil {
		return nil, err
	}
	if err := m.AddSelf(); err != nil && !m.Empty() {
		return nil, usagef("--monitor-*: %v", err)
	}
	return m, nil
}

// prepareMetrics adds the metrics of --monitor-metrics and --monitor-series to m, their URL shown
// redacted unless showSecrets.
func prepareMetrics(m *runner.Watching, f *monitorFlags, showSecrets bool) error {
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
	var series []string
	for _, s := range f.series {
		x, err := monitor.ParseSelector(s)
		if err != nil {
			return usagef("--monitor-series: %s", strings.TrimPrefix(err.Error(), "monitor: "))
		}
		sel = append(sel, x)
		series = append(series, x.String())
	}
	sc, err := monitor.NewScraper(f.metrics, &http.Client{}, sel...)
	if err != nil {
		return usagef("--monitor-metrics: %s", strings.ReplaceAll(strings.TrimPrefix(err.Error(), "monitor: "), f.metrics, shown))
	}
	m.Scrape(sc, plan.ShownURL(f.metrics, showSecrets), f.metrics, series)
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

// generatorOnly is the watching of a run that asks for none: the generator itself, where it can
// be watched (nil where it cannot: no /proc).
func generatorOnly() *runner.Watching {
	m, err := (*monitorFlags)(nil).prepare(false)
	if err != nil {
		return nil
	}
	return m
}
