package ethrpc

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

// start runs a server for one test and closes it when the test ends.
func start(t testing.TB, cfg Config) *Server {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := New(ctx, cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

var client = &http.Client{Timeout: 10 * time.Second}

// post sends body to the server and returns the HTTP status and the answer.
func post(t testing.TB, s *Server, body string) (int, string) {
	t.Helper()
	resp, err := client.Post(s.URL(), "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatalf("POST: %v", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read answer: %v", err)
	}
	return resp.StatusCode, string(b)
}

// answer is one JSON-RPC answer as a test reads it.
type answer struct {
	Version string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

func decode(t testing.TB, s string) answer {
	t.Helper()
	var a answer
	if err := json.Unmarshal([]byte(s), &a); err != nil {
		t.Fatalf("answer %q is not a JSON-RPC answer: %v", s, err)
	}
	if a.Version != "2.0" {
		t.Errorf("answer %q: jsonrpc got %q; want \"2.0\"", s, a.Version)
	}
	return a
}

// callJSON calls method with params (JSON text) and returns the raw result, failing on an error.
func callJSON(t testing.TB, s *Server, method, params string) json.RawMessage {
	t.Helper()
	code, body := post(t, s, fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":%s}`, method, params))
	if code != 200 {
		t.Fatalf("%s: HTTP %d: %s", method, code, body)
	}
	a := decode(t, body)
	if a.Error != nil {
		t.Fatalf("%s %s: got error %d %q; want a result", method, params, a.Error.Code, a.Error.Message)
	}
	return a.Result
}

func TestHTTPStatuses(t *testing.T) {
	t.Parallel()
	s := start(t, Config{Blocks: 10, MaxRequestBytes: 1000})
	tests := []struct {
		name, method, path, body string
		want                     int
	}{
		{"post a call", "POST", "/", `{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"}`, 200},
		{"get", "GET", "/", "", 405},
		{"put", "PUT", "/", "{}", 405},
		{"other path", "POST", "/rpc", `{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"}`, 404},
		{"body over the limit", "POST", "/", `{"jsonrpc":"2.0","id":1,"method":"` + strings.Repeat("x", 1000) + `"}`, 413},
		{"parse error is still 200", "POST", "/", `{`, 200},
	}
	for _, tt := range tests {
		req, _ := http.NewRequest(tt.method, "http://"+s.Addr()+tt.path, strings.NewReader(tt.body))
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tt.want {
			t.Errorf("%s: got %d; want %d", tt.name, resp.StatusCode, tt.want)
		}
		if tt.want == 200 && resp.Header.Get("Content-Type") != "application/json" {
			t.Errorf("%s: Content-Type got %q; want application/json", tt.name, resp.Header.Get("Content-Type"))
		}
	}
}

func TestErrors(t *testing.T) {
	t.Parallel()
	s := start(t, Config{Blocks: 50, MaxBatch: 3, MaxStorageRange: 100})
	b1 := s.BlockHash(1)
	token := firstToken(t, s)
	account := `"0x` + strings.Repeat("ab", 20) + `"`
	req := func(method, params string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":%q,"params":%s}`, method, params)
	}
	tests := []struct {
		name   string
		body   string
		code   int
		wantID string
	}{
		// -32700: not JSON
		{"truncated", `{"jsonrpc":"2.0","id":1,`, CodeParseError, "null"},
		{"empty body", ``, CodeParseError, "null"},
		{"garbage", `hello`, CodeParseError, "null"},
		{"broken batch", `[{"jsonrpc":"2.0","id":1,"method":"eth_chainId"},`, CodeParseError, "null"},
		// -32600: JSON, but not a request
		{"empty batch", `[]`, CodeInvalidRequest, "null"},
		{"number", `1`, CodeInvalidRequest, "null"},
		{"string", `"eth_blockNumber"`, CodeInvalidRequest, "null"},
		{"no method", `{"jsonrpc":"2.0","id":1}`, CodeInvalidRequest, "1"},
		{"method not a string", `{"jsonrpc":"2.0","id":1,"method":5}`, CodeInvalidRequest, "1"},
		{"no jsonrpc", `{"id":"a","method":"eth_blockNumber"}`, CodeInvalidRequest, `"a"`},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":1,"method":"eth_blockNumber"}`, CodeInvalidRequest, "1"},
		{"jsonrpc as number", `{"jsonrpc":2.0,"id":1,"method":"eth_blockNumber"}`, CodeInvalidRequest, "1"},
		{"id an object", `{"jsonrpc":"2.0","id":{},"method":"eth_blockNumber"}`, CodeInvalidRequest, "null"},
		{"id an array", `{"jsonrpc":"2.0","id":[1],"method":"eth_blockNumber"}`, CodeInvalidRequest, "null"},
		{"params a string", `{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":"x"}`, CodeInvalidRequest, "1"},
		{"batch over the limit", "[" + strings.Repeat(req("eth_chainId", "[]")+",", 3) + req("eth_chainId", "[]") + "]", CodeInvalidRequest, "null"},
		// -32601
		{"unknown method", req("eth_nope", "[]"), CodeMethodNotFound, "7"},
		{"unknown method, named params", req("eth_nope", `{"a":1}`), CodeMethodNotFound, "7"},
		// -32602
		{"named params", req("eth_getBlockByNumber", `{"number":"0x1","full":false}`), CodeInvalidParams, "7"},
		{"extra param", req("eth_blockNumber", `[1]`), CodeInvalidParams, "7"},
		{"block leading zero", req("eth_getBlockByNumber", `["0x01",false]`), CodeInvalidParams, "7"},
		{"block without 0x", req("eth_getBlockByNumber", `["1",false]`), CodeInvalidParams, "7"},
		{"block as a number", req("eth_getBlockByNumber", `[1,false]`), CodeInvalidParams, "7"},
		{"block empty hex", req("eth_getBlockByNumber", `["0x",false]`), CodeInvalidParams, "7"},
		{"unknown tag", req("eth_getBlockByNumber", `["newest",false]`), CodeInvalidParams, "7"},
		{"missing full flag", req("eth_getBlockByNumber", `["latest"]`), CodeInvalidParams, "7"},
		{"full flag a string", req("eth_getBlockByNumber", `["latest","true"]`), CodeInvalidParams, "7"},
		{"short block hash", req("eth_getBlockByHash", `["0x1234",false]`), CodeInvalidParams, "7"},
		{"tx hash missing", req("eth_getTransactionByHash", `[]`), CodeInvalidParams, "7"},
		{"tx hash not hex", req("eth_getTransactionByHash", `["0x`+strings.Repeat("zz", 32)+`"]`), CodeInvalidParams, "7"},
		{"balance bad address", req("eth_getBalance", `["0x12","latest"]`), CodeInvalidParams, "7"},
		{"balance no block", req("eth_getBalance", `[`+account+`]`), CodeInvalidParams, "7"},
		{"balance bad 1898 object", req("eth_getBalance", `[`+account+`,{"blockNumber":"0x1","blockHash":"`+b1+`"}]`), CodeInvalidParams, "7"},
		{"call not an object", req("eth_call", `["0x12","latest"]`), CodeInvalidParams, "7"},
		{"call short to", req("eth_call", `[{"to":"0x12"},"latest"]`), CodeInvalidParams, "7"},
		{"call odd data", req("eth_call", `[{"to":`+token+`,"data":"0x123"},"latest"]`), CodeInvalidParams, "7"},
		{"call data and input differ", req("eth_call", `[{"to":`+token+`,"data":"0x12","input":"0x34"},"latest"]`), CodeInvalidParams, "7"},
		{"call gas a number", req("eth_call", `[{"to":`+token+`,"gas":21000},"latest"]`), CodeInvalidParams, "7"},
		{"call value leading zero", req("eth_call", `[{"to":`+token+`,"value":"0x0001"},"latest"]`), CodeInvalidParams, "7"},
		{"call state overrides", req("eth_call", `[{"to":`+token+`},"latest",{}]`), CodeInvalidParams, "7"},
		{"storage maxResult over the limit", req("debug_storageRangeAt", `["`+b1+`",0,`+token+`,"0x",101]`), CodeInvalidParams, "7"},
		{"storage maxResult negative", req("debug_storageRangeAt", `["`+b1+`",0,`+token+`,"0x",-1]`), CodeInvalidParams, "7"},
		{"storage keyStart too long", req("debug_storageRangeAt", `["`+b1+`",0,`+token+`,"0x`+strings.Repeat("00", 33)+`",1]`), CodeInvalidParams, "7"},
		{"storage missing args", req("debug_storageRangeAt", `["`+b1+`",0]`), CodeInvalidParams, "7"},
		// -32000: well-formed, but no such block
		{"balance past the head", req("eth_getBalance", `[`+account+`,"0x1000"]`), CodeServerError, "7"},
		{"balance unknown block hash", req("eth_getBalance", `[`+account+`,{"blockHash":"0x`+strings.Repeat("11", 32)+`"}]`), CodeServerError, "7"},
		{"call past the head", req("eth_call", `[{"to":`+token+`},"0x1000"]`), CodeServerError, "7"},
		{"estimate over the gas given", req("eth_estimateGas", `[{"to":`+token+`,"gas":"0x5208","data":"0x70a08231`+strings.Repeat("00", 32)+`"}]`), CodeServerError, "7"},
		{"storage unknown block", req("debug_storageRangeAt", `["0x`+strings.Repeat("22", 32)+`",0,`+token+`,"0x",1]`), CodeServerError, "7"},
		{"storage tx index out of range", req("debug_storageRangeAt", `["`+b1+`",1000,`+token+`,"0x",1]`), CodeServerError, "7"},
		// 3: reverted
		{"balanceOf without its argument", req("eth_call", `[{"to":`+token+`,"data":"0x70a08231"}]`), CodeReverted, "7"},
		{"estimate of a reverting call", req("eth_estimateGas", `[{"to":`+token+`,"input":"0xa9059cbb00"}]`), CodeReverted, "7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, body := post(t, s, tt.body)
			if code != 200 {
				t.Fatalf("HTTP status got %d; want 200", code)
			}
			a := decode(t, body)
			if a.Error == nil {
				t.Fatalf("got %s; want error %d", body, tt.code)
			}
			if a.Error.Code != tt.code || string(a.ID) != tt.wantID {
				t.Errorf("got code %d id %s (%q); want code %d id %s", a.Error.Code, a.ID, a.Error.Message, tt.code, tt.wantID)
			}
			if a.Result != nil {
				t.Errorf("error answer has a result: %s", body)
			}
			if a.Error.Message == "" {
				t.Errorf("error %d has no message", a.Error.Code)
			}
		})
	}
}

func TestRevertData(t *testing.T) {
	t.Parallel()
	s := start(t, Config{Blocks: 5})
	token := firstToken(t, s)
	_, body := post(t, s, `{"jsonrpc":"2.0","id":1,"method":"eth_call","params":[{"to":`+token+`,"data":"0x70a08231"}]}`)
	a := decode(t, body)
	if a.Error == nil || !bytes.HasPrefix(a.Error.Data, []byte(`"0x08c379a0`)) {
		t.Errorf("revert: got %s; want data with the Error(string) selector 0x08c379a0", body)
	}
}

func TestNotificationsGetNoAnswer(t *testing.T) {
	t.Parallel()
	s := start(t, Config{Blocks: 5})
	tests := []struct {
		name, body string
		want       string // the ids answered, in order; "" for an empty body
	}{
		{"one notification", `{"jsonrpc":"2.0","method":"eth_blockNumber"}`, ""},
		{"notification of an unknown method", `{"jsonrpc":"2.0","method":"eth_nope"}`, ""},
		{"notification with bad params", `{"jsonrpc":"2.0","method":"eth_getBlockByNumber","params":[1]}`, ""},
		{"batch of notifications", `[{"jsonrpc":"2.0","method":"eth_chainId"},{"jsonrpc":"2.0","method":"net_version"}]`, ""},
		{"id null is not a notification", `{"jsonrpc":"2.0","id":null,"method":"eth_chainId"}`, "[null]"},
		{"mixed batch", `[{"jsonrpc":"2.0","method":"eth_chainId"},{"jsonrpc":"2.0","id":"x","method":"net_version"},{"jsonrpc":"2.0","method":"eth_nope"},{"jsonrpc":"2.0","id":3,"method":"eth_nope"}]`, `["x" 3]`},
		{"an invalid request is answered", `{"method":"eth_chainId"}`, "[null]"},
	}
	for _, tt := range tests {
		code, body := post(t, s, tt.body)
		if code != 200 {
			t.Errorf("%s: HTTP %d; want 200", tt.name, code)
		}
		if tt.want == "" {
			if body != "" {
				t.Errorf("%s: got %q; want no answer", tt.name, body)
			}
			continue
		}
		var as []answer
		if strings.HasPrefix(body, "[") {
			json.Unmarshal([]byte(body), &as) //nolint:errcheck // checked by the ids below
		} else {
			as = []answer{decode(t, body)}
		}
		var ids []string
		for _, a := range as {
			ids = append(ids, string(a.ID))
		}
		if got := "[" + strings.Join(ids, " ") + "]"; got != tt.want {
			t.Errorf("%s: got ids %s (%s); want %s", tt.name, got, body, tt.want)
		}
	}
}

func TestBatch(t *testing.T) {
	t.Parallel()
	s := start(t, Config{Blocks: 20})
	body := `[
		{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"},
		{"jsonrpc":"2.0","id":"two","method":"eth_getBlockByNumber","params":["0x3",false]},
		{"jsonrpc":"2.0","id":3,"method":"eth_nope"},
		5,
		{"jsonrpc":"2.0","id":4,"method":"eth_getBlockByNumber","params":["0x03",false]},
		{"jsonrpc":"2.0","id":18446744073709551616,"method":"eth_chainId"}
	]`
	code, got := post(t, s, body)
	if code != 200 {
		t.Fatalf("HTTP %d", code)
	}
	var as []answer
	if err := json.Unmarshal([]byte(got), &as); err != nil {
		t.Fatalf("batch answer %q is not an array: %v", got, err)
	}
	want := []struct {
		id   string
		code int // 0: a result
	}{{"1", 0}, {`"two"`, 0}, {"3", CodeMethodNotFound}, {"null", CodeInvalidRequest}, {"4", CodeInvalidParams}, {"18446744073709551616", 0}}
	if len(as) != len(want) {
		t.Fatalf("got %d answers; want %d: %s", len(as), len(want), got)
	}
	for i, w := range want {
		code := 0
		if as[i].Error != nil {
			code = as[i].Error.Code
		}
		if string(as[i].ID) != w.id || code != w.code {
			t.Errorf("answer %d: got id %s code %d; want id %s code %d", i, as[i].ID, code, w.id, w.code)
		}
	}
	if string(as[0].Result) != `"0x13"` {
		t.Errorf("eth_blockNumber in a batch: got %s; want \"0x13\"", as[0].Result)
	}
}

var quantityRE = regexp.MustCompile(`^0x(0|[1-9a-f][0-9a-f]*)$`)

// firstToken finds a token contract address (JSON string) from the chain's transactions.
func firstToken(t testing.TB, s *Server) string {
	t.Helper()
	return `"` + string(appendData(nil, s.chain.tokens[0][:])) + `"`
}

func TestDeterministicAcrossServers(t *testing.T) {
	t.Parallel()
	a := start(t, Config{Seed: 42, Blocks: 300})
	b := start(t, Config{Seed: 42, Blocks: 300})
	c := start(t, Config{Seed: 43, Blocks: 300})
	calls := []struct{ method, params string }{
		{"eth_getBlockByNumber", `["latest",true]`},
		{"eth_getBlockByNumber", `["0x7b",true]`},
		{"eth_getBalance", `["` + string(appendData(nil, a.chain.accounts[3][:])) + `","0x10"]`},
		{"eth_call", `[{"to":` + firstToken(t, a) + `,"data":"0x18160ddd"},"latest"]`},
		{"debug_storageRangeAt", `["` + a.BlockHash(9) + `",0,` + firstToken(t, a) + `,"0x",5]`},
	}
	for _, cl := range calls {
		ra, rb := callJSON(t, a, cl.method, cl.params), callJSON(t, b, cl.method, cl.params)
		if !bytes.Equal(ra, rb) {
			t.Errorf("%s %s with the same seed: got\n%s\nand\n%s; want the same", cl.method, cl.params, ra, rb)
		}
	}
	if a.BlockHash(200) == c.BlockHash(200) {
		t.Errorf("seeds 42 and 43: block 200 has hash %s in both; want different chains", a.BlockHash(200))
	}
}

func TestConfigErrors(t *testing.T) {
	t.Parallel()
	for _, cfg := range []Config{{Blocks: MaxBlocks + 1}, {TxPerBlock: MaxTxPerBlock + 1}, {MaxBatch: -1}, {Addr: "127.0.0.1:99999"}} {
		s, err := New(context.Background(), cfg)
		if err == nil {
			s.Close()
			t.Errorf("New(%+v): got no error; want one", cfg)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := New(ctx, Config{}); err == nil || !strings.Contains(err.Error(), "building the chain stopped") {
		t.Errorf("New with a cancelled context: got %v; want the build stopped", err)
	}
}
