package cli

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"strings"

	"github.com/rpcbench/rpcbench/check"
	"github.com/rpcbench/rpcbench/engine"
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

	opts []engine.Option // made by apply
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
}

// on reports whether JSON-RPC calls were asked for.
func (f *rpcCallFlags) on() bool { return f.method != "" || f.calls != "" }

// apply turns the plan's single endpoint (the URL argument, with -H) into one endpoint per
// JSON-RPC method, and makes the request source and the verifier of the answers.
func (f *rpcCallFlags) apply(p *plan.Plan, base plan.Endpoint, weights map[string]float64) error {
	f.opts = nil
	v, err := f.verifier()
	if err != nil {
		return err
	}
	if f.on() {
		calls, err := f.readCalls(p, base)
		if err != nil {
			return err
		}
		if weights != nil {
			if err := plan.WeighCalls(calls, weights); err != nil {
				return usagef("--weights: %v", err)
			}
		}
		eps, err := plan.JSONRPCEndpoints(base.URL, base.Header, calls, f.batch)
		if err != nil {
			return usageError{strings.TrimPrefix(err.Error(), "plan: ")}
		}
		p.Endpoints = eps
		src, err := plan.NewJSONRPCSource(plan.Plan{Endpoints: eps}.Normalized().Endpoints, calls, f.batch)
		if err != nil {
			return usageError{strings.TrimPrefix(err.Error(), "plan: ")}
		}
		f.opts = append(f.opts, engine.WithSource(src))
		v.JSONRPC = true
	} else if f.params != "" || f.batch != 0 {
		return usagef("--params and --batch go with --jsonrpc or --calls")
	}
	if !v.Empty() {
		f.opts = append(f.opts, engine.WithVerifier(v))
	}
	return nil
}

func (f *rpcCallFlags) readCalls(p *plan.Plan, base plan.Endpoint) ([]plan.Call, error) {
	switch {
	case f.method != "" && f.calls != "":
		return nil, usagef("--jsonrpc and --calls: give one of them")
	case len(p.Endpoints) != 1 || base.URL == "":
		return nil, usagef("--jsonrpc and --calls send to the one URL given; they do not go with --targets or --endpoint")
	case len(base.Body) > 0:
		return nil, usagef("--jsonrpc and --calls make the body; drop --body and --body-file")
	case base.Method != "" && !strings.EqualFold(base.Method, "GET") && !strings.EqualFold(base.Method, "POST"):
		return nil, usagef("-X %s: JSON-RPC calls are POSTs; drop -X", base.Method)
	case f.batch < 0 || f.batch > plan.MaxBatch:
		return nil, usagef("--batch %d: want 1 to %d calls per batch", f.batch, plan.MaxBatch)
	}
	if f.calls != "" {
		if f.params != "" {
			return nil, usagef("--params goes with --jsonrpc; the calls file gives each call's params")
		}
		r, err := os.Open(f.calls)
		if err != nil {
			return nil, usagef("--calls: %v", err)
		}
		defer r.Close()
		calls, err := plan.ParseCalls(r, f.calls)
		if err != nil {
			return nil, usagef("--calls: %s", strings.TrimPrefix(err.Error(), "plan: "))
		}
		return calls, nil
	}
	c := plan.Call{Method: f.method, Params: json.RawMessage(bytes.TrimSpace([]byte(f.params)))}
	if err := c.Validate(); err != nil {
		return nil, usagef("--params: %v", err)
	}
	return []plan.Call{c}, nil
}

// verifier makes the checks of the flags.
func (f *rpcCallFlags) verifier() (*check.Verifier, error) {
	v := &check.Verifier{}
	if f.expect != "" {
		st, err := check.ParseStatuses(f.expect)
		if err != nil {
			return nil, usagef("--expect-status: %v", err)
		}
		v.Status = st
	}
	add := func(flag string, c check.Check, err error) error {
		if err != nil {
			return usagef("--%s: %v", flag, err)
		}
		v.Checks = append(v.Checks, c)
		return nil
	}
	for _, s := range f.contains {
		c, err := check.BodyContains("", s)
		if err := add("check-body-contains", c, err); err != nil {
			return nil, err
		}
	}
	for _, s := range f.jsonEquals {
		path, value, ok := strings.Cut(s, "=")
		if !ok {
			return nil, usagef("--check-json %q: want PATH=VALUE, e.g. result.status=ok", s)
		}
		c, err := check.JSONEquals("", path, value)
		if err := add("check-json", c, err); err != nil {
			return nil, err
		}
	}
	for _, s := range f.jsonExists {
		c, err := check.JSONExists("", s)
		if err := add("check-json-exists", c, err); err != nil {
			return nil, err
		}
	}
	for _, s := range f.namedChecks {
		c, err := check.Parse(s)
		if err := add("check", c, err); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// options returns the engine options that apply made: the JSON-RPC source and the verifier.
func (f *rpcCallFlags) options() []engine.Option { return f.opts }
