package check

import (
	"math/big"
	"regexp"
	"strconv"
	"testing"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/transport"
)

func TestParsePath(t *testing.T) {
	t.Parallel()
	doc := []byte(`{"result":{"transactions":[{"hash":"0xa"},{"hash":"0xb"}],"n":5},"list":[[1,2],[3]]}`)
	for _, tc := range []struct {
		path, want string
		ok         bool
	}{
		{"result.transactions[1].hash", `"0xb"`, true},
		{"$.result.n", "5", true},
		{"list[1][0]", "3", true},
		{"$", string(doc), true},
		{"result.missing", "", false},
		{"result.transactions[2]", "", false},
		{"result.n.x", "", false},  // a step into a number
		{"list.x", "", false},      // a member of an array
		{`result["n"]`, "5", true}, // a quoted name, as diff's paths take it
		{"result.*", "", false},    // no wildcard: a member named *
	} {
		p, err := ParsePath(tc.path)
		if err != nil {
			t.Errorf("ParsePath(%q): %v", tc.path, err)
			continue
		}
		got, ok, err := p.Lookup(doc)
		if err != nil || ok != tc.ok || string(got) != tc.want {
			t.Errorf("Lookup(%q) = %s, %v, %v; want %s, %v, nil", tc.path, got, ok, err, tc.want, tc.ok)
		}
	}
	for _, bad := range []string{"", "a..b", ".a", "a[", "a[-1]", "a[x]", "a.", "$x", "a b", "a[+1]"} {
		if _, err := ParsePath(bad); err == nil {
			t.Errorf("ParsePath(%q): got no error; want one", bad)
		}
	}
}

func TestParseCheck(t *testing.T) {
	t.Parallel()
	body := []byte(`{"jsonrpc":"2.0","id":1,"result":{"status":"ok","n":10,"flag":true,"arr":[1, 2],"s":"a\"b"}}`)
	for _, tc := range []struct {
		spec, name string
		pass       bool
	}{
		{`body contains "ok"`, `body contains "\"ok\""`, true},
		{`body contains nothing-here`, `body contains "nothing-here"`, false},
		{`has status: json result.status exists`, "has status", true},
		{`json result.missing exists`, "json result.missing exists", false},
		{`json result.status == ok`, "json result.status == ok", true},
		{`json result.status == "ok"`, `json result.status == "ok"`, true},
		{`json result.status == "no"`, `json result.status == "no"`, false},
		{`json result.n == 10.0`, "json result.n == 10.0", true},
		{`json result.n == 11`, "json result.n == 11", false},
		{`json result.flag == true`, "json result.flag == true", true},
		{`json result.arr == [1,2]`, "json result.arr == [1,2]", true},
		{`json result.s == a"b`, `json result.s == a"b`, true},
		{`status 200: json result.n == 10`, "status 200", true},
	} {
		c, err := Parse(tc.spec)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.spec, err)
			continue
		}
		if c.Name() != tc.name {
			t.Errorf("Parse(%q).Name() = %q; want %q", tc.spec, c.Name(), tc.name)
		}
		if got := passes(&c, body); got != tc.pass {
			t.Errorf("%q on the body: passed %v; want %v", tc.spec, got, tc.pass)
		}
	}
	for _, bad := range []string{"", "body has x", "json a..b exists", "json a", "name: json", "body contains "} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q): got no error; want one", bad)
		}
	}
}

// TestJSONEqualsValues compares the value at a path with values below, equal to and above it, written
// in several ways: numbers compare by exact value, strings by text, and a string never equals a
// number however alike they look.
func TestJSONEqualsValues(t *testing.T) {
	t.Parallel()
	body := []byte(`{"result":{"n":10,"e":1e1,"z":0,"nz":-0,"f":1.5,"neg":-7,` +
		`"big":9007199254740993,"huge":123456789012345678901234567890,"tiny":1e-400,` +
		`"s10":"10","s1e1":"1e1","ok":"ok"}}`)
	for _, tc := range []struct {
		path, value string
		pass        bool
	}{
		{"result.n", "9", false}, // below the value
		{"result.n", "10", true},
		{"result.n", "11", false}, // above
		{"result.n", "-10", false},
		{"result.n", "10.0", true},
		{"result.n", "1e1", true},
		{"result.n", "1E+1", true},
		{"result.n", "100e-1", true},
		{"result.n", "0.1e2", true},
		{"result.n", "10.000000000000001", false},
		{"result.e", "10", true}, // 1e1 in the answer
		{"result.e", "9", false},
		{"result.e", "11", false},
		{"result.z", "0", true},
		{"result.z", "-0", true},
		{"result.z", "0.0e5", true},
		{"result.nz", "0", true},
		{"result.z", "1e-400", false}, // not zero, however small
		{"result.tiny", "1e-400", true},
		{"result.tiny", "0", false},
		{"result.f", "1.5", true},
		{"result.f", "15e-1", true},
		{"result.f", "1.4999999999999999999", false}, // the same float64, not the same number
		{"result.f", "1", false},
		{"result.f", "2", false},
		{"result.neg", "-7", true},
		{"result.neg", "-8", false},
		{"result.neg", "-6", false},
		{"result.neg", "7", false},
		// integers past 2^53 that one float64 cannot tell apart
		{"result.big", "9007199254740993", true},
		{"result.big", "9007199254740992", false},
		{"result.big", "9007199254740994", false},
		{"result.huge", "123456789012345678901234567890", true},
		{"result.huge", "1.2345678901234567890123456789e29", true},
		{"result.huge", "123456789012345678901234567891", false},
		{"result.huge", "123456789012345678901234567889", false},
		// strings that look like numbers
		{"result.n", `"10"`, false},
		{"result.s10", "10", false},
		{"result.s10", `"10"`, true},
		{"result.s10", "10.0", false},
		{"result.s1e1", "10", false},
		{"result.s1e1", "1e1", false}, // 1e1 is JSON: the number ten, not the string
		{"result.s1e1", `"1e1"`, true},
		{"result.n", "10abc", false}, // not JSON: the text of a string
		{"result.ok", "ok", true},
		{"result.ok", "oj", false},
		{"result.ok", "ol", false},
	} {
		c, err := JSONEquals("", tc.path, tc.value)
		if err != nil {
			t.Errorf("JSONEquals(%q, %q): %v", tc.path, tc.value, err)
			continue
		}
		if got := passes(&c, body); got != tc.pass {
			t.Errorf("json %s == %s: passed %v; want %v", tc.path, tc.value, got, tc.pass)
		}
	}
}

func TestParseStatuses(t *testing.T) {
	t.Parallel()
	s, err := ParseStatuses("200, 201,3xx,404-405")
	if err != nil {
		t.Fatal(err)
	}
	for code, want := range map[int]bool{200: true, 201: true, 202: false, 301: true, 399: true, 404: true, 405: true, 406: false, 500: false} {
		if got := s.Has(code); got != want {
			t.Errorf("Has(%d) = %v; want %v", code, got, want)
		}
	}
	var def Statuses
	if !def.Has(204) || def.Has(404) || def.Has(101) {
		t.Errorf("the default set: want 2xx and 3xx only")
	}
	for _, bad := range []string{"", "abc", "99", "1000", "300-200", "2x", "200,"} {
		if _, err := ParseStatuses(bad); err == nil {
			t.Errorf("ParseStatuses(%q): got no error; want one", bad)
		}
	}
}

func TestVerifier(t *testing.T) {
	t.Parallel()
	ok, _ := Parse("has result: json result exists")
	word, _ := BodyContains("", "0x")
	statuses, _ := ParseStatuses("200")
	v := &Verifier{Status: statuses, JSONRPC: true, Checks: []Check{ok, word}}
	req := &transport.Request{Scheme: "http", Body: []byte(`{"jsonrpc":"2.0","id":3,"method":"m"}`)}
	for _, tc := range []struct {
		name   string
		scheme string
		status int
		body   string
		class  result.Class
		msg    string
	}{
		{"a good answer", "http", 200, `{"id":3,"result":"0x1"}`, result.OK, ""},
		{"an unexpected status", "http", 201, `{"id":3,"result":"0x1"}`, result.Status, ""},
		{"a JSON-RPC error", "http", 200, `{"id":3,"error":{"code":-32601,"message":"Method not found"}}`, result.Status, "jsonrpc -32601 Method not found"},
		{"a check by name", "http", 200, `{"id":3,"result":"1"}`, result.Check, `body contains "0x"`},
		{"ws answers carry 101", "ws", 101, `{"id":3,"result":"0x1"}`, result.OK, ""},
	} {
		req.Scheme, req.Protocol = tc.scheme, transport.HTTP1
		if tc.scheme == "ws" {
			req.Protocol = transport.WS
		}
		cl, err := v.Verify(req, &transport.Outcome{Status: tc.status, Answered: true, Body: []byte(tc.body)})
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if cl != tc.class || msg != tc.msg {
			t.Errorf("%s: got %v %q; want %v %q", tc.name, cl, msg, tc.class, tc.msg)
		}
	}
	if !(&Verifier{}).Empty() || v.Empty() {
		t.Errorf("Empty: want true for the zero Verifier only")
	}
}

func TestCheckFailureAllocs(t *testing.T) {
	c, _ := JSONEquals("", "result.status", "ok")
	v := &Verifier{Checks: []Check{c}}
	req := &transport.Request{Scheme: "http"}
	out := &transport.Outcome{Status: 200, Body: []byte(`{"result":{"status":"bad"}}`)}
	if n := testing.AllocsPerRun(100, func() { _, _ = v.Verify(req, out) }); n != 0 {
		t.Errorf("a failing check allocates %v times; want 0", n)
	}
}

func TestNumberCheckAllocs(t *testing.T) {
	c, _ := JSONEquals("", "result.n", "9007199254740993")
	v := &Verifier{Checks: []Check{c}}
	req := &transport.Request{Scheme: "http"}
	out := &transport.Outcome{Status: 200, Body: []byte(`{"result":{"n":9.007199254740992e15}}`)}
	if n := testing.AllocsPerRun(100, func() { _, _ = v.Verify(req, out) }); n != 0 {
		t.Errorf("a number check allocates %v times; want 0", n)
	}
}

// FuzzSameNumber compares sameNumber with math/big's exact rationals.
func FuzzSameNumber(f *testing.F) {
	for _, s := range [][2]string{{"10", "1e1"}, {"-0", "0"}, {"9007199254740993", "9007199254740992"}, {"1.50", "15e-1"},
		{"0.001", "1E-3"}, {"1e-400", "0"}, {"01", "1"}, {"1.", "1"}, {"-", "0"}, {"1e+0003", "1000"}, {"2e1000000000000000", "2e1000000000000000"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		got := sameNumber([]byte(a), []byte(b))
		ra, okA := exactNumber(a)
		rb, okB := exactNumber(b)
		if !okA || !okB {
			return // not both JSON numbers of a size math/big weighs quickly
		}
		if want := ra.Cmp(rb) == 0; got != want {
			t.Errorf("sameNumber(%q, %q) = %v; want %v", a, b, got, want)
		}
	})
}

// exactNumber parses a JSON number of a modest exponent with math/big.
var jsonNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?([0-9]+))?$`)

func exactNumber(s string) (*big.Rat, bool) {
	m := jsonNumber.FindStringSubmatch(s)
	if m == nil || len(s) > 200 {
		return nil, false
	}
	if e, err := strconv.Atoi(m[4]); m[4] != "" && (err != nil || e > 1000) {
		return nil, false
	}
	return new(big.Rat).SetString(s)
}

func FuzzParsePath(f *testing.F) {
	for _, s := range []string{"a.b[0].c", "$.x", "[1].id", "a[99999999999999999999]", "$", "a..b"} {
		f.Add(s, []byte(`{"a":{"b":[{"c":1}]},"x":[]}`))
	}
	f.Fuzz(func(t *testing.T, path string, doc []byte) {
		p, err := ParsePath(path)
		if err != nil {
			return
		}
		if p.String() != path {
			t.Fatalf("String() = %q; want %q", p.String(), path)
		}
		_, _, _ = p.Lookup(doc)
	})
}

func FuzzParseCheck(f *testing.F) {
	for _, s := range []string{`body contains ok`, `n: json a.b == 1`, `json a exists`, `x:y: json a == :`} {
		f.Add(s, []byte(`{"a":{"b":1}}`))
	}
	f.Fuzz(func(t *testing.T, spec string, body []byte) {
		c, err := Parse(spec)
		if err != nil {
			return
		}
		if c.Name() == "" {
			t.Fatalf("Parse(%q) made a check without a name", spec)
		}
		_ = passes(&c, body)
	})
}

func FuzzParseStatuses(f *testing.F) {
	for _, s := range []string{"200,201", "2xx", "100-999", "0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		st, err := ParseStatuses(s)
		if err != nil {
			return
		}
		for c := 0; c < 1100; c++ {
			if st.Has(c) && (c < 100 || c > 999) {
				t.Fatalf("ParseStatuses(%q) holds %d", s, c)
			}
		}
	})
}

func passes(c *Check, body []byte) bool {
	_, ok := c.judge(body)
	return ok
}

// An answer of a miss status (a store's 404 for an absent key) succeeds and is judged no further:
// no check runs on it and no metric is read from it, though both run on the other answers; a
// status neither expected nor a miss still fails, and over WebSocket (no HTTP statuses) a miss
// status means nothing.
func TestVerifierMiss(t *testing.T) {
	t.Parallel()
	has, _ := JSONExists("has n", "n")
	m, _ := NewMetric("n", "n")
	st, _ := ParseStatuses("2xx")
	miss, _ := ParseStatuses("404")
	v := &Verifier{Status: st, Miss: miss, Checks: []Check{has}, Metrics: []Metric{m}}
	req := &transport.Request{Scheme: "http", Protocol: transport.HTTP1}
	for _, tc := range []struct {
		name    string
		status  int
		body    string
		class   result.Class
		checks  int // check outcomes recorded
		metrics int // metric values read
	}{
		{"a hit", 200, `{"n":5}`, result.OK, 1, 1},
		{"a miss", 404, "not found", result.OK, 0, 0},
		{"a hit failing its check", 200, "{}", result.Check, 1, 0},
		{"neither expected nor a miss", 500, "boom", result.Status, 0, 0},
	} {
		var d result.Detail
		cl, _ := v.VerifyDetail(req, &transport.Outcome{Status: tc.status, Answered: true, Body: []byte(tc.body)}, true, &d)
		if cl != tc.class || len(d.Checks) != tc.checks || len(d.Metrics) != tc.metrics {
			t.Errorf("%s: class %v, %d checks, %d metrics; want %v, %d, %d", tc.name, cl, len(d.Checks), len(d.Metrics), tc.class, tc.checks, tc.metrics)
		}
		if cl2, _ := v.Verify(req, &transport.Outcome{Status: tc.status, Answered: true, Body: []byte(tc.body)}); cl2 != tc.class {
			t.Errorf("%s: Verify says %v; want %v as VerifyDetail", tc.name, cl2, tc.class)
		}
	}
	ws := &transport.Request{Scheme: "ws", Protocol: transport.WS}
	if cl, _ := v.Verify(ws, &transport.Outcome{Status: 404, Answered: true, Body: []byte("not found")}); cl == result.OK {
		t.Errorf("over WebSocket, a 404: %v; want a failure (no HTTP status there to be a miss)", cl)
	}
	if (&Verifier{Miss: miss}).Empty() {
		t.Error("Empty: a verifier with miss statuses must judge the answers")
	}
}
