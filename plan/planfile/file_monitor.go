package planfile

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rpcbench/rpcbench/plan"

	"go.yaml.in/yaml/v3"
)

var monitorKeys = []string{"command", "pid", "process", "cgroup", "container", "targets", "metrics", "series"}

// monitor reads a target's monitor: false, or a mapping of monitorKeys.
func (f *fileReader) monitor(n *yaml.Node, path string) plan.TargetMonitor {
	var m plan.TargetMonitor
	if n.Kind == yaml.ScalarNode && n.Tag == "!!bool" {
		if f.boolean(n, path) {
			f.errorf(n, path, "monitor: true is the default; give false for nothing, or a mapping such as {process: nginx}")
		}
		m.NoCommand = true
		return m
	}
	f.mapping(n, path, monitorKeys, func(key string, k, v *yaml.Node) {
		kp := joinKey(path, key)
		switch key {
		case "targets":
			if f.monNodes == nil {
				f.monNodes = map[string]*yaml.Node{}
			}
			f.monNodes[strings.TrimSuffix(strings.TrimPrefix(path, "targets."), ".monitor")] = v
			m.Targets = f.nonEmpty(v, kp, "the name of another target of this plan", nil)
		case "command":
			m.NoCommand = !f.boolean(v, kp)
		case "pid":
			for i, s := range f.strings(v, kp) {
				p, err := strconv.Atoi(strings.TrimSpace(s))
				if err != nil || p <= 0 {
					f.errorf(v, fmt.Sprintf("%s[%d]", kp, i), "%q: want a process ID (a positive number)", s)
					continue
				}
				m.PIDs = append(m.PIDs, p)
			}
		case "process":
			m.Processes = f.nonEmpty(v, kp, "a command name such as nginx", func(s string) bool { return !strings.ContainsRune(s, '/') })
		case "cgroup":
			m.Cgroups = f.nonEmpty(v, kp, "a cgroup v2 directory such as /sys/fs/cgroup/system.slice/x.service", nil)
		case "container":
			m.Containers = f.nonEmpty(v, kp, "a container name", nil)
		case "metrics":
			m.Metrics = f.str(v, kp)
			if err := plan.CheckURL(m.Metrics); m.Metrics != "" && err != nil {
				f.errorf(v, kp, "%v", err)
			}
		case "series":
			m.Series = f.nonEmpty(v, kp, `a series such as http_requests_total{code="200"}`, nil)
		}
	})
	switch {
	case m.Metrics != "" && len(m.Series) == 0:
		f.errorf(n, path, "metrics without series: give the series to follow, e.g. series: ['http_requests_total{code=\"200\"}']")
	case m.Metrics == "" && len(m.Series) > 0:
		f.errorf(n, path, "series without metrics: give metrics: URL, where the series are")
	}
	return m
}

// nonEmpty reads a text or a list of texts, each non-empty and, when ok is given, accepted by it.
func (f *fileReader) nonEmpty(n *yaml.Node, path, want string, ok func(string) bool) []string {
	var out []string
	for i, s := range f.strings(n, path) {
		if strings.TrimSpace(s) == "" || ok != nil && !ok(s) {
			f.errorf(n, fmt.Sprintf("%s[%d]", path, i), "%q: want %s", s, want)
			continue
		}
		out = append(out, strings.TrimSpace(s))
	}
	return out
}

// checkMonitors checks that the targets each monitor names are other targets with a command.
func (f *fileReader) checkMonitors(b *plan.Bench) {
	byName := map[string]plan.BenchTarget{}
	for _, t := range b.Targets {
		byName[t.Name] = t
	}
	for _, t := range b.Targets {
		at := f.monNodes[t.Name]
		for _, name := range t.Monitor.Targets {
			o, found := byName[name]
			switch {
			case !found:
				f.errorf(at, "targets."+t.Name+".monitor.targets", "no target %q in this plan", name)
			case name == t.Name:
				f.errorf(at, "targets."+t.Name+".monitor.targets", "%q is this target: its command is watched already", name)
			case len(o.Command) == 0:
				f.errorf(at, "targets."+t.Name+".monitor.targets", "target %q has no command: there is no process of it to watch", name)
			}
		}
	}
}
