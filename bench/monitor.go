package bench

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/rpcbench/rpcbench/monitor"
	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/runner"
)

// SelfLabel names the load generator among a run's monitored targets.
const SelfLabel = runner.SelfLabel

// startedTarget is a target's started command as the runs against it see it.
type startedTarget struct {
	proc *process
	// command is the command it was started with: the target's, or with a swept flag set.
	command []string
	// pids are what is watched of it: the processes of its command that answer on its port, else
	// the command itself (see answering).
	pids []int
	// note says why the pids are not the ones that answer, when they are not.
	note string
}

// ended says why runs against the target no longer count: its command has exited (how); "" while
// it runs.
func (s *startedTarget) ended() string {
	if done, err := s.proc.exited(); done {
		return fmt.Sprintf("target %s's command ended (%s)", s.proc.name, exitText(err))
	}
	return ""
}

// watchesFor builds the monitoring of a run against t: its command's processes that answer
// (started holds the started commands by target name) unless t.Monitor says otherwise, the other
// targets, processes, cgroups, containers and metrics it names, and the generator. What cannot be
// watched (a process that is gone, a system without /proc) is a note of the run, not a failure.
func watchesFor(ctx context.Context, t plan.BenchTarget, started map[string]*startedTarget, showSecrets bool) *runner.Watching {
	w := &runner.Watching{}
	m := t.Monitor
	add := func(label string, mt monitor.Target) {
		s, err := monitor.NewSampler(mt)
		if err != nil {
			w.Note(fmt.Sprintf("not monitored: %s: %s", label, strings.TrimPrefix(err.Error(), "monitor: ")))
			return
		}
		w.Add(label, s)
	}
	if st, ok := started[t.Name]; ok && !m.NoCommand {
		add("command, "+monitor.PIDs(st.pids...).String(), monitor.PIDs(st.pids...))
		if st.note != "" {
			w.Note(st.note)
		}
	}
	for _, name := range m.Targets {
		if st, ok := started[name]; ok {
			add(name+"'s command, "+monitor.PIDs(st.pids...).String(), monitor.PIDs(st.pids...))
		}
	}
	for _, p := range m.PIDs {
		add(monitor.PIDs(p).String(), monitor.PIDs(p))
	}
	for _, n := range m.Processes {
		add(monitor.Name(n).String(), monitor.Name(n))
	}
	for _, c := range m.Cgroups {
		add(monitor.Cgroup(c).String(), monitor.Cgroup(c))
	}
	for _, c := range m.Containers {
		s, err := monitor.NewSampler(monitor.Container(c))
		if err != nil {
			w.Note("not monitored: " + strings.TrimPrefix(err.Error(), "monitor: "))
			continue
		}
		w.Add(s.Label(), s)
	}
	if m.Metrics != "" {
		scrape(w, m, showSecrets)
	}
	w.AddSelf() //nolint:errcheck // no /proc here: the generator is not watched
	return w
}

// scrape follows the series of m's metrics in w; what cannot be followed is a note.
func scrape(w *runner.Watching, m plan.TargetMonitor, showSecrets bool) {
	url, raw := plan.ShownURL(m.Metrics, showSecrets), m.Metrics
	var sel []monitor.Selector
	var series []string
	for _, s := range m.Series {
		x, err := monitor.ParseSelector(s)
		if err != nil {
			w.Note("not scraped: " + strings.TrimPrefix(err.Error(), "monitor: "))
			return
		}
		sel = append(sel, x)
		series = append(series, x.String())
	}
	sc, err := monitor.NewScraper(m.Metrics, &http.Client{}, sel...)
	if err != nil {
		w.Note("not scraped: " + strings.ReplaceAll(strings.TrimPrefix(err.Error(), "monitor: "), raw, url))
		return
	}
	w.Scrape(sc, url, raw, series)
}
