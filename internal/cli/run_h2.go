package cli

import (
	"flag"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/transport"
)

// h2Flags are the flags of `run` that choose the HTTP version and shape HTTP/2 and TLS
// connections. An https:// URL speaks HTTP/2 when the server's ALPN chooses it (else HTTP/1.1);
// --http1 forces HTTP/1.1, --h2c speaks HTTP/2 to http:// URLs.
type h2Flags struct {
	h2c, http1 bool
	streams    int
	tlsMin     string
}

func (f *h2Flags) define(fs *flag.FlagSet) {
	fs.BoolVar(&f.h2c, "h2c", false, "speak HTTP/2 over cleartext to http:// URLs (prior knowledge)")
	fs.BoolVar(&f.http1, "http1", false, "speak HTTP/1.1 to https:// URLs (default: HTTP/2 when the server's ALPN chooses it)")
	fs.IntVar(&f.streams, "streams", 0, "HTTP/2, HTTP/3 and gRPC: requests one connection carries at once before another opens, up to --connections (default 100 for HTTP/2 and HTTP/3)")
	fs.Var(choiceFlag{&f.tlsMin, []string{"1.2", "1.3"}}, "tls-min", "lowest TLS `version` accepted: 1.2 or 1.3 (default 1.2)")
}

// apply puts the protocol, streams and TLS version into p, after the gRPC flags have set p.TLS.
func (f *h2Flags) apply(p *plan.Plan) error {
	switch {
	case f.h2c && f.http1:
		return usagef("--h2c and --http1: give one of them")
	case f.h2c:
		p.Protocol = transport.H2C
	case f.http1:
		p.Protocol = transport.HTTP1
	}
	p.HTTP.Streams = f.streams
	p.TLS.MinVersion = f.tlsMin
	if !p.TLS.IsZero() {
		if _, err := transport.TLSConfig(p.TLS, false); err != nil {
			return usagef("TLS: %v", err) // a file that cannot be read, or holds no certificate
		}
	}
	return nil
}
