package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/rpcbench/rpcbench/engine"
	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/transport"
)

// setupConnections is the number of connections of the setup phase (closed model).
const setupConnections = 16

// trafficFlags are the flags of `run` that say which requests to send: target files, named
// endpoints with weights, data for templates, and a setup phase.
type trafficFlags struct {
	targets       string
	targetsFormat string
	targetsOrder  string
	endpoints     []plan.Endpoint
	weights       map[string]float64
	callsWeighted bool // JSON-RPC calls take the weights (rpcCallFlags.apply), not the endpoints
	data          string
	dataOrder     string
	setup         string
	setupCount    uint64

	stdin  io.Reader          // for "--targets -"
	header []transport.Header // -H, added to every request
	loaded *plan.Targets      // the target file, once read
	rows   *plan.Data         // the data file, once read
}

func (f *trafficFlags) define(fs *flag.FlagSet) {
	fs.StringVar(&f.targets, "targets", "", "read the requests from target `FILE` (vegeta's text or JSON-lines format; - for stdin)")
	fs.Var(choiceFlag{&f.targetsFormat, []string{"http", "json"}}, "targets-format", "`format` of --targets: http or json (default: told by the content)")
	fs.Var(choiceFlag{&f.targetsOrder, []string{"sequential", "random"}}, "targets-order", "`order` of targets and endpoints without weights: sequential (round-robin) or random")
	fs.Var(appended(&f.endpoints, plan.ParseEndpoint), "endpoint", "a named endpoint `'[NAME=][METHOD ]URL'` (repeatable), e.g. 'get=GET http://127.0.0.1:8080/v0/entity?id={{randInt 1 1e8}}'")
	fs.Var(parsed(&f.weights, plan.ParseWeights), "weights", "share of each endpoint by name, `NAME=W,…` (e.g. get=8,put=2)")
	fs.StringVar(&f.data, "data", "", "data `FILE` (CSV with a header, or JSON lines) whose fields templates read as {{.field}}")
	fs.Var(choiceFlag{&f.dataOrder, []string{"sequential", "random", "unique"}}, "data-order", "`order` of the data rows: sequential, random, or unique (each row once; the run stops when they run out)")
	fs.StringVar(&f.setup, "setup", "", "send the requests of target `FILE` before the run, outside the figures (e.g. to create the items a GET benchmark reads)")
	fs.Uint64Var(&f.setupCount, "setup-count", 0, "send `N` --setup requests, taking the entries in turn (default: each entry of the file once)")
}

// given reports whether the requests come from flags, so that the URL argument is optional.
func (f *trafficFlags) given() bool { return f.targets != "" || len(f.endpoints) > 0 }

// apply replaces the plan's single endpoint (base, from the URL argument and -X, -H, --body) by the
// endpoints the traffic flags give, and reads the target and data files.
func (f *trafficFlags) apply(p *plan.Plan, base plan.Endpoint) error {
	p.Traffic = plan.Traffic{
		Targets: f.targets, TargetsFormat: f.targetsFormat, Order: plan.Order(f.targetsOrder),
		Data: f.data, DataOrder: plan.DataOrder(f.dataOrder), Setup: f.setup, SetupCount: f.setupCount,
	}
	f.header = base.Header
	var eps []plan.Endpoint
	if base.URL != "" {
		if f.targets != "" {
			return usagef("a URL and --targets: give one of them")
		}
		eps = append(eps, base)
	}
	for _, e := range f.endpoints {
		if f.targets != "" {
			return usagef("--endpoint and --targets: give one of them (names and weights go in the target file: # name: and # weight:)")
		}
		if e.Method == "" {
			e.Method = base.Method
		}
		e.Header = withHeaders(nil, base.Header)
		if m := strings.ToUpper(e.Method); m != "GET" && m != "HEAD" || plan.IsGRPCURL(e.URL) {
			e.Body = base.Body // --body goes to the endpoints that send one (every gRPC call does)
		}
		eps = append(eps, e)
	}
	if f.targets != "" {
		t, err := f.readTargets("--targets", f.targets, f.targetsFormat)
		if err != nil {
			return err
		}
		for i := range t.Entries {
			t.Entries[i].Header = withHeaders(t.Entries[i].Header, base.Header)
		}
		if eps, err = plan.GroupTargets(t); err != nil {
			return usageError{err.Error()}
		}
		f.loaded = t
	}
	if f.weights != nil && !f.callsWeighted {
		if err := plan.ApplyWeights(eps, f.weights); err != nil {
			return usagef("--weights: %v", err)
		}
	}
	if f.data != "" {
		d, err := readDataFile(f.data)
		if err != nil {
			return err
		}
		f.rows = d
	}
	if eps != nil {
		p.Endpoints = eps
	}
	return nil
}

// withHeaders adds to hs the headers of extra whose names hs lacks.
func withHeaders(hs, extra []transport.Header) []transport.Header {
outer:
	for _, x := range extra {
		for _, h := range hs {
			if strings.EqualFold(h.Name, x.Name) {
				continue outer
			}
		}
		hs = append(hs, x)
	}
	return hs
}

// readTargets reads the target file of flag ("-": standard input); "@path" bodies are relative
// to it.
func (f *trafficFlags) readTargets(flag, path, format string) (*plan.Targets, error) {
	name, dir := path, filepath.Dir(path)
	var r io.Reader
	if path == "-" {
		name, dir, r = "stdin", ".", f.stdin
	} else {
		file, err := os.Open(path)
		if err != nil {
			return nil, usagef("%s: %v", flag, err)
		}
		defer file.Close()
		r = file
	}
	t, err := plan.ReadTargets(name, r, format, dir)
	if err != nil {
		return nil, usageError{err.Error()}
	}
	return t, nil
}

func readDataFile(path string) (*plan.Data, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, usagef("--data: %v", err)
	}
	defer file.Close()
	d, err := plan.ReadData(path, file)
	if err != nil {
		return nil, usageError{err.Error()}
	}
	return d, nil
}

// source builds the request source of p (Normalized) from the files read by apply.
func (f *trafficFlags) source(p plan.Plan) (plan.Source, error) {
	in := plan.Inputs{Targets: f.loaded, Data: f.rows}
	if f.rows != nil && f.setup != "" {
		t := f.loaded
		if t == nil {
			t = &plan.Targets{Entries: p.Endpoints}
		}
		if !readsData(t) {
			in.Data = nil // only the setup reads the data
		}
	}
	src, err := plan.NewSource(p, in)
	if err != nil {
		return nil, usageError{err.Error()}
	}
	return src, nil
}

// runSetup sends the --setup requests before the measured run, with setupConnections busy
// connections, and returns an error naming the first request that failed.
func (f *trafficFlags) runSetup(ctx context.Context, e *env, main plan.Plan) error {
	t, err := f.readTargets("--setup", f.setup, "")
	if err != nil {
		return fmt.Errorf("--setup: %w", err)
	}
	for i := range t.Entries {
		t.Entries[i].Header = withHeaders(t.Entries[i].Header, f.header)
	}
	eps, err := plan.GroupTargets(t)
	if err != nil {
		return usagef("--setup: %v", err)
	}
	count := f.setupCount
	if count == 0 {
		count = uint64(len(t.Entries))
	}
	sp := plan.Plan{
		Endpoints: eps,
		Traffic:   plan.Traffic{Targets: f.setup},
		Load:      plan.Load{Model: plan.Closed, Connections: int(min(count, setupConnections)), Requests: count},
		HTTP:      main.HTTP,
	}
	in := plan.Inputs{Targets: t}
	if f.rows != nil && readsData(t) {
		sp.Traffic.Data, sp.Traffic.DataOrder, in.Data = f.data, plan.DataSequential, f.rows
	}
	sp = sp.Normalized()
	if err := sp.Validate(); err != nil {
		return usagef("--setup: %v", err)
	}
	src, err := plan.NewSource(sp, in)
	if err != nil {
		return usagef("--setup: %v", err)
	}
	v := &setupVerifier{}
	began := time.Now()
	res, err := engine.Run(ctx, sp, engine.WithSource(src), engine.WithVerifier(v))
	if err != nil {
		return fmt.Errorf("setup: %w", err)
	}
	total := res.Total.Total()
	switch {
	case res.Interrupted:
		return fmt.Errorf("setup: interrupted after %d of %d requests", total.Sent, count)
	case total.Failed() > 0:
		return fmt.Errorf("setup: %d of %d requests to %s failed; %s", total.Failed(), total.Sent, f.setup, v.first(total))
	case res.Stop != nil:
		return fmt.Errorf("setup: stopped after %d of %d requests: %w", total.Sent, count, res.Stop)
	}
	fmt.Fprintf(e.stderr, "rpcbench run: setup: %d requests to %s in %v, all ok\n", total.Sent, f.setup, time.Since(began).Round(time.Millisecond))
	return nil
}

// readsData reports whether some entry of t reads a data field ({{.field}}).
func readsData(t *plan.Targets) bool {
	for _, e := range t.Entries {
		s := e.URL + string(e.Body)
		for _, h := range e.Header {
			s += h.Value
		}
		if strings.Contains(strings.ReplaceAll(s, " ", ""), "{{.") {
			return true
		}
	}
	return false
}

// setupVerifier is engine.StatusVerifier that also keeps the first answer that failed.
type setupVerifier struct{ failed atomic.Pointer[string] }

// Verify implements engine.Verifier.
func (v *setupVerifier) Verify(r *transport.Request, out *transport.Outcome) (result.Class, error) {
	c, err := engine.StatusVerifier{}.Verify(r, out)
	if c != result.OK && v.failed.Load() == nil {
		body := strings.TrimSpace(string(out.Body[:min(len(out.Body), 200)]))
		msg := fmt.Sprintf("first: %s %s://%s%s answered status %d", r.Method, r.Scheme, r.Host, r.Path, out.Status)
		if body != "" {
			msg += ": " + body
		}
		v.failed.CompareAndSwap(nil, &msg)
	}
	return c, err
}

// first describes the first failure: an answer that failed, or else the commonest error.
func (v *setupVerifier) first(total *result.Counts) string {
	if p := v.failed.Load(); p != nil {
		return *p
	}
	keys := make([]result.ErrorKey, 0, len(total.Messages))
	for k := range total.Messages {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return total.Messages[keys[i]] > total.Messages[keys[j]] })
	if len(keys) == 0 {
		return "no detail"
	}
	return fmt.Sprintf("%s: %s", keys[0].Class, keys[0].Message)
}
