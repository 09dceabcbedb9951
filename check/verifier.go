package check

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rpcbench/rpcbench/internal/jsonscan"

	"github.com/rpcbench/rpcbench/result"
)

// Statuses is a set of expected status codes (100 to 999). The zero value is the default set:
// 2xx and 3xx, as engine.StatusVerifier counts them. Safe for concurrent reads.
type Statuses struct {
	set  [16]uint64 // bit c: code c is expected
	some bool
}

// ParseStatuses reads a list such as "200,201", "2xx,304" or "200-299".
func ParseStatuses(s string) (Statuses, error) {
	var st Statuses
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		lo, hi, err := statusRange(part)
		if err != nil {
			return Statuses{}, fmt.Errorf("status %q: want codes from 100 to 999 like 200, 2xx or 200-299, separated by commas", part)
		}
		for c := lo; c <= hi; c++ {
			st.set[c/64] |= 1 << (c % 64)
		}
		st.some = true
	}
	return st, nil
}

func statusRange(s string) (lo, hi int, err error) {
	if len(s) == 3 && (s[1] == 'x' || s[1] == 'X') && (s[2] == 'x' || s[2] == 'X') && s[0] >= '1' && s[0] <= '9' {
		lo = int(s[0]-'0') * 100
		return lo, lo + 99, nil
	}
	a, b, isRange := strings.Cut(s, "-")
	if lo, err = strconv.Atoi(a); err != nil || lo < 100 || lo > 999 {
		return 0, 0, fmt.Errorf("bad")
	}
	hi = lo
	if isRange {
		if hi, err = strconv.Atoi(b); err != nil || hi < lo || hi > 999 {
			return 0, 0, fmt.Errorf("bad")
		}
	}
	return lo, hi, nil
}

// Has reports whether code is expected: with no code given, any 2xx or 3xx.
func (s *Statuses) Has(code int) bool {
	if !s.some {
		return code >= 200 && code < 400
	}
	return code >= 0 && code < 1024 && s.set[code/64]&(1<<(code%64)) != 0
}

// Verifier judges each answer in order: the status code, then (with JSONRPC) the JSON-RPC answer,
// then the Checks; the first failure decides the class. The zero value accepts 2xx and 3xx answers
// as engine.StatusVerifier does. A Verifier is read-only while a run uses it, so it is safe for
// concurrent use; it implements engine.Verifier.
type Verifier struct {
	// Status is the set of expected status codes of a protocol whose answers carry HTTP statuses;
	// empty, or for another protocol (a WebSocket message carries its connection's 101), an
	// answer is judged as its protocol counts success (transport.Protocol.Success).
	Status Statuses
	// Miss is the set of status codes that are misses (a key-value store's 404 for an absent key)
	// of a protocol whose answers carry HTTP statuses: such an answer succeeds, and nothing else
	// judges it (no JSON-RPC, no check, no metric); the recorder counts it by its status. Empty:
	// none.
	Miss Statuses
	// JSONRPC judges bodies as JSON-RPC 2.0 answers to the request's call or batch: an error member
	// fails with class Status and the message "jsonrpc CODE MESSAGE", an id that does not answer
	// the request (or a batch with a missing or extra id) with class Protocol.
	JSONRPC bool
	// Checks run on the body of every answer that passed the above; a failure is of class Check
	// with the check's name as its message.
	Checks []Check
	// Methods are the JSON-RPC methods the requests call, so that VerifyDetail names the calls of a
	// batch without making a string per call; a method not among them is named all the same.
	Methods []string
	// Metrics are read from the body of every answer that succeeded (passed all of the above),
	// each into a distribution of its own (result.Counts.Metrics); an answer with no number in
	// range at a metric's path counts as missing for it.
	Metrics []Metric
}

// statusOK judges the status of an answer: by the expected statuses for a protocol whose answers
// carry HTTP statuses, else (and with none expected) as the protocol counts success.
func (v *Verifier) statusOK(r *result.Request, status int) bool {
	if v.Status.some && (r.Protocol == "" || r.Protocol.HTTPStatus()) {
		return v.Status.Has(status)
	}
	return r.Protocol.Success(status)
}

// missed reports whether an answer of r with status is a miss (see Miss).
func (v *Verifier) missed(r *result.Request, status int) bool {
	return v.Miss.some && (r.Protocol == "" || r.Protocol.HTTPStatus()) && v.Miss.Has(status)
}

// Verify judges one answer.
func (v *Verifier) Verify(r *result.Request, out *result.Outcome) (result.Class, error) {
	return v.verify(r, out, nil, nil)
}

// VerifyDetail is Verify that also says what happened to each call of a JSON-RPC batch and to each
// check, for engine.DetailVerifier. With JSONRPC and a request that is a batch, it appends the
// batch's calls to d.Calls in order, each with its method and what the answer holds for it (a
// result, an error and its code, or nothing it could be matched by). For an answer that reaches
// the Checks (its status and JSON-RPC answer passed), it runs every check, not only up to the
// first that fails, and appends each one's outcome to d.Checks, with the value a failing one
// received. With judge false the request has failed already (no answer, a transport error): it
// judges nothing and appends the calls unanswered. For an answer that succeeded it appends the
// value of each of the Metrics to d.Metrics. It allocates nothing beyond Verify for methods among
// Methods, for checks that pass and for metrics once d has room for them.
func (v *Verifier) VerifyDetail(r *result.Request, out *result.Outcome, judge bool, d *result.Detail) (result.Class, error) {
	start := len(d.Calls)
	if v.JSONRPC && jsonscan.KindOf(r.Body) == jsonscan.Array {
		d.Calls = appendCalls(d.Calls, r.Body, v.Methods)
	}
	if !judge {
		return result.OK, nil
	}
	cl, err := v.verify(r, out, d.Calls[start:], d)
	if cl == result.OK && !v.missed(r, out.Status) {
		for i := range v.Metrics {
			m := &v.Metrics[i]
			val, ok := m.read(out.Body)
			d.Metrics = append(d.Metrics, result.MetricValue{Name: m.name, Value: val, Missing: !ok})
		}
	}
	return cl, err
}

// verify judges out; with d it runs every check and appends their outcomes to d.Checks, without
// it stops at the first check that fails.
func (v *Verifier) verify(r *result.Request, out *result.Outcome, calls []result.Call, d *result.Detail) (result.Class, error) {
	if v.missed(r, out.Status) {
		return result.OK, nil
	}
	if !v.statusOK(r, out.Status) {
		return result.Status, nil
	}
	if v.JSONRPC {
		if cl, err := verifyJSONRPC(r.Body, out.Body, calls); cl != result.OK {
			return cl, err
		}
	}
	var fail error
	for i := range v.Checks {
		c := &v.Checks[i]
		got, ok := c.judge(out.Body)
		if d == nil {
			if !ok {
				return result.Check, c.fail
			}
			continue
		}
		if ok {
			got = nil
		} else if fail == nil {
			fail = c.fail // the first check that fails names the request's failure
		}
		d.Checks = append(d.Checks, result.CheckResult{Name: c.name, Failed: !ok, Got: got})
	}
	if fail != nil {
		return result.Check, fail
	}
	return result.OK, nil
}

// Empty reports whether v judges nothing beyond the default status codes: a run needs no
// Verifier (and keeps no bodies) then.
func (v *Verifier) Empty() bool {
	return !v.Status.some && !v.Miss.some && !v.JSONRPC && len(v.Checks) == 0 && len(v.Metrics) == 0
}
