package planfile

import (
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
