package planfile

import (
	"strings"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/plan"
)

func TestParseSubscribe(t *testing.T) {
	t.Parallel()
	m, p, err := plan.ParseSubscribe(`eth_subscribe ["logs",{"address":"0x01"}]`)
	if err != nil || m != "eth_subscribe" || string(p) != `["logs",{"address":"0x01"}]` {
		t.Errorf("got %q %s %v", m, p, err)
	}
	for _, bad := range []string{`eth_subscribe`, `eth_call ["x"]`, `eth_subscribe newHeads`, `_subscribe []`, `eth_subscribe {"a":1}`} {
		if _, _, err := plan.ParseSubscribe(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestPlanFileSubscribe(t *testing.T) {
	t.Parallel()
	const file = `targets:
  node:
    url: ws://127.0.0.1:18545/
scenarios:
  heads:
    jsonrpc:
      calls:
        - {method: eth_blockNumber}
    rate: 100
    subscribe:
      call: eth_subscribe ["newHeads"]
      count: 20
      rate: 5
`
	b, err := ReadFile("p.yaml", strings.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	s := b.Scenarios[0].Plan.Subscribe
	if s == nil || s.Method != "eth_subscribe" || string(s.Params) != `["newHeads"]` || s.Count != 20 || s.Rate != 5 {
		t.Fatalf("subscribe: %+v", s)
	}
	bad := strings.Replace(file, `call: eth_subscribe ["newHeads"]`, `call: eth_subscribe newHeads`, 1)
	_, err = ReadFile("p.yaml", strings.NewReader(bad))
	if err == nil || !strings.Contains(err.Error(), "p.yaml:11:13: scenarios.heads.subscribe.call:") {
		t.Errorf("bad call: %v; want the file, line, column and key", err)
	}
	withRef := strings.Replace(file, "      rate: 5\n", "      rate: 5\n      reference: ws://127.0.0.1:18546/\n", 1)
	if b, err := ReadFile("p.yaml", strings.NewReader(withRef)); err != nil || b.Scenarios[0].Plan.Subscribe.Reference != "ws://127.0.0.1:18546/" {
		t.Errorf("reference: %v; want ws://127.0.0.1:18546/ read", err)
	}
	for _, c := range []struct{ from, to, want string }{
		{"reference: ws://", "reference: http://", "p.yaml:14:18: scenarios.heads.subscribe.reference: the reference needs a WebSocket URL"},
		{`call: eth_subscribe ["newHeads"]`, `call: eth_subscribe ["newPendingTransactions"]`, "p.yaml:14:18: scenarios.heads.subscribe.reference: a reference times heads"},
	} {
		_, err := ReadFile("p.yaml", strings.NewReader(strings.Replace(withRef, c.from, c.to, 1)))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want %q", c.to, err, c.want)
		}
	}
}

// A scenario of subscriptions alone sends no calls: a key of the calls' load or travel is refused
// at its line, with what the scenario takes, rather than read and ignored. The same keys beside
// jsonrpc: calls are read.
func TestPlanFileSubscribeAloneKeys(t *testing.T) {
	t.Parallel()
	const file = `targets:
  node: {url: ws://127.0.0.1:18548/}
scenarios:
  heads:
    duration: 2s
    interval: 500ms
    connect_timeout: 1s
    subscribe:
      call: eth_subscribe ["newHeads"]
      count: 2
      rate: 4
`
	b, err := ReadFile("p.yaml", strings.NewReader(file))
	if err != nil {
		t.Fatalf("the keys a run of subscriptions alone takes: %v", err)
	}
	if l := b.Scenarios[0].Plan.Load; l.Duration != 2*time.Second || l.Interval != 500*time.Millisecond {
		t.Errorf("load %+v; want duration 2s, interval 500ms", l)
	}
	for _, c := range []struct{ key, want string }{
		{"rate: 100", "p.yaml:5:5: scenarios.heads.rate: a scenario of subscriptions alone"},
		{"connections: 8", "p.yaml:5:5: scenarios.heads.connections: a scenario of subscriptions alone"},
		{"stages: [{duration: 1s, target: 10}]", "p.yaml:5:5: scenarios.heads.stages:"},
		{"steps: [1, 2]", "p.yaml:5:5: scenarios.heads.steps:"},
		{"warmup: 1s", "p.yaml:5:5: scenarios.heads.warmup:"},
		{"model: open", "p.yaml:5:5: scenarios.heads.model:"},
		{"timeout: 1s", "p.yaml:5:5: scenarios.heads.timeout:"},
		{"insecure: true", "p.yaml:5:5: scenarios.heads.insecure:"},
		{"slo: {p99: 10ms}", "p.yaml:5:5: scenarios.heads.slo:"},
	} {
		bad := strings.Replace(file, "    duration: 2s\n", "    "+c.key+"\n    duration: 2s\n", 1)
		_, err := ReadFile("p.yaml", strings.NewReader(bad))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "subscribe.count and subscribe.rate") {
			t.Errorf("%s: %v; want %q and what the scenario takes", c.key, err, c.want)
		}
		calls := strings.Replace(bad, "    duration: 2s\n", "    duration: 2s\n    jsonrpc:\n      calls:\n        - {method: eth_blockNumber}\n", 1)
		if _, err := ReadFile("p.yaml", strings.NewReader(calls)); err != nil && strings.Contains(err.Error(), "subscriptions alone") {
			t.Errorf("%s beside calls: %v; want it read", c.key, err)
		}
	}
}
