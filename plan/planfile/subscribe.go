package planfile

import (
	"strings"

	"github.com/rpcbench/rpcbench/plan"
	"go.yaml.in/yaml/v3"
)

// subscribe reads a scenario's subscribe: {call: 'eth_subscribe ["newHeads"]', count: N, rate: R,
// reference: ws://…}.
func (f *fileReader) subscribe(n *yaml.Node, path string) *plan.Subscribe {
	s := &plan.Subscribe{Count: 1}
	callSet := false
	var refNode *yaml.Node
	f.mapping(n, path, []string{"call", "count", "rate", "reference"}, func(key string, k, v *yaml.Node) {
		kp := joinKey(path, key)
		switch key {
		case "call":
			callSet = true
			var err error
			if s.Method, s.Params, err = plan.ParseSubscribe(f.str(v, kp)); err != nil {
				f.errorf(v, kp, "%v", err)
			}
		case "count":
			if s.Count = f.count(v, kp); s.Count < 1 {
				f.errorf(v, kp, "want 1 or more subscriptions")
			}
		case "reference":
			s.Reference = f.str(v, kp)
			refNode = v
		case "rate":
			if s.Rate = f.number(v, kp); s.Rate < 0 {
				f.errorf(v, kp, "want subscriptions per second above 0, or no rate: all at once")
			}
		}
	})
	if !callSet {
		f.errorf(n, path, `want call: the subscription, e.g. call: eth_subscribe ["newHeads"]`)
	}
	if refNode != nil && callSet && s.Method != "" {
		if err := plan.CheckReference(s.Reference, s.Params); err != nil {
			f.errorf(refNode, joinKey(path, "reference"), "%v", err)
		}
	}
	return s
}

// aloneKeys are the keys that mean something to a scenario of subscriptions alone (subscribe:
// without calls, plan.Plan.SubscriptionsOnly): where the subscriptions go, for how long, and how
// often the live lines come; their own schedule is under subscribe: (count:, rate:). The same
// as the flags run takes for --subscribe alone.
var aloneKeys = []string{"subscribe", "endpoints", "path", "method", "header", "protocol", "duration", "interval", "connect_timeout"}

// checkSubscribeAlone refuses, in a scenario of subscriptions alone, each key that sets a load of
// calls or their travel, which such a run never sends: said at its line rather than ignored.
func (f *fileReader) checkSubscribeAlone(n *yaml.Node, path string, s *plan.Scenario) {
	p := s.Plan
	if p.Subscribe == nil || p.JSONRPC.On() || p.Traffic.Targets != "" || len(p.Endpoints) > 1 || len(p.Endpoints) == 1 && len(p.Endpoints[0].Body) > 0 {
		return
	}
	n = resolve(n)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if contains(loadKeys, k.Value) && !contains(aloneKeys, k.Value) {
			f.errorf(k, joinKey(path, k.Value), "a scenario of subscriptions alone (subscribe: without jsonrpc: calls) sends no calls, so %s: would set nothing; "+
				"it takes only %s (the subscriptions' own schedule is subscribe.count and subscribe.rate), or give jsonrpc: calls for a load beside the subscriptions",
				k.Value, strings.Join(aloneKeys, ", "))
		}
	}
}
