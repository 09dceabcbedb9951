package planfile

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/plan"
)

// A target's monitor: and a capacity scenario read as written; what is left out takes its default.
func TestReadFileMonitorAndCapacity(t *testing.T) {
	t.Parallel()
	b, err := ReadFile("m.yaml", strings.NewReader(`targets:
  node:
    url: http://127.0.0.1:18545/
    command: rpcbench serve jsonrpc --addr 127.0.0.1:18545
  daemon:
    url: http://127.0.0.1:18546/
    command: ./relay
    monitor:
      targets: [node]
      pid: [12, 34]
      process: nginx
      cgroup: /sys/fs/cgroup/x
      container: [web]
      metrics: http://127.0.0.1:18546/metrics
      series: ['http_requests_total{code="200"}']
  outside:
    url: http://127.0.0.1:18547/
    monitor: false
slo: p99<50ms
scenarios:
  cap:
    path: /x
    connections: 100
    capacity: {start: 200, max: 20000, step: 5s, warmup: 0s, factor: 1.5, precision: 0.1, max_steps: 12, confirm: 5}
  cap2:
    capacity: {slo: "errors<1%"}
`))
	if err != nil {
		t.Fatal(err)
	}
	if m := b.Targets[0].Monitor; !reflect.DeepEqual(m, plan.TargetMonitor{}) {
		t.Errorf("node monitor: got %+v; want the zero value (its command)", m)
	}
	want := plan.TargetMonitor{Targets: []string{"node"}, PIDs: []int{12, 34}, Processes: []string{"nginx"}, Cgroups: []string{"/sys/fs/cgroup/x"},
		Containers: []string{"web"}, Metrics: "http://127.0.0.1:18546/metrics", Series: []string{`http_requests_total{code="200"}`}}
	if m := b.Targets[1].Monitor; !reflect.DeepEqual(m, want) {
		t.Errorf("daemon monitor: got %+v; want %+v", m, want)
	}
	if m := b.Targets[2].Monitor; !m.NoCommand || m.Watches() {
		t.Errorf("outside monitor: got %+v; want nothing watched", m)
	}
	c := b.Scenarios[0].Capacity
	wantCap := &plan.ScenarioCapacity{SLO: b.Scenarios[0].Plan.SLO, Start: 200, Max: 20000, Step: 5 * time.Second, NoWarmup: true, Factor: 1.5, Precision: 0.1, MaxSteps: 12, Confirmations: 5}
	if !reflect.DeepEqual(c, wantCap) || c.SLO.String() != "p99<50ms" {
		t.Errorf("capacity: got %+v; want %+v (the file's slo)", c, wantCap)
	}
	if got := b.Scenarios[1].Capacity.SLO.String(); got != "errors<1%" {
		t.Errorf("cap2 slo: got %q; want its own", got)
	}
	// the first step of a search, for checks and --dry-run: the open model at the start rate
	if l := b.Scenarios[0].PlanFor(b.Targets[0], 0, "").Load; l.Model != plan.Open || l.Rate != 200 || l.Duration != 5*time.Second || l.Connections != 100 {
		t.Errorf("capacity load: got %+v; want open 200/s for 5s on 100 connections", l)
	}
	if got, want := b.Scenarios[0].Describe(0, false), "capacity search against p99<50ms, from 200/s, up to 20000/s, 5s steps, at most 12 steps"; got != want {
		t.Errorf("describe: got %q; want %q", got, want)
	}
	if d, known := b.Scenarios[0].Length(0); d != 5*time.Second || known {
		t.Errorf("length: got %v, %v; want one step (5s), not known", d, known)
	}
}

func TestReadFileMonitorErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, yaml, want string }{
		{"unknown key", "targets:\n  a:\n    url: http://x/\n    monitor: {pids: 1}\nscenarios: {s: {rate: 1}}\n",
			`m.yaml:4:15: targets.a.monitor.pids: unknown key "pids"`},
		{"bad pid", "targets:\n  a:\n    url: http://x/\n    monitor: {pid: -3}\nscenarios: {s: {rate: 1}}\n",
			`m.yaml:4:20: targets.a.monitor.pid[0]: "-3": want a process ID`},
		{"process with a slash", "targets:\n  a:\n    url: http://x/\n    monitor: {process: /bin/x}\nscenarios: {s: {rate: 1}}\n",
			`targets.a.monitor.process[0]: "/bin/x": want a command name`},
		{"monitor true", "targets:\n  a:\n    url: http://x/\n    monitor: true\nscenarios: {s: {rate: 1}}\n",
			`m.yaml:4:14: targets.a.monitor: monitor: true is the default`},
		{"metrics without series", "targets:\n  a:\n    url: http://x/\n    monitor: {metrics: http://x/metrics}\nscenarios: {s: {rate: 1}}\n",
			`targets.a.monitor: metrics without series`},
		{"series without metrics", "targets:\n  a:\n    url: http://x/\n    monitor: {series: up}\nscenarios: {s: {rate: 1}}\n",
			`targets.a.monitor: series without metrics`},
		{"no such target", "targets:\n  a:\n    url: http://x/\n    monitor: {targets: [b]}\nscenarios: {s: {rate: 1}}\n",
			`m.yaml:4:24: targets.a.monitor.targets: no target "b" in this plan`},
		{"target without command", "targets:\n  a:\n    url: http://x/\n    monitor: {targets: b}\n  b: {url: http://y/}\nscenarios: {s: {rate: 1}}\n",
			`targets.a.monitor.targets: target "b" has no command`},
		{"itself", "targets:\n  a:\n    url: http://x/\n    command: x\n    monitor: {targets: a}\nscenarios: {s: {rate: 1}}\n",
			`targets.a.monitor.targets: "a" is this target`},
		{"capacity with a rate", "targets: {a: {url: http://x/}}\nslo: p99<1s\nscenarios:\n  s:\n    rate: 5\n    capacity: {start: 10}\n",
			`m.yaml:5:5: scenarios.s: capacity: sets the rate and length of each step: drop model, rate`},
		{"capacity without slo", "targets: {a: {url: http://x/}}\nscenarios:\n  s:\n    capacity: {start: 10}\n",
			`scenarios.s.capacity: no objective`},
		{"capacity max below start", "targets: {a: {url: http://x/}}\nslo: p99<1s\nscenarios:\n  s:\n    capacity: {start: 10, max: 5}\n",
			`scenarios.s.capacity: max 5/s is below start 10/s`},
		{"capacity factor", "targets: {a: {url: http://x/}}\nslo: p99<1s\nscenarios:\n  s:\n    capacity: {factor: 1}\n",
			`scenarios.s.capacity.factor: 1: want a ratio above 1`},
		{"capacity confirm", "targets: {a: {url: http://x/}}\nslo: p99<1s\nscenarios:\n  s:\n    capacity: {confirm: 21}\n",
			`m.yaml:5:25: scenarios.s.capacity.confirm: 21: want 1 to 20 runs`},
		{"capacity confirm none", "targets: {a: {url: http://x/}}\nslo: p99<1s\nscenarios:\n  s:\n    capacity: {confirm: 0}\n",
			`scenarios.s.capacity.confirm: "0": want a whole number of 1 or more`},
		{"capacity unknown key", "targets: {a: {url: http://x/}}\nslo: p99<1s\nscenarios:\n  s:\n    capacity: {rate: 1}\n",
			`scenarios.s.capacity.rate: unknown key "rate"; want one of: slo, start, max`},
	} {
		_, err := ReadFile("m.yaml", strings.NewReader(c.yaml))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v; want an error with %q", c.name, err, c.want)
		}
	}
}
