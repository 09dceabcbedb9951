package diff

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// blockParam is where the known methods take their block: the index of the parameter, and
// whether it may be omitted (meaning "latest" or "pending" then).
var blockParam = map[string]struct {
	pos      int
	optional bool
}{
	"eth_getBalance": {1, false}, "eth_getCode": {1, false}, "eth_getTransactionCount": {1, false},
	"eth_getStorageAt": {2, false}, "eth_getProof": {2, false}, "eth_feeHistory": {1, false},
	"eth_call": {1, true}, "eth_estimateGas": {1, true}, "eth_createAccessList": {1, true},
	"eth_getBlockByNumber": {0, false}, "eth_getBlockTransactionCountByNumber": {0, false},
	"eth_getUncleCountByBlockNumber": {0, false}, "eth_getTransactionByBlockNumberAndIndex": {0, false},
	"eth_getUncleByBlockNumberAndIndex": {0, false}, "eth_getBlockReceipts": {0, false},
	"debug_traceCall": {1, false}, "debug_traceBlockByNumber": {0, false},
	"trace_block": {0, false}, "trace_replayBlockTransactions": {0, false}, "trace_call": {2, true},
}

var headBody = []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}`)

// pinBlock rewrites q's "latest", "pending" and omitted blocks to the first server's head, asked
// now; with skip, it also asks every other server and skips a request whose block is above any
// head. It returns the body to send, or stop when the request is not to be sent: skipped, or a
// head could not be read (then r.Answers say why).
func (j *judge) pinBlock(ctx context.Context, servers []server, q *Request, r *Result) ([]byte, bool) {
	calls, batch := splitCalls(q.Body)
	need := false
	for _, c := range calls {
		if _, ok := blockParam[c.method]; ok {
			need = true
		}
	}
	if !need {
		return q.Body, false
	}
	ask := servers[:1]
	if j.skip {
		ask = servers
	}
	heads := make([]uint64, len(ask))
	for k, s := range ask {
		h, a, err := s.head(ctx, q)
		if err != nil {
			for kk := range r.Answers {
				r.Answers[kk] = Answer{Class: "not sent", Error: fmt.Sprintf("the head of %s could not be read to pin the block", serverLetter(k))}
			}
			a.Error = err.Error()
			r.Answers[k] = a
			return nil, true
		}
		heads[k] = h
	}
	pin := heads[0]
	hex := "0x" + strconv.FormatUint(pin, 16)
	quoted := []byte(strconv.Quote(hex))
	top, rewritten := uint64(0), false
	for i := range calls {
		c := &calls[i]
		bp, ok := blockParam[c.method]
		if !ok {
			continue
		}
		switch {
		case len(c.params) > bp.pos:
			var tag string
			if json.Unmarshal(c.params[bp.pos], &tag) != nil {
				continue // an object (EIP-1898) or something else: left as it is
			}
			switch {
			case tag == "latest" || tag == "pending":
				c.params[bp.pos], c.changed, rewritten = quoted, true, true
				top = max(top, pin)
			case strings.HasPrefix(tag, "0x"):
				if n, err := strconv.ParseUint(tag[2:], 16, 64); err == nil {
					top = max(top, n)
				}
			}
		case len(c.params) == bp.pos && bp.optional:
			c.params, c.changed, rewritten = append(c.params, quoted), true, true
			top = max(top, pin)
		}
	}
	if j.skip {
		for k, h := range heads {
			if top > h {
				r.Skipped = fmt.Sprintf("block %#x is above the head of %s (%#x)", top, serverLetter(k), h)
				return nil, true
			}
		}
	}
	if !rewritten {
		return q.Body, false
	}
	body, err := joinCalls(calls, batch)
	if err != nil {
		return q.Body, false
	}
	r.Pinned, r.Sent = hex, body
	return body, false
}

// head asks s for its head with eth_blockNumber (with q's path and headers).
func (s server) head(ctx context.Context, q *Request) (uint64, Answer, error) {
	hq := *q
	hq.Method = "POST"
	a := s.do(ctx, &hq, headBody)
	if a.Class != "" {
		return 0, a, fmt.Errorf("eth_blockNumber, to pin the block: %s", a.Error)
	}
	var ans struct {
		Result string
		Error  *struct {
			Code    int
			Message string
		}
	}
	a.Class = "other"
	if err := json.Unmarshal(a.Body, &ans); err != nil {
		return 0, a, fmt.Errorf("eth_blockNumber, to pin the block: the answer is not JSON-RPC: %.80s", a.Body)
	}
	if ans.Error != nil {
		return 0, a, fmt.Errorf("eth_blockNumber, to pin the block: error %d: %s", ans.Error.Code, ans.Error.Message)
	}
	n, err := strconv.ParseUint(strings.TrimPrefix(ans.Result, "0x"), 16, 64)
	if err != nil || !strings.HasPrefix(ans.Result, "0x") {
		return 0, a, fmt.Errorf("eth_blockNumber, to pin the block: result %q is not a hex block number", ans.Result)
	}
	a.Class = ""
	return n, a, nil
}

// rpcCall is one JSON-RPC call of a body, its members raw.
type rpcCall struct {
	members map[string]json.RawMessage
	method  string
	params  []json.RawMessage
	changed bool
}

// splitCalls reads a JSON-RPC body: one call or a batch. Calls whose params are not an array
// keep no params and are not rewritten.
func splitCalls(body []byte) ([]rpcCall, bool) {
	b := bytes.TrimSpace(body)
	var raws []json.RawMessage
	batch := len(b) > 0 && b[0] == '['
	if batch {
		if json.Unmarshal(b, &raws) != nil {
			return nil, false
		}
	} else {
		raws = []json.RawMessage{b}
	}
	calls := make([]rpcCall, 0, len(raws))
	for _, raw := range raws {
		var c rpcCall
		if json.Unmarshal(raw, &c.members) != nil {
			return nil, false
		}
		json.Unmarshal(c.members["method"], &c.method) //nolint:errcheck // no method: not rewritten
		if p, ok := c.members["params"]; ok && json.Unmarshal(p, &c.params) != nil {
			c.method = "" // params by name: not rewritten
		}
		calls = append(calls, c)
	}
	return calls, batch
}

func joinCalls(calls []rpcCall, batch bool) ([]byte, error) {
	out := make([]map[string]json.RawMessage, len(calls))
	for i, c := range calls {
		if c.changed {
			p, err := json.Marshal(c.params)
			if err != nil {
				return nil, err
			}
			c.members["params"] = p
		}
		out[i] = c.members
	}
	if batch {
		return json.Marshal(out)
	}
	return json.Marshal(out[0])
}
