package cli

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"

	"github.com/rpcbench/rpcbench/serve/items"
)

func init() {
	registerServe(serveKind{
		name:    "items",
		summary: "item API: POST /rpz/items, GET /rpz/items/{id}, and rpz.ItemService over gRPC",
		examples: `  rpcbench serve items
  rpcbench serve items --addr 127.0.0.1:8080 --grpc-addr 127.0.0.1:9090 --payload-bytes 1024
  rpcbench serve items --tls
  rpcbench serve items --addr 127.0.0.1:8443 --h3-addr 127.0.0.1:8443   HTTPS and HTTP/3 on one port number (TCP and UDP)
  rpcbench serve items --cert server.pem --key server-key.pem --no-reflection`,
		flags: itemsFlags,
	})
}

func itemsFlags(fs *flag.FlagSet) func(ctx context.Context, se *serveEnv) error {
	var cfg items.Config
	fs.StringVar(&cfg.GRPCAddr, "grpc-addr", "127.0.0.1:0", "`host:port` of the gRPC service (port 0: any free port)")
	fs.BoolVar(&cfg.TLS, "tls", false, "serve HTTPS and gRPC over TLS with a self-signed certificate for localhost, 127.0.0.1 and ::1 made at start")
	fs.StringVar(&cfg.CertFile, "cert", "", "PEM certificate `file` to serve TLS with (implies --tls; needs --key)")
	fs.StringVar(&cfg.H3Addr, "h3-addr", "", "also serve the HTTP API over HTTP/3 (QUIC) on this UDP `host:port`, offered by Alt-Svc on the HTTPS API (implies --tls)")
	fs.StringVar(&cfg.KeyFile, "key", "", "PEM private key `file` of --cert")
	fs.IntVar(&cfg.PayloadBytes, "payload-bytes", 0, "add a payload of this many `bytes` to every item returned")
	fs.BoolVar(&cfg.NoReflection, "no-reflection", false, "turn off gRPC server reflection (clients then need proto/rpz/items.proto)")
	return func(ctx context.Context, se *serveEnv) error {
		if err := checkItemsFlags(cfg); err != nil {
			return err
		}
		cfg.Addr = se.Addr
		s, err := items.New(cfg, items.WithMiddleware(se.PprofHandler))
		if err != nil {
			return err
		}
		grpcScheme := "grpc"
		if s.CertPEM() != nil {
			grpcScheme = "grpcs"
		}
		reflection := "reflection on"
		if cfg.NoReflection {
			reflection = "reflection off"
		}
		fmt.Fprintf(se.Out, "items listening on %s (POST /rpz/items, GET /rpz/items/{id})\n", s.URL())
		fmt.Fprintf(se.Out, "items listening on %s://%s (rpz.ItemService, %s)\n", grpcScheme, s.GRPCAddr(), reflection)
		if a := s.H3Addr(); a != "" {
			sayH3(se, "items", a, true)
		}
		if se.Pprof {
			fmt.Fprintf(se.Out, "pprof on %s/debug/pprof/\n", s.URL())
		}
		if s.CertPEM() != nil && cfg.CertFile == "" {
			fmt.Fprintln(se.Out, "the certificate is self-signed: clients must trust it or skip verification (rpcbench run --insecure)")
		}
		return untilDone(ctx, s.Shutdown)
	}
}

// checkItemsFlags names the flag of every bad value.
func checkItemsFlags(c items.Config) error {
	var errs []error
	if c.PayloadBytes < 0 || c.PayloadBytes > items.MaxPayloadBytes {
		errs = append(errs, fmt.Errorf("--payload-bytes %d is out of range; want 0 to %d", c.PayloadBytes, items.MaxPayloadBytes))
	}
	switch {
	case (c.CertFile == "") != (c.KeyFile == ""):
		errs = append(errs, errors.New("--cert and --key go together: give both files or neither"))
	case c.CertFile != "":
		// Read them here too, so that a bad file is a usage error that names its flag.
		if _, err := tls.LoadX509KeyPair(c.CertFile, c.KeyFile); err != nil {
			errs = append(errs, fmt.Errorf("--cert %s --key %s: %w (want PEM files of a certificate and its private key)", c.CertFile, c.KeyFile, err))
		}
	}
	if len(errs) > 0 {
		return usageError{errors.Join(errs...).Error()}
	}
	return nil
}
