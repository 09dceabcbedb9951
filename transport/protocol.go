package transport

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rpcbench/rpcbench/result"
)

// Protocol names how requests travel; see result.Proto, where the protocols, their URL schemes
// and their status words are defined for every package, the reports' included.
type Protocol = result.Proto

// The protocols rpcbench knows. A protocol is usable once a package has registered a Maker for it
// (transport/protocols registers every one this module has).
const (
	HTTP1 = result.HTTP1 // HTTP/1.1 over TCP or TLS: http://, https://
	H2    = result.H2    // HTTP/2 over TLS, chosen by ALPN: https://
	H2C   = result.H2C   // HTTP/2 over cleartext TCP, with prior knowledge: http://
	GRPC  = result.GRPC  // gRPC over HTTP/2: grpc://, grpcs://
	WS    = result.WS    // JSON-RPC messages over WebSocket: ws://, wss://
	H3    = result.H3    // HTTP/3 over QUIC: https://
)

// ErrNoTransport is returned for a protocol or URL scheme that no transport serves.
var ErrNoTransport = result.ErrNoTransport

// ProtocolFor returns the protocol a URL scheme calls for by default (result.ProtocolFor).
func ProtocolFor(scheme string) (Protocol, error) { return result.ProtocolFor(scheme) }

// SuccessName reports whether a status named by Protocol.StatusName is a success when the user has
// not said otherwise (result.SuccessName).
func SuccessName(name string) bool { return result.SuccessName(name) }

// Config is what a transport is made from, whatever its protocol: the plan's time limits,
// connections and TLS settings.
type Config struct {
	// Timeout bounds one whole request; ConnectTimeout a connection's set-up.
	Timeout, ConnectTimeout time.Duration
	// Conns is the number of connections of the closed model, or the cap of connections (and of
	// requests in flight) of the open model.
	Conns int
	// Open is true in the open model: a transport that multiplexes opens only the connections the
	// requests in flight need, up to Conns.
	Open bool
	// DisableKeepAlive opens a connection per request, where the protocol allows.
	DisableKeepAlive bool
	// InsecureSkipVerify skips the verification of the server's certificate.
	InsecureSkipVerify bool
	// TLS names the PEM files, the server name and the lowest version of TLS connections (see
	// TLSFiles), whatever the protocol.
	TLS TLSFiles
	// Streams caps the requests one HTTP/2 connection carries at once (h2, h2c) or, for gRPC,
	// the calls per connection before another opens; 0 means the transport's default.
	Streams int
	// StreamRate paces the messages of gRPC client- and bidi-streaming calls, per second; 0: as
	// fast as the stream takes them.
	StreamRate float64
	// StreamCount and StreamDuration bound gRPC streaming calls as ghz's --stream-call-count and
	// --stream-call-duration do (see grpcx.Options); 0: no bound.
	StreamCount    int
	StreamDuration time.Duration
	// GRPCClient is what makes gRPC's unary calls: "auto" ("" too) rpcbench's own HTTP/2 client,
	// "grpc-go" grpc-go (see grpcx.Options.Client).
	GRPCClient string
	// KeepBody keeps each answer's body in Outcome.Body, for a verifier.
	KeepBody bool
	// MaxBody bounds a kept body, in bytes; a longer answer fails (class too-large where the
	// protocol can tell). 0 means the transport's default.
	MaxBody int64
	// ProtoFiles, with ImportPaths, or else Protoset describe gRPC's methods; without either the
	// gRPC transport asks the server's reflection service.
	ProtoFiles, ImportPaths []string
	Protoset                string
}

// Maker makes a transport of one protocol from c.
type Maker func(c Config) (Transport, error)

var (
	makersMu sync.RWMutex
	makers   = map[Protocol]Maker{}
)

// Register makes m the maker of protocol p's transports. A protocol's package registers itself when
// it is imported (see transport/protocols); registering p twice, or an unknown p, panics, as
// registering a database driver twice does.
func Register(p Protocol, m Maker) {
	makersMu.Lock()
	defer makersMu.Unlock()
	if !p.Known() {
		panic(fmt.Sprintf("transport: Register of unknown protocol %q", p))
	}
	if _, dup := makers[p]; dup {
		panic(fmt.Sprintf("transport: Register called twice for protocol %q", p))
	}
	makers[p] = m
}

// New makes a transport of protocol p from c. It fails with ErrNoTransport when no package has
// registered p.
func New(p Protocol, c Config) (Transport, error) {
	makersMu.RLock()
	m := makers[p]
	var have []string
	if m == nil {
		for q := range makers {
			have = append(have, string(q))
		}
	}
	makersMu.RUnlock()
	if m == nil {
		slices.Sort(have)
		return nil, fmt.Errorf("%w for protocol %q (this build has %s)", ErrNoTransport, p, strings.Join(have, ", "))
	}
	return m(c)
}
