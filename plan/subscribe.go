package plan

import (
	"encoding/json"
	"fmt"
	"strings"
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
	// Reference, when set, is the ws:// URL of a connection that subscribes to newHeads beside
	// them, each head the subscriptions receive timed behind its receipt there (see
	// CheckReference).
	Reference string `json:"reference,omitempty"`
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

// CheckReference checks a reference connection's URL for subscriptions of params: a WebSocket
// URL, and subscriptions of newHeads, whose heads are timed behind the reference's.
func CheckReference(url string, params json.RawMessage) error {
	if !strings.HasPrefix(url, "ws://") && !strings.HasPrefix(url, "wss://") {
		return fmt.Errorf("the reference needs a WebSocket URL (ws:// or wss://); got %q", RedactURL(url))
	}
	var ps []json.RawMessage
	if json.Unmarshal(params, &ps) != nil || len(ps) == 0 || string(ps[0]) != `"newHeads"` {
		return fmt.Errorf("a reference times heads: want subscriptions of newHeads, e.g. eth_subscribe [\"newHeads\"]; got %s", params)
	}
	return nil
}

// SubscriptionsOnly reports whether p has subscriptions and no calls: one endpoint without a
// body, no JSON-RPC calls, no target file. Such a run sends nothing but its subscriptions, for its
// duration (see package runner).
func (p Plan) SubscriptionsOnly() bool {
	return p.Subscribe != nil && !p.JSONRPC.On() && p.Traffic.Targets == "" && len(p.Endpoints) == 1 && len(p.Endpoints[0].Body) == 0
}
