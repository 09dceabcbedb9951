package cli

import (
	"flag"
	"strings"

	"github.com/rpcbench/rpcbench/plan"
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
	data          string
	dataOrder     string
	setup         string
	setupCount    uint64
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

// apply maps the traffic flags onto the plan: its endpoints (base, from the URL argument and -X,
// -H, --body, and those of --endpoint) or its target file, the weights, data and setup files.
// Reading the files is plan.Prepare's.
func (f *trafficFlags) apply(p *plan.Plan, base plan.Endpoint) error {
	p.Traffic = plan.Traffic{
		Targets: f.targets, TargetsFormat: f.targetsFormat, Order: plan.Order(f.targetsOrder),
		Data: f.data, DataOrder: plan.DataOrder(f.dataOrder), Setup: f.setup, SetupCount: f.setupCount,
		Weights: f.weights,
	}
	if f.targets != "" || f.setup != "" {
		p.Traffic.Header = base.Header // -H goes to every entry of the target and setup files
	}
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
		e.Header = base.Header
		if m := strings.ToUpper(e.Method); m != "GET" && m != "HEAD" || plan.IsGRPCURL(e.URL) {
			e.Body = base.Body // --body goes to the endpoints that send one (every gRPC call does)
		}
		eps = append(eps, e)
	}
	p.Endpoints = eps
	return nil
}
