package cli

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"time"

	"github.com/rpcbench/rpcbench/serve/mesh"
)

func init() {
	registerServe(serveKind{
		name:     "mesh",
		summary:  "a chain of peers A–E calling each other synchronously: the cost of one RPC hop (MeshRPC)",
		examples: meshExamples,
		flags:    meshFlags,
	})
}

const meshExamples = `  # gateway on :8080, peers A–E in this process on loopback ports:
  rpcbench serve mesh --addr 127.0.0.1:8080
  curl -s -X POST http://127.0.0.1:8080/peer/hop -d '{"queue":["A","B","C","D","E"],"limit":1000}'
  curl -s -X POST http://127.0.0.1:8080/staticPeer/hop -d '{"queue":["A","B","C","D","E"],"limit":1000}'

  # each answers as the MeshRPC suite does; times are Unix nanoseconds, Last names the last hop's peer,
  # QueueIdx is the next peer's index, wrapped to the queue's start (limit mod queue length):
  # {"State":{"Start":1558817006608054800,"Current":1558817006641384200,"Last":"E","Queue":["A","B","C","D","E"],
  #  "QueueIdx":0,"Limit":1000,"HopCount":1000,"HopLatency":33329},"Error":null}
  # HopLatency = (Current − Start) / HopCount ns: the round trip by the gateway's clock, per hop.

  # the same over gRPC, deep chains allowed up to 50,000 hops, each chain given up to 2 minutes:
  rpcbench serve mesh --transport grpc --max-limit 50000 --timeout 2m

  # the gateway over gRPC too, for rpcbench run grpc://127.0.0.1:9092/rpcbench.mesh.v1.Gateway/Hop:
  rpcbench serve mesh --transport grpc --addr 127.0.0.1:8092 --grpc-addr 127.0.0.1:9092

  # one process per peer, and a gateway process; every process gets the same --peers and --transport:
  P=A=127.0.0.1:9001,B=127.0.0.1:9002,C=127.0.0.1:9003,D=127.0.0.1:9004,E=127.0.0.1:9005
  for p in A B C D E; do rpcbench serve mesh --transport grpc --peers $P --peer $p & done
  rpcbench serve mesh --transport grpc --peers $P --addr 127.0.0.1:8080`

// meshTransport is the --transport flag.
type meshTransport struct{ t mesh.Transport }

func (m *meshTransport) String() string { return string(m.t) }

func (m *meshTransport) Set(s string) error {
	t, err := mesh.ParseTransport(s)
	if err != nil {
		return err
	}
	m.t = t
	return nil
}

// meshPeers is the --peers flag: the directory.
type meshPeers struct{ peers map[string]string }

func (m *meshPeers) String() string {
	if m == nil || m.peers == nil {
		return ""
	}
	return mesh.FormatPeers(m.peers)
}

func (m *meshPeers) Set(s string) error {
	p, err := mesh.ParsePeers(s)
	if err != nil {
		return err
	}
	m.peers = p
	return nil
}

// meshTimeout is a duration flag that must be ≥ 0.
type meshTimeout struct{ d time.Duration }

func (n *meshTimeout) String() string { return n.d.String() }

func (n *meshTimeout) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("want a duration such as 30s or 2m, got %q", s)
	}
	if d < 0 {
		return fmt.Errorf("want a duration ≥ 0, got %v", d)
	}
	n.d = d
	return nil
}

func meshFlags(fs *flag.FlagSet) func(ctx context.Context, s *serveEnv) error {
	tr := meshTransport{t: mesh.HTTP}
	var peers meshPeers
	var timeout meshTimeout
	maxLimit := minOneFlag(mesh.DefaultMaxLimit)
	var peer, grpcAddr string
	fs.StringVar(&grpcAddr, "grpc-addr", "", "also serve the gateway over gRPC on `host:port` (rpcbench.mesh.v1.Gateway/Hop and /StaticHop, with reflection)")
	fs.Var(&tr, "transport", "how peers call each other (`name`): http (HTTP/1.1, JSON), h2c (HTTP/2 cleartext, JSON) or grpc")
	fs.Var(&peers, "peers", "the peer directory `NAME=HOST:PORT,...`; without --peer: run only the gateway and call these peers")
	fs.StringVar(&peer, "peer", "", "run only the peer `NAME` of --peers, on its address there (or on --addr if given)")
	fs.Var(&timeout, "timeout", "time a whole chain may take (`duration`; 0: 10s + 2ms per hop)")
	fs.Var(&maxLimit, "max-limit", "largest hop limit a request may ask for (`n`); memory grows with it, 30 to 55 KiB per hop")
	return func(ctx context.Context, s *serveEnv) error {
		addrSet := false
		fs.Visit(func(f *flag.Flag) { addrSet = addrSet || f.Name == "addr" })
		cfg := mesh.Config{Transport: tr.t, Timeout: timeout.d, MaxLimit: int(maxLimit), Peers: peers.peers}
		if peer != "" {
			return runMeshPeer(ctx, s, peer, addrSet, cfg)
		}
		if peer != "" && grpcAddr != "" {
			return usagef("--grpc-addr goes with the gateway, not with --peer")
		}
		return runMeshGateway(ctx, s, cfg, grpcAddr)
	}
}

func runMeshGateway(ctx context.Context, s *serveEnv, cfg mesh.Config, grpcAddr string) error {
	m, err := mesh.Listen(s.Addr, cfg, mesh.WithMiddleware(s.PprofHandler))
	if err != nil {
		return err
	}
	var grpcURL string
	if grpcAddr != "" {
		a, err := m.ListenGRPC(grpcAddr)
		if err != nil {
			m.Close()
			return err
		}
		grpcURL = "grpc://" + a
	}
	where := "in this process"
	if m.Peer("A") == nil {
		where = "elsewhere"
	}
	fmt.Fprintf(s.Out, "mesh gateway on %s (transport %s)\n", m.URL(), cfg.Transport)
	if grpcURL != "" {
		fmt.Fprintf(s.Out, "mesh gateway over gRPC on %s (rpcbench.mesh.v1.Gateway/Hop and /StaticHop; reflection on)\n", grpcURL)
	}
	fmt.Fprintf(s.Out, "peers %s: %s\n", where, mesh.FormatPeers(m.Peers()))
	if s.Pprof {
		fmt.Fprintf(s.Out, "pprof on %s/debug/pprof/\n", m.URL())
	}
	fmt.Fprintf(s.Out, "try: curl -s -X POST %s/peer/hop -d '{\"queue\":[\"A\",\"B\",\"C\",\"D\",\"E\"],\"limit\":1000}'\n", m.URL())
	<-ctx.Done()
	return m.Close()
}

func runMeshPeer(ctx context.Context, s *serveEnv, name string, addrSet bool, cfg mesh.Config) error {
	if len(cfg.Peers) == 0 {
		return usagef("--peer %s needs --peers, the directory of every peer (NAME=HOST:PORT,...)", name)
	}
	self, ok := cfg.Peers[name]
	if !ok {
		return usagef("--peer %s: not in --peers (%s)", name, mesh.FormatPeers(cfg.Peers))
	}
	addr := self
	if addrSet {
		addr = s.Addr
	}
	stopPprof, err := s.StartPprof()
	if err != nil {
		return err
	}
	defer stopPprof()
	p, err := mesh.ListenPeer(addr, name, cfg)
	if err != nil {
		return err
	}
	fmt.Fprintf(s.Out, "mesh peer %s on %s (transport %s); peers: %s\n", name, p.Addr(), cfg.Transport, mesh.FormatPeers(cfg.Peers))
	<-ctx.Done()
	err = p.Close()
	fmt.Fprintf(s.Out, "mesh peer %s: %s hops\n", name, strconv.FormatInt(p.Hops(), 10))
	return err
}
