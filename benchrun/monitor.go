package benchrun

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/rpcbench/rpcbench/engine"
	"github.com/rpcbench/rpcbench/monitor"
	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/summary"
)

// SelfLabel names the load generator among a run's monitored targets.
const SelfLabel = "rpcbench (self)"

// watching is the monitoring of one load run against a target: what its plan-file target asks
// (plan.TargetMonitor) and the generator itself, sampled over the measured part of the run.
type watching struct {
	labels   []string
	samplers []*monitor.Sampler
	self     int // index of the generator's sampler; -1 when it cannot be watched
	scraper  *monitor.Scraper
	url, raw string
	series   []string
	notes    []string // what could not be watched, and why
	lag      []float64
	watch    *monitor.Watch
}

// startedTarget is a target's started command as the runs against it see it.
type startedTarget struct {
	proc *process
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
func watchesFor(ctx context.Context, t plan.BenchTarget, started map[string]*startedTarget, showSecrets bool) *watching {
	w := &watching{self: -1}
	m := t.Monitor
	add := func(label string, mt monitor.Target) {
		s, err := monitor.NewSampler(mt)
		if err != nil {
			w.notes = append(w.notes, fmt.Sprintf("not monitored: %s: %s", label, strings.TrimPrefix(err.Error(), "monitor: ")))
			return
		}
		w.labels, w.samplers = append(w.labels, label), append(w.samplers, s)
	}
	if st, ok := started[t.Name]; ok && !m.NoCommand {
		add("command, "+monitor.PIDs(st.pids...).String(), monitor.PIDs(st.pids...))
		if st.note != "" {
			w.notes = append(w.notes, st.note)
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
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		dir, err := monitor.ContainerCgroup(cctx, c)
		cancel()
		if err != nil {
			w.notes = append(w.notes, "not monitored: "+strings.TrimPrefix(err.Error(), "monitor: "))
			continue
		}
		add("container "+c, monitor.Cgroup(dir))
	}
	if m.Metrics != "" {
		w.metrics(m, showSecrets)
	}
	if s, err := monitor.NewSampler(monitor.Self()); err == nil {
		w.self = len(w.samplers)
		w.labels, w.samplers = append(w.labels, SelfLabel), append(w.samplers, s)
	}
	return w
}

func (w *watching) metrics(m plan.TargetMonitor, showSecrets bool) {
	w.url, w.raw = plan.ShownURL(m.Metrics, showSecrets), m.Metrics
	var sel []monitor.Selector
	for _, s := range m.Series {
		x, err := monitor.ParseSelector(s)
		if err != nil {
			w.notes = append(w.notes, "not scraped: "+strings.TrimPrefix(err.Error(), "monitor: "))
			return
		}
		sel = append(sel, x)
		w.series = append(w.series, x.String())
	}
	sc, err := monitor.NewScraper(m.Metrics, &http.Client{}, sel...)
	if err != nil {
		w.notes = append(w.notes, "not scraped: "+strings.ReplaceAll(strings.TrimPrefix(err.Error(), "monitor: "), w.raw, w.url))
		return
	}
	w.scraper = sc
}

// options returns the observer that keeps the generator's send lag p99 per measured interval, and
// the one that takes the last samples at the run's last tick, while the load's connections are
// still open.
func (w *watching) options() []engine.Option {
	end := engine.WithObserver(func(t *engine.Tick) {
		if t.Final && w.watch != nil {
			w.watch.End()
		}
	})
	if w.self < 0 {
		return []engine.Option{end}
	}
	return []engine.Option{engine.WithSendLagP99(&w.lag), end}
}

// start begins sampling after the plan's warm-up, every interval of the plan.
func (w *watching) start(np plan.Plan) {
	if len(w.samplers) == 0 && w.scraper == nil {
		return
	}
	w.watch = monitor.StartWatch(np.Load.Interval, np.Load.Warmup, w.scraper, w.samplers...)
}

// stop ends the sampling and adds what it saw to s (nil: the run did not happen), on the timeline
// of the measured start.
func (w *watching) stop(s *summary.Summary, measuredStart time.Time) {
	if w.watch == nil {
		if s != nil {
			s.Notes = append(s.Notes, w.notes...)
		}
		return
	}
	res := w.watch.Stop()
	w.watch = nil
	if s == nil {
		return
	}
	at := func(t time.Time) time.Duration { return t.Sub(measuredStart) }
	var rs []result.Resources
	for i, tr := range res.Targets {
		r := summary.ResourcesOf(tr, w.labels[i], at)
		if i == w.self {
			summary.MarkSelf(&r, res, w.lag)
		}
		rs = append(rs, r)
	}
	summary.MarkListeners(context.Background(), rs, res.Targets, s.Config)
	var mt *result.Metrics
	if w.scraper != nil {
		mt = summary.MetricsOf(w.url, w.raw, w.series, res, at)
	}
	s.SetResources(rs, mt)
	s.Notes = append(s.Notes, w.notes...)
}
