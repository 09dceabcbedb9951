package ethrpc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
)

// JSON-RPC 2.0 error codes, and the two Ethereum nodes add.
const (
	CodeParseError     = -32700 // the body is not JSON
	CodeInvalidRequest = -32600 // JSON, but not a JSON-RPC request (or an empty batch)
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeServerError    = -32000 // e.g. a block that does not exist, as geth answers
	CodeReverted       = 3      // eth_call or eth_estimateGas reverted; data holds the revert data
)

// rpcError is an error answer. data, if set, is raw JSON.
type rpcError struct {
	code int
	msg  string
	data []byte
}

func errorf(code int, format string, a ...any) *rpcError {
	return &rpcError{code: code, msg: fmt.Sprintf(format, a...)}
}

// request is one call as decoded, every member kept raw so its type can be checked.
type request struct {
	Version json.RawMessage `json:"jsonrpc"`
	Method  json.RawMessage `json:"method"`
	Params  json.RawMessage `json:"params"`
	ID      json.RawMessage `json:"id"`
}

var nullID = []byte("null")

// handle answers one HTTP body or WebSocket message: a call or a batch. It appends the answer to
// out and returns it, or returns out unchanged when nothing is to be sent (only notifications).
func (s *Server) handle(body, out []byte) []byte { return s.handleOn(body, out, nil) }

// handleOn is handle for a call that arrived on a WebSocket connection (cc; nil over HTTP), where
// eth_subscribe and eth_unsubscribe work.
func (s *Server) handleOn(body, out []byte, cc *callConn) []byte {
	body = bytes.TrimSpace(body)
	if len(body) > 0 && body[0] == '[' {
		var items []json.RawMessage
		if err := json.Unmarshal(body, &items); err != nil {
			return appendError(out, nullID, errorf(CodeParseError, "parse error: %v", err))
		}
		switch {
		case len(items) == 0:
			return appendError(out, nullID, errorf(CodeInvalidRequest, "empty batch"))
		case len(items) > s.maxBatch:
			return appendError(out, nullID, errorf(CodeInvalidRequest, "batch of %d calls is over the limit of %d", len(items), s.maxBatch))
		}
		start := len(out)
		out = append(out, '[')
		for _, it := range items {
			mark := len(out)
			if len(out) > start+1 {
				out = append(out, ',')
			}
			n := len(out)
			if out = s.call(out, it, cc); len(out) == n {
				out = out[:mark] // a notification: no answer
			}
		}
		if len(out) == start+1 {
			return out[:start]
		}
		return append(out, ']')
	}
	return s.call(out, body, cc)
}

// call answers one request (raw is one JSON value, not an array).
func (s *Server) call(out []byte, raw []byte, cc *callConn) []byte {
	var r request
	if err := json.Unmarshal(raw, &r); err != nil {
		if !json.Valid(raw) {
			return appendError(out, nullID, errorf(CodeParseError, "parse error: %v", err))
		}
		return appendError(out, nullID, errorf(CodeInvalidRequest, "invalid request: want a JSON object, got %s", kind(raw)))
	}
	id := r.ID
	if id != nil && !validID(id) {
		return appendError(out, nullID, errorf(CodeInvalidRequest, "invalid request: id must be a string, a number or null, got %s", kind(id)))
	}
	answer := id != nil
	if id == nil {
		id = nullID
	}
	if string(r.Version) != `"2.0"` {
		return appendError(out, id, errorf(CodeInvalidRequest, `invalid request: jsonrpc must be "2.0"`))
	}
	var name string
	if len(r.Method) == 0 || r.Method[0] != '"' || json.Unmarshal(r.Method, &name) != nil {
		return appendError(out, id, errorf(CodeInvalidRequest, "invalid request: method must be a string"))
	}
	var p params
	switch {
	case len(r.Params) == 0 || string(r.Params) == "null":
	case r.Params[0] == '[':
		if err := json.Unmarshal(r.Params, &p); err != nil {
			return appendError(out, id, errorf(CodeInvalidRequest, "invalid request: params: %v", err))
		}
	case r.Params[0] == '{':
		if (lookup(name) == nil && lookupConn(name) == nil) || !answer {
			break // method not found, or a notification: no answer either way
		}
		return appendError(out, id, errorf(CodeInvalidParams, "%s takes its params by position: want an array", name))
	default:
		return appendError(out, id, errorf(CodeInvalidRequest, "invalid request: params must be an array or an object, got %s", kind(r.Params)))
	}
	m := lookup(name)
	if cm := lookupConn(name); cm != nil {
		m = func(s *Server, out []byte, p params) ([]byte, *rpcError) { return cm(s, cc, out, p) }
	}
	if m == nil {
		if !answer {
			return out // a notification is never answered, even one that cannot run
		}
		return appendError(out, id, errorf(CodeMethodNotFound, "the method %s does not exist/is not available", clip(name)))
	}
	mark := len(out)
	out = append(out, `{"jsonrpc":"2.0","id":`...)
	out = append(out, id...)
	head := len(out)
	out = append(out, `,"result":`...)
	out, e := m(s, out, p)
	if s.pushDelay > 0 {
		s.sinceBlock.Add(1)
	}
	if e != nil {
		out = appendError(out[:mark], id, e)
	} else {
		out = append(out, '}')
		if answer && (s.noise || s.injectShare > 0) {
			out = s.fault(out, head)
		}
	}
	if !answer {
		return out[:mark] // a notification is run, never answered
	}
	return out
}

// fault puts the members of Config.Noise and Config.InjectShare into the answer at out[head:],
// just after its id.
func (s *Server) fault(out []byte, head int) []byte {
	var add []byte
	if s.noise {
		add = fmt.Appendf(add, `,"noise":"0x%016x"`, rand.Uint64())
	}
	if s.injectShare > 0 {
		n := s.answers.Add(1)
		if math.Floor(float64(n)*s.injectShare) > math.Floor(float64(n-1)*s.injectShare) {
			s.injected.Add(1)
			add = append(add, `,"injected":true`...)
		}
	}
	out = append(out, add...)
	copy(out[head+len(add):], out[head:len(out)-len(add)])
	copy(out[head:], add)
	return out
}

func appendError(out, id []byte, e *rpcError) []byte {
	out = append(out, `{"jsonrpc":"2.0","id":`...)
	out = append(out, id...)
	out = append(out, `,"error":{"code":`...)
	out = fmt.Appendf(out, "%d", e.code)
	out = append(out, `,"message":`...)
	out = appendJSONString(out, e.msg)
	if e.data != nil {
		out = append(out, `,"data":`...)
		out = append(out, e.data...)
	}
	return append(out, "}}"...)
}

// validID: a string, a number or null.
func validID(id []byte) bool {
	switch c := id[0]; {
	case c == '"', c == 'n', c == '-', '0' <= c && c <= '9':
		return true
	}
	return false
}

// kind names the JSON type of a valid JSON value, for error messages.
func kind(v []byte) string {
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// params are a call's positional parameters, raw.
type params []json.RawMessage

// count checks that there are at least min and at most max parameters (trailing nulls are
// absent ones, as in geth).
func (p params) count(min, max int) *rpcError {
	n := len(p)
	for n > min && string(p[n-1]) == "null" {
		n--
	}
	switch {
	case n < min:
		return errorf(CodeInvalidParams, "missing value for required argument %d", n)
	case n > max:
		return errorf(CodeInvalidParams, "too many arguments, want at most %d", max)
	}
	return nil
}

// present reports whether argument i was given (and is not null).
func (p params) present(i int) bool { return i < len(p) && string(p[i]) != "null" }

// str reads argument i as a JSON string.
func (p params) str(i int) (string, *rpcError) {
	var s string
	if !p.present(i) || p[i][0] != '"' || json.Unmarshal(p[i], &s) != nil {
		return "", errorf(CodeInvalidParams, "invalid argument %d: want a string, got %s", i, kind(p.at(i)))
	}
	return s, nil
}

func (p params) at(i int) []byte {
	if i < len(p) {
		return p[i]
	}
	return nil
}

// boolean reads argument i as true or false.
func (p params) boolean(i int) (bool, *rpcError) {
	switch string(p.at(i)) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, errorf(CodeInvalidParams, "invalid argument %d: want true or false, got %s", i, kind(p.at(i)))
}

// fixed reads argument i as data of n bytes; what names it in the error.
func (p params) fixed(i, n int, what string) ([]byte, *rpcError) {
	s, e := p.str(i)
	if e != nil {
		return nil, errorf(CodeInvalidParams, "invalid argument %d: want %s (0x and %d hex digits)", i, what, 2*n)
	}
	b, err := parseFixed(s, n)
	if err != nil {
		return nil, errorf(CodeInvalidParams, "invalid argument %d: %s %q: %v", i, what, clip(s), err)
	}
	return b, nil
}
