package check

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rpcbench/rpcbench/internal/jsonscan"
	"github.com/rpcbench/rpcbench/result"
)

// The protocol failures of JSON-RPC answers, made once.
var (
	errNotJSON      error = result.Exact("jsonrpc: answer is not a JSON object or array")
	errNoMember     error = result.Exact("jsonrpc: answer has neither result nor error")
	errIDMismatch   error = result.Exact("jsonrpc: answer id does not match the request")
	errNullID       error = result.Exact("jsonrpc: answer id is null without an error")
	errBatchForOne  error = result.Exact("jsonrpc: batch answer to a single call")
	errOneForBatch  error = result.Exact("jsonrpc: single answer to a batch")
	errBatchUnknown error = result.Exact("jsonrpc: batch answer with an id not in the batch")
	errBatchRepeat  error = result.Exact("jsonrpc: batch answer with an id twice")
	errBatchMissing error = result.Exact("jsonrpc: batch answer lacks ids of the batch")
	errBadError     error = result.Exact("jsonrpc: error member without an integer code")
)

// maxMessage bounds the server's message kept in a failure's message.
const maxMessage = 80

// reqIDs describes the ids of a request: one id, or a batch of n calls. For a batch whose ids are
// consecutive (as plan.JSONRPCSource makes them) first is the lowest; otherwise list holds them.
type reqIDs struct {
	batch  bool
	hasID  bool // the single call has a usable id
	id     int64
	n      int
	consec bool
	body   []byte // the request, to look ids up when they are not consecutive
}

func requestIDs(req []byte) reqIDs {
	var r reqIDs
	if jsonscan.KindOf(req) != jsonscan.Array {
		v, ok, err := jsonscan.Member(req, "id")
		if ok && err == nil {
			if id, err := jsonscan.Int(v); err == nil {
				r.id, r.hasID = id, true
			}
		}
		return r
	}
	r.batch, r.consec, r.body = true, true, req
	it := jsonscan.Elements(req)
	for it.Next() {
		v, ok, _ := jsonscan.Member(it.Value, "id")
		id, err := jsonscan.Int(v)
		if !ok || err != nil {
			r.consec = false
		} else if r.n == 0 {
			r.id = id
		} else if id != r.id+int64(r.n) {
			r.consec = false
		}
		r.n++
	}
	return r
}

// index returns the position of id among the batch's ids, or -1.
func (r *reqIDs) index(id int64) int {
	if r.consec {
		if id >= r.id && id < r.id+int64(r.n) {
			return int(id - r.id)
		}
		return -1
	}
	it := jsonscan.Elements(r.body)
	for k := 0; it.Next(); k++ {
		v, ok, _ := jsonscan.Member(it.Value, "id")
		if got, err := jsonscan.Int(v); ok && err == nil && got == id {
			return k
		}
	}
	return -1
}

// VerifyJSONRPC judges answer as the JSON-RPC 2.0 answer to req (one call or a batch). It returns
// result.OK, result.Status with "jsonrpc CODE MESSAGE" for an answer holding an error member (the
// first one of a batch), or result.Protocol when the answer is not JSON-RPC or its ids do not
// answer the request's. It allocates only for an error member.
func VerifyJSONRPC(req, answer []byte) (result.Class, error) { return verifyJSONRPC(req, answer, nil) }

// verifyJSONRPC is VerifyJSONRPC that also marks the calls of a batch (see verifyBatch).
func verifyJSONRPC(req, answer []byte, calls []result.Call) (result.Class, error) {
	ids := requestIDs(req)
	switch jsonscan.KindOf(answer) {
	case jsonscan.Object:
		if ids.batch { // a batch rejected as a whole (too big, unparsable) gets one error object
			if e, ok, err := jsonscan.Member(answer, "error"); err == nil && ok && jsonscan.KindOf(e) == jsonscan.Object {
				return result.Status, rpcError(e)
			}
			return result.Protocol, errOneForBatch
		}
		return verifyOne(answer, &ids, true)
	case jsonscan.Array:
		if !ids.batch {
			return result.Protocol, errBatchForOne
		}
		return verifyBatch(answer, &ids, calls)
	}
	return result.Protocol, errNotJSON
}

// verifyOne judges one answer object; with single it checks the id against ids.id.
func verifyOne(obj []byte, ids *reqIDs, single bool) (result.Class, error) {
	var id, res, errv []byte
	var hasID, hasRes, hasErr bool
	it := jsonscan.Members(obj)
	for it.Next() {
		switch {
		case jsonscan.KeyIs(it.Key, "id"):
			id, hasID = it.Value, true
		case jsonscan.KeyIs(it.Key, "result"):
			res, hasRes = it.Value, true
		case jsonscan.KeyIs(it.Key, "error"):
			errv, hasErr = it.Value, true
		}
	}
	if it.Err() != nil || (single && !isSpace(it.Rest())) {
		return result.Protocol, errNotJSON
	}
	_ = res
	if hasErr && jsonscan.KindOf(errv) == jsonscan.Null {
		hasErr = false
	}
	nullID := !hasID || jsonscan.KindOf(id) == jsonscan.Null
	if single && ids.hasID {
		switch {
		case nullID && !hasErr:
			return result.Protocol, errNullID
		case !nullID:
			got, err := jsonscan.Int(id)
			if err != nil || got != ids.id {
				return result.Protocol, errIDMismatch
			}
		}
	}
	if hasErr {
		return result.Status, rpcError(errv)
	}
	if !hasRes {
		return result.Protocol, errNoMember
	}
	return result.OK, nil
}

// verifyBatch judges a batch answer; with calls (one per call of the batch, in its order) it also
// marks each call the answer holds a result or an error for.
func verifyBatch(arr []byte, ids *reqIDs, calls []result.Call) (result.Class, error) {
	var small [16]uint64
	seen := small[:]
	if w := (ids.n + 63) / 64; w > len(small) {
		seen = make([]uint64, w)
	}
	var firstErr error
	n := 0
	it := jsonscan.Elements(arr)
	for it.Next() {
		if jsonscan.KindOf(it.Value) != jsonscan.Object {
			unmark(calls)
			return result.Protocol, errNotJSON
		}
		v, ok, err := jsonscan.Member(it.Value, "id")
		if err != nil {
			unmark(calls)
			return result.Protocol, errNotJSON
		}
		if !ok || jsonscan.KindOf(v) == jsonscan.Null {
			// an answer that names no call stands for none of them, unless it is an error
			// about the whole batch (a call the server could not even parse)
			if m, hasErr, _ := jsonscan.Member(it.Value, "error"); !hasErr || jsonscan.KindOf(m) == jsonscan.Null {
				unmark(calls)
				return result.Protocol, errNullID
			}
		} else {
			id, err := jsonscan.Int(v)
			k := -1
			if err == nil {
				k = ids.index(id)
			}
			if k < 0 {
				unmark(calls)
				return result.Protocol, errBatchUnknown
			}
			if seen[k/64]&(1<<(k%64)) != 0 {
				unmark(calls)
				return result.Protocol, errBatchRepeat
			}
			seen[k/64] |= 1 << (k % 64)
			if k < len(calls) {
				markCall(&calls[k], it.Value)
			}
		}
		cl, err := verifyOne(it.Value, ids, false)
		switch {
		case cl == result.Protocol:
			unmark(calls)
			return cl, err
		case cl != result.OK && firstErr == nil:
			firstErr = err
		}
		n++
	}
	if it.Err() != nil || !isSpace(it.Rest()) {
		unmark(calls)
		return result.Protocol, errNotJSON
	}
	if n != ids.n {
		unmark(calls)
		return result.Protocol, errBatchMissing
	}
	if firstErr != nil {
		return result.Status, firstErr
	}
	return result.OK, nil
}

// appendCalls appends the calls of the batch req to calls, unanswered, each with its method: one
// of methods when it is one (no allocation), else a new string.
func appendCalls(calls []result.Call, req []byte, methods []string) []result.Call {
	it := jsonscan.Elements(req)
	for it.Next() {
		calls = append(calls, result.Call{Method: methodOf(it.Value, methods)})
	}
	return calls
}

// unknownMethod names the method of a call that has none a JSON-RPC server could read.
const unknownMethod = "(no method)"

// methodOf returns the method of the call obj, taken from methods when it is one of them.
func methodOf(obj []byte, methods []string) string {
	v, ok, err := jsonscan.Member(obj, "method")
	if !ok || err != nil || jsonscan.KindOf(v) != jsonscan.String {
		return unknownMethod
	}
	if raw := v[1 : len(v)-1]; bytes.IndexByte(raw, '\\') < 0 {
		for _, m := range methods {
			if string(raw) == m {
				return m
			}
		}
		return string(raw)
	}
	m, err := jsonscan.Unquote(v)
	if err != nil {
		return unknownMethod
	}
	for _, x := range methods {
		if x == m {
			return x
		}
	}
	return m
}

// markCall sets the outcome of c from its answer object: an error member with an integer code, or
// a result. An answer with neither, or an error without a code, leaves it unanswered.
func markCall(c *result.Call, obj []byte) {
	if e, ok, err := jsonscan.Member(obj, "error"); err == nil && ok && jsonscan.KindOf(e) != jsonscan.Null {
		if code, ok, err := jsonscan.Member(e, "code"); ok && err == nil {
			if n, err := jsonscan.Int(code); err == nil {
				c.Outcome, c.Code = result.CallError, n
			}
		}
		return
	}
	if _, ok, err := jsonscan.Member(obj, "result"); ok && err == nil {
		c.Outcome = result.CallOK
	}
}

// unmark leaves every call unanswered: the answer could not be matched to the batch's calls.
func unmark(calls []result.Call) {
	for i := range calls {
		calls[i].Outcome, calls[i].Code = result.CallUnanswered, 0
	}
}

// rpcError makes the failure message of an error member: "jsonrpc -32601 Method not found".
func rpcError(v []byte) error {
	if jsonscan.KindOf(v) != jsonscan.Object {
		return errBadError
	}
	code, ok, err := jsonscan.Member(v, "code")
	if !ok || err != nil {
		return errBadError
	}
	n, err := jsonscan.Int(code)
	if err != nil {
		return errBadError
	}
	var b strings.Builder
	b.WriteString("jsonrpc ")
	b.WriteString(strconv.FormatInt(n, 10))
	if m, ok, _ := jsonscan.Member(v, "message"); ok {
		if s, err := jsonscan.Unquote(m); err == nil && s != "" {
			s = result.Normalize(strings.Join(strings.Fields(s), " "))
			if len(s) > maxMessage {
				cut := maxMessage
				for cut > 0 && !utf8.RuneStart(s[cut]) {
					cut--
				}
				s = s[:cut] + "…"
			}
			b.WriteString(" ")
			b.WriteString(s)
		}
	}
	return result.Exact(b.String())
}

func isSpace(b []byte) bool { return jsonscan.SkipSpace(b, 0) == len(b) }
