package cli

import (
	"bytes"
	"encoding/json"
	"flag"
	"strings"

	"github.com/rpcbench/rpcbench/check"
	"github.com/rpcbench/rpcbench/plan"
)

// rpcCallFlags are the flags of `run` for JSON-RPC 2.0 calls and for checks on the answers.
type rpcCallFlags struct {
	method      string
	params      string
	calls       string
	batch       int
	expect      string
	contains    []string
	jsonEquals  []string
	jsonExists  []string
	namedChecks []string
	metrics     []string
}

func (f *rpcCallFlags) define(fs *flag.FlagSet) {
	fs.StringVar(&f.method, "jsonrpc", "", "send JSON-RPC 2.0 calls of `METHOD` (POST, or messages over ws:// and wss://), each with a unique id")
	fs.StringVar(&f.params, "params", "", "JSON-RPC params of --jsonrpc: a JSON array or object, may hold templates (e.g. '[\"{{pick \"0x1\" \"latest\"}}\",false]')")
	fs.StringVar(&f.calls, "calls", "", "JSON-RPC calls from `FILE`, one per line: {\"method\":…,\"params\":…,\"name\":…,\"weight\":…}; taken in turn (or by weight), reported per name")
	fs.IntVar(&f.batch, "batch", 0, "send `N` JSON-RPC calls per request, as one batch (an array)")
	fs.StringVar(&f.expect, "expect-status", "", "status `CODES` that count as success, e.g. 200,201 or 2xx,404 (default 2xx and 3xx)")
	fs.Var(appended(&f.contains, asIs), "check-body-contains", "check that each answer's body holds `TEXT` (repeatable)")
	fs.Var(appended(&f.jsonEquals, asIs), "check-json", "check `PATH=VALUE`: each answer is JSON and its value at PATH equals VALUE, e.g. result.status=ok or result[0].n=5 (repeatable)")
	fs.Var(appended(&f.jsonExists, asIs), "check-json-exists", "check that each answer is JSON with a value at `PATH`, e.g. result.hash (repeatable)")
	fs.Var(appended(&f.namedChecks, asIs), "check", "a named check `'NAME: SPEC'` where SPEC is body contains TEXT, json PATH exists or json PATH == VALUE (repeatable)")
	fs.Var(appended(&f.metrics, asIs), "answer-metric", "read the number at a JSON path of each successful answer into a distribution of its own, `NAME=PATH`, e.g. hop_latency_ns=State.HopLatency (repeatable)")
}

// on reports whether JSON-RPC calls were asked for.
func (f *rpcCallFlags) on() bool { return f.method != "" || f.calls != "" }

// apply maps the JSON-RPC and check flags onto the plan: its calls (sent to the URL of its one
// endpoint) and its checks. Each check is parsed here too, so that a bad one names its flag.
func (f *rpcCallFlags) apply(p *plan.Plan) error {
	if err := f.checks(&p.Checks); err != nil {
		return err
	}
	if !f.on() {
		if f.params != "" || f.batch != 0 {
			return usagef("--params and --batch go with --jsonrpc or --calls")
		}
		return nil
	}
	switch {
	case f.method != "" && f.calls != "":
		return usagef("--jsonrpc and --calls: give one of them")
	case len(p.Endpoints) != 1 || p.Traffic.Targets != "":
		return usagef("--jsonrpc and --calls send to the one URL given; they do not go with --targets or --endpoint")
	case len(p.Endpoints[0].Body) > 0:
		return usagef("--jsonrpc and --calls make the body; drop --body and --body-file")
	case !strings.EqualFold(p.Endpoints[0].Method, "GET") && !strings.EqualFold(p.Endpoints[0].Method, "POST"):
		return usagef("-X %s: JSON-RPC calls are POSTs; drop -X", p.Endpoints[0].Method)
	case f.batch < 0 || f.batch > plan.MaxBatch:
		return usagef("--batch %d: want 1 to %d calls per batch", f.batch, plan.MaxBatch)
	case f.calls != "" && f.params != "":
		return usagef("--params goes with --jsonrpc; the calls file gives each call's params")
	}
	p.JSONRPC = plan.JSONRPC{CallsFile: f.calls, Batch: f.batch}
	if f.method != "" {
		c := plan.Call{Method: f.method, Params: json.RawMessage(bytes.TrimSpace([]byte(f.params)))}
		if err := c.Validate(); err != nil {
			return usagef("--params: %v", err)
		}
		p.JSONRPC.Calls = []plan.Call{c}
	}
	return nil
}

// checks maps the check flags onto c, as check.Parse reads them, and parses each so that a bad
// one names its flag.
func (f *rpcCallFlags) checks(c *plan.Checks) error {
	if f.expect != "" {
		if _, err := check.ParseStatuses(f.expect); err != nil {
			return usagef("--expect-status: %v", err)
		}
		c.Status = f.expect
	}
	add := func(flag, spec string) error {
		if _, err := check.Parse(spec); err != nil {
			return usagef("--%s: %v", flag, err)
		}
		c.Body = append(c.Body, spec)
		return nil
	}
	for _, s := range f.contains {
		if err := add("check-body-contains", "body contains "+s); err != nil {
			return err
		}
	}
	for _, s := range f.jsonEquals {
		path, value, ok := strings.Cut(s, "=")
		if !ok {
			return usagef("--check-json %q: want PATH=VALUE, e.g. result.status=ok", s)
		}
		if err := add("check-json", "json "+path+" == "+value); err != nil {
			return err
		}
	}
	for _, s := range f.jsonExists {
		if err := add("check-json-exists", "json "+s+" exists"); err != nil {
			return err
		}
	}
	for _, s := range f.namedChecks {
		if err := add("check", s); err != nil {
			return err
		}
	}
	for _, s := range f.metrics {
		name, path, ok := strings.Cut(s, "=")
		if !ok {
			return usagef("--answer-metric %q: want NAME=PATH, e.g. hop_latency_ns=State.HopLatency", s)
		}
		if _, err := check.NewMetric(name, path); err != nil {
			return usagef("--answer-metric: %v", err)
		}
		c.Metrics = append(c.Metrics, plan.AnswerMetric{Name: strings.TrimSpace(name), Path: strings.TrimSpace(path)})
	}
	return nil
}
