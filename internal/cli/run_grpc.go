package cli

import (
	"flag"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/transport"
)

// grpcFlags are the flags of `run` for gRPC: the method and where its message types come from.
type grpcFlags struct {
	call        string
	protoFiles  []string
	importPaths []string
	protoset    string
	tls         transport.TLSFiles
	streamRate  rateFlag
	client      string
}

func (f *grpcFlags) define(fs *flag.FlagSet) {
	fs.StringVar(&f.call, "call", "", "gRPC `METHOD` to call on a grpc:// or grpcs:// URL: package.Service/Method (or package.Service.Method, as ghz writes it)")
	fs.Var(appended(&f.protoFiles, asIs), "proto", "gRPC: the message types from this .proto `FILE`, compiled at start (repeatable; default: ask the server's reflection)")
	fs.Var(appended(&f.importPaths, asIs), "import-path", "gRPC: look up --proto files and their imports in `DIR` (repeatable)")
	fs.StringVar(&f.protoset, "protoset", "", "gRPC: the message types from this protoset `FILE` (protoc --include_imports --descriptor_set_out)")
	fs.Var(&f.streamRate, "stream-rate", "gRPC client- and bidi-streaming calls: send each call's messages at this `RATE` (100/s), a bidi call's answers timed per message from their message's due time")
	fs.StringVar(&f.client, "grpc-client", "", "gRPC: `CLIENT` of unary calls: auto (rpcbench's own HTTP/2 client) or grpc-go, to compare (streaming calls always use grpc-go)")
	fs.StringVar(&f.tls.CACert, "cacert", "", "TLS: verify the server with the CA certificates of this PEM `FILE` instead of the system's")
	fs.StringVar(&f.tls.Cert, "cert", "", "TLS: the client's certificate, a PEM `FILE` (mutual TLS; with --key)")
	fs.StringVar(&f.tls.Key, "key", "", "TLS: the private key of --cert, a PEM `FILE`")
	fs.StringVar(&f.tls.ServerName, "server-name", "", "TLS: the `NAME` the server's certificate must hold (default: the URL's host)")
}

// url returns the run's URL with the --call method as its path.
func (f *grpcFlags) url(raw string) (string, error) {
	if f.call == "" {
		return raw, nil
	}
	u, err := plan.GRPCURL(raw, f.call)
	if err != nil {
		return "", usagef("--call: %v", err)
	}
	return u, nil
}

// apply puts the gRPC settings into p and refuses flags that do not go with its protocol.
func (f *grpcFlags) apply(p *plan.Plan, jsonrpc bool) error {
	p.GRPC = plan.GRPC{ProtoFiles: f.protoFiles, ImportPaths: f.importPaths, Protoset: f.protoset, StreamRate: f.streamRate.v, Client: f.client}
	p.TLS = f.tls
	if err := checkGRPCClient(f.client); err != nil {
		return err
	}
	if p.ProtocolOf() != transport.GRPC {
		if f.call != "" {
			return usagef("--call goes with a grpc:// or grpcs:// URL")
		}
		if f.client != "" {
			return usagef("--grpc-client goes with a grpc:// or grpcs:// URL")
		}
		return nil
	}
	if jsonrpc {
		return usagef("--jsonrpc and --calls go with http(s):// and ws(s):// URLs; a gRPC call's body is its request message in JSON (--body)")
	}
	return nil
}

// checkGRPCClient refuses a --grpc-client that names no client.
func checkGRPCClient(c string) error {
	switch c {
	case "", plan.GRPCClientAuto, plan.GRPCClientGRPCGo:
		return nil
	}
	return usagef("--grpc-client %q: want %s (unary calls on rpcbench's own HTTP/2 client) or %s (every call on grpc-go)", c, plan.GRPCClientAuto, plan.GRPCClientGRPCGo)
}
