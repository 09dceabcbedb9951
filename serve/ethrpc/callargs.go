package ethrpc

import (
	"encoding/binary"
	"encoding/json"
	"strings"
)

// callArgs is eth_call's and eth_estimateGas's first argument, checked.
type callArgs struct {
	to   *address
	data []byte
	gas  uint64 // 0: not given
}

// parseCallArgs reads argument 0: {"from", "to", "gas", "gasPrice", "maxFeePerGas",
// "maxPriorityFeePerGas", "value", "nonce", "data" or "input"}. Every member is optional; each
// given one must be well formed.
func parseCallArgs(p params) (callArgs, *rpcError) {
	var a callArgs
	raw := p.at(0)
	var o map[string]json.RawMessage
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &o) != nil {
		return a, errorf(CodeInvalidParams, "invalid argument 0: want a call object like {\"to\": \"0x…\", \"data\": \"0x…\"}, got %s", kind(raw))
	}
	str := func(name string) (string, bool, *rpcError) {
		v, ok := o[name]
		if !ok || string(v) == "null" {
			return "", false, nil
		}
		var s string
		if v[0] != '"' || json.Unmarshal(v, &s) != nil {
			return "", false, errorf(CodeInvalidParams, "invalid argument 0: %s: want a hex string, got %s", name, kind(v))
		}
		return s, true, nil
	}
	for _, name := range []string{"from", "to"} {
		s, ok, e := str(name)
		if e != nil {
			return a, e
		}
		if !ok {
			continue
		}
		b, err := parseFixed(s, 20)
		if err != nil {
			return a, errorf(CodeInvalidParams, "invalid argument 0: %s %q: %v", name, clip(s), err)
		}
		if name == "to" {
			to := address(b)
			a.to = &to
		}
	}
	for _, name := range []string{"gas", "gasPrice", "maxFeePerGas", "maxPriorityFeePerGas", "value", "nonce"} {
		s, ok, e := str(name)
		if e != nil {
			return a, e
		}
		if !ok {
			continue
		}
		if name == "value" || strings.HasPrefix(name, "max") || name == "gasPrice" {
			if err := checkBigQuantity(s); err != nil {
				return a, errorf(CodeInvalidParams, "invalid argument 0: %s %q: %v", name, clip(s), err)
			}
			continue
		}
		v, err := parseQuantity(s)
		if err != nil {
			return a, errorf(CodeInvalidParams, "invalid argument 0: %s %q: %v", name, clip(s), err)
		}
		if name == "gas" {
			a.gas = v
		}
	}
	var seen bool
	for _, name := range []string{"input", "data"} {
		s, ok, e := str(name)
		if e != nil {
			return a, e
		}
		if !ok {
			continue
		}
		b, err := parseData(s)
		if err != nil {
			return a, errorf(CodeInvalidParams, "invalid argument 0: %s %q: %v", name, clip(s), err)
		}
		if seen && string(b) != string(a.data) {
			return a, errorf(CodeInvalidParams, `invalid argument 0: both "data" and "input" are set and not equal; please use "input" to pass transaction call data`)
		}
		a.data, seen = b, true
	}
	return a, nil
}

// checkBigQuantity checks a quantity of up to 256 bits (a value or a fee in wei).
func checkBigQuantity(s string) error {
	if len(s) > 2+64 {
		return errNotHex
	}
	if len(s) <= 2+16 {
		_, err := parseQuantity(s)
		return err
	}
	// Longer than 64 bits: check the form on the first 16 digits and the rest digit by digit.
	if _, err := parseQuantity(s[:2+16]); err != nil {
		return err
	}
	for i := 2 + 16; i < len(s); i++ {
		if _, ok := unhex(s[i]); !ok {
			return errNotHex
		}
	}
	return nil
}

// revertError is the answer to a reverted call: code 3 and the ABI-encoded Error(string).
func revertError(reason string) *rpcError {
	data := make([]byte, 4, 4+96)
	binary.BigEndian.PutUint32(data, 0x08c379a0) // Error(string)
	data = append(data, abiString(reason)...)
	return &rpcError{code: CodeReverted, msg: "execution reverted: " + reason, data: appendDataString(nil, data)}
}

func ethCall(s *Server, out []byte, p params) ([]byte, *rpcError) {
	if e := p.count(1, 2); e != nil {
		return out, e
	}
	a, e := parseCallArgs(p)
	if e != nil {
		return out, e
	}
	n, e := s.stateBlock(p, 1)
	if e != nil {
		return out, e
	}
	res, revert := s.chain.call(a.to, a.data, n)
	if revert != "" {
		return out, revertError(revert)
	}
	return appendDataString(out, res), nil
}

func estimateGas(s *Server, out []byte, p params) ([]byte, *rpcError) {
	if e := p.count(1, 2); e != nil {
		return out, e
	}
	a, e := parseCallArgs(p)
	if e != nil {
		return out, e
	}
	n, e := s.stateBlock(p, 1)
	if e != nil {
		return out, e
	}
	if _, revert := s.chain.call(a.to, a.data, n); revert != "" {
		return out, revertError(revert)
	}
	isToken := false
	if a.to != nil {
		_, isToken = s.chain.tokenIndex[*a.to]
	}
	g := estimate(a.data, isToken, a.to != nil)
	if a.gas != 0 && a.gas < g {
		return out, errorf(CodeServerError, "gas required exceeds allowance (%d)", a.gas)
	}
	return appendQuantityString(out, g), nil
}
