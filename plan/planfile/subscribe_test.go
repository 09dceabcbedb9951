package planfile

import (
	"strings"
	"testing"

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
