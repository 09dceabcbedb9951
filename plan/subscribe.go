package plan

import (
	"encoding/json"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Subscribe is a load of JSON-RPC subscriptions beside (or instead of) the calls: Count
// subscriptions of Method with Params, each on its own WebSocket connection to the plan's URL,
// opened at Rate per second (open model) or all at once (Rate 0: closed, N held), held for the
// run and then unsubscribed. See package subscribe.
type Subscribe struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Count  int             `json:"count"`
	Rate   float64         `json:"rate,omitempty"`
}

// String is the subscription request as --subscribe takes it.
func (s *Subscribe) String() string { return s.Method + " " + string(s.Params) }

// ParseSubscribe reads a --subscribe value (a plan file's subscribe.call): the method, a space,
// and the params as a JSON array, e.g. `eth_subscribe ["newHeads"]` or
// `eth_subscribe ["logs",{"address":"0x…"}]`.
func ParseSubscribe(s string) (method string, params json.RawMessage, err error) {
	method, rest, _ := strings.Cut(strings.TrimSpace(s), " ")
	rest = strings.TrimSpace(rest)
	if !strings.HasSuffix(method, "_subscribe") || len(method) == len("_subscribe") {
		return "", nil, fmt.Errorf("%q: want METHOD PARAMS, the method a NAMESPACE_subscribe (e.g. eth_subscribe [\"newHeads\"])", s)
	}
	if rest == "" {
		return "", nil, fmt.Errorf("%q: want params after the method, a JSON array (e.g. eth_subscribe [\"newHeads\"])", s)
	}
	var arr []json.RawMessage
	if err := json.Unmarshal([]byte(rest), &arr); err != nil {
		return "", nil, fmt.Errorf("%q: the params %s are not a JSON array: %v", s, rest, err)
	}
	return method, json.RawMessage(rest), nil
}

// subscribe reads a scenario's subscribe: {call: 'eth_subscribe ["newHeads"]', count: N, rate: R}.
func (f *fileReader) subscribe(n *yaml.Node, path string) *Subscribe {
	s := &Subscribe{Count: 1}
	callSet := false
	f.mapping(n, path, []string{"call", "count", "rate"}, func(key string, k, v *yaml.Node) {
		kp := joinKey(path, key)
		switch key {
		case "call":
			callSet = true
			var err error
			if s.Method, s.Params, err = ParseSubscribe(f.str(v, kp)); err != nil {
				f.errorf(v, kp, "%v", err)
			}
		case "count":
			if s.Count = f.count(v, kp); s.Count < 1 {
				f.errorf(v, kp, "want 1 or more subscriptions")
			}
		case "rate":
			if s.Rate = f.number(v, kp); s.Rate < 0 {
				f.errorf(v, kp, "want subscriptions per second above 0, or no rate: all at once")
			}
		}
	})
	if !callSet {
		f.errorf(n, path, `want call: the subscription, e.g. call: eth_subscribe ["newHeads"]`)
	}
	return s
}
