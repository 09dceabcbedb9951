package planfile

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

const sweepYAML = `targets:
  node: {url: http://127.0.0.1:18545/}
scenarios:
  batch:
    connections: 4
    duration: 1m
    sweep: {batch: [1, 10, 50]}
    jsonrpc:
      calls:
        - {method: eth_blockNumber}
  stepped:
    steps: [5, 20]
    step: 30s
    alone: true
    sweep:
      batch: [2, 8]
    jsonrpc:
      calls:
        - {method: eth_blockNumber}
        - {method: eth_chainId}
`

// A sweep runs the scenario once per value, its steps (and parts) inside each value, the value in
// the run's label and in its plan's jsonrpc.batch; run --plan picks one of them.
func TestSweepRuns(t *testing.T) {
	t.Parallel()
	b, err := ReadFile("plan.yaml", strings.NewReader(sweepYAML))
	if err != nil {
		t.Fatal(err)
	}
	node := b.Targets[0]
	want := map[string][]string{ // label / batch / connections / method
		"batch": {"batch 1/1/4/eth_blockNumber", "batch 10/10/4/eth_blockNumber", "batch 50/50/4/eth_blockNumber"},
		"stepped": {
			"batch 2, eth_blockNumber alone at 5 connections/2/5/eth_blockNumber", "batch 2, eth_chainId alone at 5 connections/2/5/eth_chainId",
			"batch 2, eth_blockNumber alone at 20 connections/2/20/eth_blockNumber", "batch 2, eth_chainId alone at 20 connections/2/20/eth_chainId",
			"batch 8, eth_blockNumber alone at 5 connections/8/5/eth_blockNumber", "batch 8, eth_chainId alone at 5 connections/8/5/eth_chainId",
			"batch 8, eth_blockNumber alone at 20 connections/8/20/eth_blockNumber", "batch 8, eth_chainId alone at 20 connections/8/20/eth_chainId",
		},
	}
	for _, s := range b.Scenarios {
		var got []string
		for k := range s.Runs() {
			p := s.PlanFor(node, k, "")
			var methods []string
			for _, c := range p.JSONRPC.Calls {
				methods = append(methods, c.Method)
			}
			got = append(got, fmt.Sprintf("%s/%d/%d/%s", s.StepLabel(k), p.JSONRPC.Batch, p.Normalized().Load.Connections, strings.Join(methods, ",")))
			if err := p.Validate(); err != nil {
				t.Errorf("%s run %d: %v", s.Name, k, err)
			}
		}
		if strings.Join(got, "\n") != strings.Join(want[s.Name], "\n") {
			t.Errorf("%s runs:\n%s\nwant\n%s", s.Name, strings.Join(got, "\n"), strings.Join(want[s.Name], "\n"))
		}
	}
	p, _, _, k, err := b.Select("batch", "", 3)
	if err != nil || k != 2 || p.JSONRPC.Batch != 50 {
		t.Errorf("batch step 3: %v, run %d, batch %d; want run 2 with batch 50", err, k, p.JSONRPC.Batch)
	}
	if _, _, _, _, err := b.Select("batch", "", 4); err == nil || !strings.Contains(err.Error(), "has steps 1 to 3") {
		t.Errorf("batch step 4: %v; want steps 1 to 3", err)
	}
}

func TestSweepErrors(t *testing.T) {
	t.Parallel()
	head := "targets:\n  t: {url: http://127.0.0.1:1/}\nscenarios:\n  s:\n    rate: 10\n"
	calls := "    jsonrpc: {calls: [{method: m}]}\n"
	for body, want := range map[string]string{
		"    sweep: {batch: [1, 10]}\n":                                                "plan.yaml:6:12: scenarios.s.sweep: batch is the number of JSON-RPC calls per request: give jsonrpc.calls",
		calls + "    sweep: {pool: [1, 10]}\n":                                         `plan.yaml:7:13: scenarios.s.sweep.pool: unknown parameter "pool": want batch, or TARGET --FLAG`,
		calls + "    sweep: {batch: [1, 0]}\n":                                         `plan.yaml:7:24: scenarios.s.sweep.batch[1]: "0": want a whole number of 1 or more`,
		calls + "    sweep: {batch: [1, 2.5]}\n":                                       `scenarios.s.sweep.batch[1]: "2.5": want a whole number of 1 or more`,
		calls + "    sweep: {batch: [10, 10]}\n":                                       "plan.yaml:7:25: scenarios.s.sweep.batch[1]: 10 is given twice",
		calls + "    sweep: {batch: [1, 20000]}\n":                                     "scenarios.s.sweep.batch[1]: 20000 calls per request: want 1 to 10000",
		calls + "    sweep: {batch: []}\n":                                             "scenarios.s.sweep.batch: want a list of values, e.g. [1, 10, 50, 100]",
		calls + "    sweep: {}\n":                                                      "scenarios.s.sweep: empty: want one parameter and its values, e.g. {batch: [1, 10, 50, 100]} or {daemon --max-idle: [1, 10, 100]}; the parameters: batch, or TARGET --FLAG",
		calls + "    sweep: [1, 10]\n":                                                 "scenarios.s.sweep: want a mapping",
		"    jsonrpc: {calls: [{method: m}], batch: 5}\n    sweep: {batch: [1, 10]}\n": "scenarios.s.sweep: the sweep sets jsonrpc.batch of each run: drop jsonrpc.batch",
	} {
		_, err := ReadFile("plan.yaml", strings.NewReader(head+body))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want an error with %q", body, err, want)
		}
	}
	capHead := "targets:\n  t: {url: http://127.0.0.1:1/}\nscenarios:\n  s:\n"
	_, err := ReadFile("plan.yaml", strings.NewReader(capHead+calls+"    sweep: {batch: [1, 10]}\n    capacity: {slo: p99<10ms}\n"))
	if err == nil || !strings.Contains(err.Error(), "a capacity search is one search per target: drop sweep: or capacity:") {
		t.Errorf("sweep with capacity: %v; want it refused", err)
	}
}

// A sweep of a target's flag ({TARGET --FLAG: […]}) sets the flag's value in that target's command
// at each value, in a shell command line or an argument vector, with "--flag v" or "--flag=v";
// the other targets and the scenarios without the sweep keep the commands as given.
func TestSweepTargetFlag(t *testing.T) {
	t.Parallel()
	b, err := ReadFile("plan.yaml", strings.NewReader(`targets:
  node: {url: http://127.0.0.1:18545/, command: "rpcbench serve jsonrpc --addr 127.0.0.1:18545"}
  daemon: {url: http://127.0.0.1:18546/, command: "rpcbench serve relay --max-idle 1024 --addr 127.0.0.1:18546 && echo --max-idle"}
  argv: {url: http://127.0.0.1:18547/, command: [relay, --max-idle=5, --x, "1"]}
scenarios:
  pool:
    steps: [1, 4]
    step: 1s
    sweep: {daemon --max-idle: [1, 100]}
  pool2:
    duration: 1s
    sweep: {argv --max-idle: [3]}
  plain: {duration: 1s}
`))
	if err != nil {
		t.Fatal(err)
	}
	node, daemon, argv := b.Targets[0], b.Targets[1], b.Targets[2]
	pool, pool2, plain := b.Scenarios[0], b.Scenarios[1], b.Scenarios[2]
	var got []string
	for k := range pool.Runs() {
		got = append(got, pool.StepLabel(k)+": "+strings.Join(pool.TargetAt(daemon, k).Command, " "))
		if c := pool.TargetAt(node, k).Command; strings.Join(c, " ") != node.Command[0] {
			t.Errorf("run %d: node's command %q; want it as given", k, c)
		}
	}
	want := []string{
		"daemon --max-idle 1, 1 connection: rpcbench serve relay --max-idle 1 --addr 127.0.0.1:18546 && echo --max-idle",
		"daemon --max-idle 1, 4 connections: rpcbench serve relay --max-idle 1 --addr 127.0.0.1:18546 && echo --max-idle",
		"daemon --max-idle 100, 1 connection: rpcbench serve relay --max-idle 100 --addr 127.0.0.1:18546 && echo --max-idle",
		"daemon --max-idle 100, 4 connections: rpcbench serve relay --max-idle 100 --addr 127.0.0.1:18546 && echo --max-idle",
	}
	if !slices.Equal(got, want) {
		t.Errorf("runs:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if c := pool2.TargetAt(argv, 0).Command; !slices.Equal(c, []string{"relay", "--max-idle=3", "--x", "1"}) {
		t.Errorf("argv at 3: %q", c)
	}
	if c := plain.TargetAt(daemon, 0).Command; !slices.Equal(c, daemon.Command) || !pool.SweepsCommand() || plain.SweepsCommand() {
		t.Errorf("plain: daemon's command %q; want it as given", c)
	}
	if !slices.Equal(argv.Command, []string{"relay", "--max-idle=5", "--x", "1"}) {
		t.Errorf("the target's own command changed: %q", argv.Command)
	}
}

func TestSweepTargetFlagErrors(t *testing.T) {
	t.Parallel()
	head := `targets:
  node: {url: http://127.0.0.1:1/, command: "serve --max-idle 5 --max-idle=6"}
  bare: {url: http://127.0.0.1:2/}
  d: {url: http://127.0.0.1:3/, command: [serve, --pool, "4", "--conns=$N"]}
  words: {url: http://127.0.0.1:4/, command: "serve --max-idle many; serve --pool 1.5 --n=10k"}
  sec: {url: http://127.0.0.1:5/, command: "serve --upstream http://u:SWPW@127.0.0.1:1/?token=SWQ --token SWTOK"}
scenarios:
  s:
    rate: 10
`
	for body, want := range map[string]string{
		"    sweep: {x --pool: [1, 10]}\n":         `plan.yaml:10:13: scenarios.s.sweep.x --pool: no target "x" in this plan: want one of node, bare, d, words, sec`,
		"    sweep: {bare --pool: [1, 10]}\n":      "plan.yaml:10:13: scenarios.s.sweep.bare --pool: target bare has no command: the sweep starts its command again at each value of --pool",
		"    sweep: {d --max-idle: [1, 10]}\n":     "plan.yaml:10:13: scenarios.s.sweep.d --max-idle: targets.d.command has no --max-idle VALUE: give the flag there with the value of the runs outside the sweep (e.g. --max-idle 1024)",
		"    sweep: {node --max-idle: [1]}\n":      "scenarios.s.sweep.node --max-idle: targets.node.command gives --max-idle 2 times: want it once",
		"    sweep: {d pool: [1]}\n":               `scenarios.s.sweep.d pool: unknown parameter "d pool": want batch, or TARGET --FLAG (a flag of a target's command, e.g. daemon --max-idle)`,
		"    sweep: {d --pool: [1, 1]}\n":          "plan.yaml:10:27: scenarios.s.sweep.d --pool[1]: 1 is given twice",
		"    sweep: {d --pool: [0]}\n":             `scenarios.s.sweep.d --pool[0]: "0": want a whole number of 1 or more`,
		"    sweep: {d --pool: [1], batch: [2]}\n": "scenarios.s.sweep.batch: a sweep varies one parameter (d --pool is swept already)",
		"    sweep: {words --max-idle: [1]}\n":     `plan.yaml:10:13: scenarios.s.sweep.words --max-idle: targets.words.command gives --max-idle the value "many;": want a plain whole number there (e.g. --max-idle 1024), which the sweep replaces at each value`,
		"    sweep: {words --pool: [1]}\n":         `targets.words.command gives --pool the value "1.5"`,
		"    sweep: {words --n: [1]}\n":            `targets.words.command gives --n the value "10k"`,
		"    sweep: {d --conns: [1]}\n":            `targets.d.command gives --conns the value "$N"`,
		// a value that holds a secret is quoted with it REDACTED
		"    sweep: {sec --upstream: [1]}\n": `targets.sec.command gives --upstream the value "http://REDACTED@127.0.0.1:1/?token=REDACTED"`,
		"    sweep: {sec --token: [1]}\n":    `targets.sec.command gives --token the value "REDACTED"`,
	} {
		_, err := ReadFile("plan.yaml", strings.NewReader(head+body))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want an error with %q", body, err, want)
		}
		if err != nil && strings.Contains(err.Error(), "SW") {
			t.Errorf("%s: %v: quotes a secret", body, err)
		}
	}
}
