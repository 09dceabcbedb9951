package replay

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/rpcbench/rpcbench/result"
)

// timeKeys are the names a JSON line's timestamp goes by, in the order they are looked for.
var timeKeys = []string{"time", "ts", "timestamp", "@timestamp", "t"}

// requestKeys are the names the JSON-RPC request of a JSON line goes by.
var requestKeys = []string{"request", "req", "body", "payload"}

// jsonrpcReader reads JSON lines that each hold a timestamp and a JSON-RPC request (an object, or
// an array for a batch, or a string that holds either), as geth's, erigon's and nethermind's debug
// logs and recording proxies write them: {"time": "2024-03-01T10:00:00.123Z", "request":
// {"jsonrpc": "2.0", "id": 1, "method": "eth_call", "params": […]}}.
type jsonrpcReader struct{ *lines }

func newJSONRPCReader(name string, r io.Reader) *jsonrpcReader {
	return &jsonrpcReader{newLines(name, r)}
}

// Next implements Reader.
func (j *jsonrpcReader) Next() (Record, error) {
	b, err := j.next()
	if err != nil {
		return Record{}, err
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		return Record{}, j.errorf(`want a JSON object {"time": …, "request": {"jsonrpc": "2.0", …}}: %v`, err)
	}
	rec := Record{Method: "POST", Line: j.line, Header: []result.RequestHeader{{Name: "Content-Type", Value: "application/json"}}}
	if rec.Time, err = timeOf(obj); err != nil {
		return Record{}, j.errorf("%v", err)
	}
	var body json.RawMessage
	for _, k := range requestKeys {
		if v, ok := obj[k]; ok {
			body = v
			break
		}
	}
	if body == nil {
		return Record{}, j.errorf("no request: want it under one of %s", strings.Join(requestKeys, ", "))
	}
	if body[0] == '"' { // a request kept as a string
		var s string
		if err := json.Unmarshal(body, &s); err != nil {
			return Record{}, j.errorf("request: %v", err)
		}
		body = json.RawMessage(strings.TrimSpace(s))
	}
	if rec.Name, rec.Calls, err = jsonrpcCalls(body); err != nil {
		return Record{}, j.errorf("request: %v", err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, body); err != nil {
		return Record{}, j.errorf("request: %v", err)
	}
	rec.Body = compact.Bytes()
	return rec, nil
}

// timeOf reads the timestamp of a JSON line: a string (RFC 3339 or Unix time) or a number.
func timeOf(obj map[string]json.RawMessage) (t time.Time, err error) {
	for _, k := range timeKeys {
		v, ok := obj[k]
		if !ok {
			continue
		}
		s := string(v)
		if len(v) > 0 && v[0] == '"' {
			if err := json.Unmarshal(v, &s); err != nil {
				return t, fmt.Errorf("%s: %v", k, err)
			}
		}
		tt, err := parseTime(s)
		if err != nil {
			return t, fmt.Errorf("%s: %v", k, err)
		}
		return tt, nil
	}
	return t, fmt.Errorf("no timestamp: want it under one of %s", strings.Join(timeKeys, ", "))
}

// jsonrpcCalls checks that body is a JSON-RPC request or a batch of them, and names it: the
// method of a single call, "batch" for a batch; calls is the number of calls.
func jsonrpcCalls(body []byte) (name string, calls int, err error) {
	type call struct {
		Method *string `json:"method"`
	}
	switch {
	case len(body) > 0 && body[0] == '[':
		var cs []call
		if err := json.Unmarshal(body, &cs); err != nil {
			return "", 0, fmt.Errorf("a batch that is not an array of calls: %v", err)
		}
		if len(cs) == 0 {
			return "", 0, errors.New("an empty batch")
		}
		for i, c := range cs {
			if c.Method == nil || *c.Method == "" {
				return "", 0, fmt.Errorf("call %d of the batch has no method", i+1)
			}
		}
		return "batch", len(cs), nil
	case len(body) > 0 && body[0] == '{':
		var c call
		if err := json.Unmarshal(body, &c); err != nil {
			return "", 0, err
		}
		if c.Method == nil || *c.Method == "" {
			return "", 0, errors.New("no method: want {\"jsonrpc\": \"2.0\", \"method\": …}")
		}
		return *c.Method, 1, nil
	}
	return "", 0, errors.New("want a JSON-RPC call {…} or a batch […]")
}

// csvLogReader reads rpcbench's per-request log (run --log): the endpoint column, when it is the
// default name "METHOD /path", gives the request; intended gives the time, status the status.
type csvLogReader struct {
	name string
	r    *csv.Reader
	line int
}

func newCSVLogReader(name string, r io.Reader) (*csvLogReader, error) {
	c := &csvLogReader{name: name, r: csv.NewReader(r)}
	c.r.ReuseRecord = true
	head, err := c.r.Read()
	if err != nil {
		return nil, fmt.Errorf("%s:1: want the header id,endpoint,intended,…: %v", name, err)
	}
	if len(head) < 7 || head[1] != "endpoint" || head[2] != "intended" || head[6] != "status" {
		return nil, fmt.Errorf("%s:1: want the header of rpcbench's --log (id,endpoint,intended,sent,latency_ms,service_ms,status,class)", name)
	}
	return c, nil
}

// Next implements Reader.
func (c *csvLogReader) Next() (Record, error) {
	row, err := c.r.Read()
	if err == io.EOF {
		return Record{}, io.EOF
	}
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return Record{}, &LineError{File: c.name, Line: pe.Line, Err: pe.Err}
	}
	if err != nil {
		return Record{}, fmt.Errorf("%s: %w", c.name, err)
	}
	line, _ := c.r.FieldPos(0)
	bad := func(format string, a ...any) error {
		return &LineError{File: c.name, Line: line, Err: fmt.Errorf(format, a...)}
	}
	method, target, ok := strings.Cut(row[1], " ")
	if !ok || !isToken(method) || !strings.HasPrefix(target, "/") || strings.HasSuffix(target, "…") {
		return Record{}, bad("endpoint %q: a request can be replayed from its endpoint's name only when it is \"METHOD /path\" in full (the log keeps no URL)", clip(row[1]))
	}
	rec := Record{Method: method, Target: target, Line: line}
	if rec.Time, err = parseTime(row[2]); err != nil {
		return Record{}, bad("intended: %v", err)
	}
	if row[6] != "" {
		if rec.Status, err = strconv.Atoi(row[6]); err != nil {
			return Record{}, bad("status %q: want a number", clip(row[6]))
		}
	}
	return rec, nil
}

// vegetaReader reads vegeta's JSON targets, one per line ({"method", "url", "header", "body"
// in base64}), with the time of each in "timestamp" (or "time") where the file gives one.
type vegetaReader struct{ *lines }

func newVegetaReader(name string, r io.Reader) *vegetaReader { return &vegetaReader{newLines(name, r)} }

type vegetaTarget struct {
	Method    string              `json:"method"`
	URL       string              `json:"url"`
	Header    map[string][]string `json:"header"`
	Body      []byte              `json:"body"`
	Timestamp json.RawMessage     `json:"timestamp"`
	Time      json.RawMessage     `json:"time"`
}

// Next implements Reader.
func (v *vegetaReader) Next() (Record, error) {
	b, err := v.next()
	if err != nil {
		return Record{}, err
	}
	var t vegetaTarget
	if err := json.Unmarshal(b, &t); err != nil {
		return Record{}, v.errorf(`want {"method": "GET", "url": "http://…", "header": {…}, "body": "<base64>", "timestamp": …}: %v`, err)
	}
	if t.Method == "" {
		t.Method = "GET"
	}
	if !isToken(t.Method) {
		return Record{}, v.errorf("method %q is not an HTTP method", clip(t.Method))
	}
	if !strings.Contains(t.URL, "://") {
		return Record{}, v.errorf("url %q: want an absolute URL", clip(t.URL))
	}
	rec := Record{Method: t.Method, Target: t.URL, Body: t.Body, Line: v.line}
	stamp := map[string]json.RawMessage{}
	if t.Timestamp != nil {
		stamp["timestamp"] = t.Timestamp
	} else if t.Time != nil {
		stamp["time"] = t.Time
	}
	if len(stamp) > 0 {
		if rec.Time, err = timeOf(stamp); err != nil {
			return Record{}, v.errorf("%v", err)
		}
	}
	names := make([]string, 0, len(t.Header))
	for k := range t.Header {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		for _, val := range t.Header[k] {
			if !isToken(k) || strings.ContainsAny(val, "\r\n") {
				return Record{}, v.errorf("header %q: not a header a request can carry", clip(k))
			}
			rec.Header = append(rec.Header, result.RequestHeader{Name: k, Value: val})
		}
	}
	return rec, nil
}
