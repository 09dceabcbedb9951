package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/transport"
	"github.com/rpcbench/rpcbench/transport/grpcx"
)

func init() {
	register(command{name: "ghz", summary: "load a gRPC method with ghz's command line, and report what ghz reports", run: runGHZ})
}

const ghzExamples = `  rpcbench ghz --proto proto/rpz/items.proto --call rpz.ItemService.CreateItem -d '{"id":"abc","name":"Name"}' -c 100 -n 100000 --skipTLS localhost:9090
  rpcbench ghz --insecure --call rpz.ItemService/CreateItem -d '{"id":"{{.RequestNumber}}","name":"{{newUUID}}"}' -n 2000 127.0.0.1:9090
  rpcbench ghz --insecure --call rpz.ItemService/GetItem -D get.json -m '{"x-tenant":"7"}' -r 500 -z 10s -c 20 127.0.0.1:9090
  rpcbench ghz --insecure --proto rpz/items.proto -i proto --call rpz.ItemService/GetItem -d '{"id":"1"}' --connections 4 127.0.0.1:9090
  rpcbench ghz --insecure --protoset items.protoset --call rpz.ItemService/GetItem -d '{"id":"1"}' 127.0.0.1:9090
  rpcbench ghz --cacert ca.pem --cert client.pem --key client-key.pem --cname items.local --call rpz.ItemService/GetItem -d '{"id":"1"}' 127.0.0.1:9090
  rpcbench ghz --insecure --call rpz.ItemService/CreateItems -D items.jsonl -n 100 127.0.0.1:9090
  rpcbench ghz --insecure --call rpz.ItemService/GetItems -d '[{"id":"1"},{"id":"2"}]' --stream-call-count 20 --stream-interval 10ms 127.0.0.1:9090
  rpcbench ghz --insecure --call rpz.ItemService/GetItems -d '{"id":"{{randomInt 1 3}}"}' --stream-dynamic-messages --stream-call-count 20 --stream-rate 1000/s --streams 10 --connections 2 127.0.0.1:9090
  rpcbench ghz --insecure --call rpz.ItemService/ListItems -d '{"ids":["1","2","3"]}' --stream-call-count 2 127.0.0.1:9090
  rpcbench ghz --insecure --call rpz.ItemService/GetItems -d '{"id":"1"}' --stream-call-duration 1s --stream-call-count 1000 --stream-interval 10ms 127.0.0.1:9090`

// ghzFlags are ghz's common flags, with ghz's meaning and defaults.
type ghzFlags struct {
	proto, protoset, importPaths, call string
	data, dataFile, metadata           string
	concurrency, connections           int
	total                              uint64
	rps                                float64
	duration, timeout                  time.Duration
	insecure, skipTLS                  bool
	tls                                transport.TLSFiles
	format                             string
	stream                             ghzStreamFlags
}

func (f *ghzFlags) define(fs *flag.FlagSet) {
	fs.StringVar(&f.proto, "proto", "", "the .proto `FILE` of the method (default: ask the server's reflection)")
	fs.StringVar(&f.protoset, "protoset", "", "the protoset `FILE` of the method")
	fs.StringVar(&f.importPaths, "import-paths", "", "comma-separated `DIRS` to look up --proto and its imports in")
	fs.StringVar(&f.importPaths, "i", "", "comma-separated `DIRS` (short for --import-paths)")
	fs.StringVar(&f.call, "call", "", "the `METHOD`: package.Service.Method or package.Service/Method")
	for _, n := range []string{"data", "d"} {
		fs.StringVar(&f.data, n, "", "the request message as `JSON`, with ghz's templates ({{.RequestNumber}}, {{.TimestampUnix}}, {{newUUID}}…); @ reads it from stdin")
	}
	for _, n := range []string{"data-file", "D"} {
		fs.StringVar(&f.dataFile, n, "", "read the request message from `FILE`")
	}
	for _, n := range []string{"metadata", "m"} {
		fs.StringVar(&f.metadata, n, "", "the call's metadata as a JSON object of strings, e.g. '{\"x-tenant\":\"7\"}'")
	}
	for _, n := range []string{"concurrency", "c"} {
		fs.IntVar(&f.concurrency, n, 50, "`N` calls in flight at once")
	}
	for _, n := range []string{"total", "n"} {
		fs.Uint64Var(&f.total, n, 200, "make `N` calls (unless -z)")
	}
	for _, n := range []string{"rps", "r"} {
		fs.Float64Var(&f.rps, n, 0, "`RATE` of calls per second, on a schedule (0: as fast as -c allows)")
	}
	for _, n := range []string{"duration", "z"} {
		fs.Var(durationFlag{&f.duration}, n, "call for this long instead of -n calls (e.g. 10s)")
	}
	for _, n := range []string{"timeout", "t"} {
		fs.Var(durationFlag{&f.timeout}, n, "each call's deadline (default 20s)")
	}
	fs.IntVar(&f.connections, "connections", 1, "`N` HTTP/2 connections the calls are spread over")
	fs.BoolVar(&f.insecure, "insecure", false, "plaintext: no TLS (ghz speaks TLS by default)")
	fs.BoolVar(&f.skipTLS, "skipTLS", false, "TLS without verifying the server's certificate")
	fs.StringVar(&f.tls.CACert, "cacert", "", "verify the server with the CA certificates of this PEM `FILE`")
	fs.StringVar(&f.tls.Cert, "cert", "", "the client's certificate, a PEM `FILE` (mutual TLS; with --key)")
	fs.StringVar(&f.tls.Key, "key", "", "the private key of --cert, a PEM `FILE`")
	fs.StringVar(&f.tls.ServerName, "cname", "", "the `NAME` the server's certificate must hold (default: the host)")
	f.stream.define(fs)
	for _, n := range []string{"format", "O"} {
		fs.Var(choiceFlag{&f.format, []string{"summary", "json"}}, n, "`FORMAT` of the report: summary (ghz's, then rpcbench's figures) or json (rpcbench's JSON report)")
	}
}

// plan maps ghz's flags and the HOST:PORT argument onto a plan.
func (f *ghzFlags) plan(host string, stdin io.Reader) (plan.Plan, error) {
	if f.call == "" {
		return plan.Plan{}, usagef("--call: give the method, e.g. --call rpz.ItemService.CreateItem")
	}
	if strings.Contains(host, "://") {
		return plan.Plan{}, usagef("%q: want HOST:PORT, as ghz does (--insecure for plaintext)", host)
	}
	scheme := "grpcs"
	if f.insecure {
		scheme = "grpc"
		if f.skipTLS || !f.tls.IsZero() {
			return plan.Plan{}, usagef("--insecure is plaintext: --skipTLS, --cacert, --cert, --key and --cname go with TLS")
		}
	}
	url, err := plan.GRPCURL(scheme+"://"+host, f.call)
	if err != nil {
		return plan.Plan{}, usagef("--call: %v", err)
	}
	body, err := f.body(stdin)
	if err != nil {
		return plan.Plan{}, err
	}
	ep := plan.Endpoint{URL: url, Body: body}
	if ep.Header, err = f.headers(); err != nil {
		return plan.Plan{}, err
	}
	var imports []string
	for _, d := range strings.Split(f.importPaths, ",") {
		if d = strings.TrimSpace(d); d != "" {
			imports = append(imports, d)
		}
	}
	p := plan.Plan{
		Endpoints: []plan.Endpoint{ep},
		Load:      plan.Load{Model: plan.Closed, Connections: f.concurrency, Requests: f.total},
		HTTP:      plan.HTTP{Timeout: f.timeout, Insecure: f.skipTLS},
		GRPC:      plan.GRPC{ImportPaths: imports, Protoset: f.protoset, Connections: f.connections},
		TLS:       f.tls,
	}
	if p.HTTP.Timeout == 0 {
		p.HTTP.Timeout = 20 * time.Second // ghz's default
	}
	if f.proto != "" {
		p.GRPC.ProtoFiles = []string{f.proto}
	}
	if f.duration > 0 {
		p.Load.Requests, p.Load.Duration = 0, f.duration // as in ghz, -z wins over -n
	}
	if f.rps > 0 {
		p.Load.Model, p.Load.Rate = plan.Open, f.rps
	}
	switch {
	case f.concurrency < 1:
		return p, usagef("-c %d: want 1 or more calls in flight", f.concurrency)
	case f.connections < 1:
		return p, usagef("--connections %d: want 1 or more", f.connections)
	case f.total == 0 && f.duration == 0:
		return p, usagef("-n 0: give a number of calls, or -z for a duration")
	case f.rps < 0:
		return p, usagef("-r %v: want a rate above 0, or 0 for none", f.rps)
	}
	if err := f.stream.apply(&p); err != nil {
		return p, err
	}
	if err := p.Validate(); err != nil {
		return p, usageError{strings.ReplaceAll(err.Error(), "plan: ", "")}
	}
	return p, nil
}

// body returns the request message of -d or -D, its ghz templates made rpcbench's: one message,
// or for a streaming call its messages, as an array or one JSON value after another.
func (f *ghzFlags) body(stdin io.Reader) ([]byte, error) {
	var b []byte
	switch {
	case f.data != "" && f.dataFile != "":
		return nil, usagef("-d and -D: give one of them")
	case f.data == "@":
		var err error
		if b, err = io.ReadAll(io.LimitReader(stdin, 64<<20)); err != nil {
			return nil, usagef("-d @: reading stdin: %v", err)
		}
	case f.data != "":
		b = []byte(f.data)
	case f.dataFile != "":
		var err error
		if b, err = plan.ReadBodyFile(f.dataFile); err != nil {
			return nil, usagef("-D: %v", err)
		}
	}
	s, err := plan.FromGHZTemplate(string(b), f.call)
	if err != nil {
		return nil, usagef("the data: %v", err)
	}
	return []byte(s), nil
}

// headers returns the metadata of -m: a JSON object of strings.
func (f *ghzFlags) headers() ([]transport.Header, error) {
	if f.metadata == "" {
		return nil, nil
	}
	var md map[string]string
	if err := json.Unmarshal([]byte(f.metadata), &md); err != nil {
		return nil, usagef("-m %s: want a JSON object of strings, e.g. '{\"x-tenant\":\"7\"}': %v", f.metadata, err)
	}
	names := make([]string, 0, len(md))
	for k := range md {
		names = append(names, k)
	}
	sort.Strings(names)
	hs := make([]transport.Header, 0, len(md))
	for _, k := range names {
		v, err := plan.FromGHZTemplate(md[k], f.call)
		if err != nil {
			return nil, usagef("-m: %v", err)
		}
		hs = append(hs, transport.Header{Name: k, Value: v})
	}
	return hs, nil
}

func runGHZ(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "ghz", "ghz [flags] HOST:PORT\n\nCall a gRPC method as ghz does, with ghz's flags, and print ghz's summary followed by rpcbench's own figures\n(latency from the intended send time, what was dropped, connections).", ghzExamples)
	f := &ghzFlags{format: "summary"}
	f.define(fs)
	pos, code, done := parseArgs(e, fs, args)
	if done {
		return code
	}
	if len(pos) != 1 {
		fmt.Fprintf(e.stderr, "rpcbench ghz: want one HOST:PORT, got %d arguments\n(see: rpcbench ghz --help)\n", len(pos))
		return ExitUsage
	}
	p, err := f.plan(pos[0], e.stdin)
	if err != nil {
		return fail(e, "ghz", err, ExitUsage)
	}
	prep, err := prepare(e, p)
	if err != nil {
		return fail(e, "ghz", err, ExitUsage)
	}
	format := "ghz"
	if f.format == "json" {
		format = "json"
	}
	o := outputs{cmdName: "ghz", format: format, quiet: true, reword: func(err error) error {
		if errors.Is(err, grpcx.ErrServerTLS) { // ghz names plaintext by a flag, not by a scheme
			return errors.New(strings.Replace(err.Error(), "use grpcs://", "leave out --insecure", 1))
		}
		return err
	}}
	return execute(ctx, e, prep, o)
}
