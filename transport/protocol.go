package transport

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// Protocol names how requests travel. A plan names one (or takes the default of its URLs'
// scheme); the engine makes the transport registered for it.
type Protocol string

// The protocols rpcbench knows. A protocol is usable once a package has registered a Maker for it
// (transport/protocols registers every one this module has).
const (
	HTTP1 Protocol = "http1" // HTTP/1.1 over TCP or TLS: http://, https://
	H2    Protocol = "h2"    // HTTP/2 over TLS, chosen by ALPN: https://
	H2C   Protocol = "h2c"   // HTTP/2 over cleartext TCP, with prior knowledge: http://
	GRPC  Protocol = "grpc"  // gRPC over HTTP/2: grpc://, grpcs://
	WS    Protocol = "ws"    // JSON-RPC messages over WebSocket: ws://, wss://
)

// protocols holds what each protocol is: the URL schemes it serves, whether it is their default
// protocol, and whether its answers carry HTTP status codes.
var protocols = []struct {
	p       Protocol
	schemes []string
	def     bool
	http    bool
}{
	{HTTP1, []string{"http", "https"}, true, true},
	{H2, []string{"https"}, false, true},
	{H2C, []string{"http"}, false, true},
	{GRPC, []string{"grpc", "grpcs"}, true, false},
	{WS, []string{"ws", "wss"}, true, false},
}

// ErrNoTransport is returned for a protocol or URL scheme that no transport serves.
var ErrNoTransport = errors.New("no transport")

// ProtocolFor returns the protocol a URL scheme calls for by default: HTTP/1.1 for http and https,
// WebSocket for ws and wss, gRPC for grpc and grpcs. The scheme is matched without regard to case.
func ProtocolFor(scheme string) (Protocol, error) {
	s := strings.ToLower(scheme)
	for _, d := range protocols {
		if d.def && slices.Contains(d.schemes, s) {
			return d.p, nil
		}
	}
	return "", fmt.Errorf("%w for scheme %q: want http, https, ws, wss, grpc or grpcs", ErrNoTransport, scheme)
}

// Serves reports whether p can carry requests to URLs of scheme (h2 only https, h2c only http).
func (p Protocol) Serves(scheme string) bool {
	for _, d := range protocols {
		if d.p == p {
			return slices.Contains(d.schemes, strings.ToLower(scheme))
		}
	}
	return false
}

// Known reports whether p is one of the protocols above.
func (p Protocol) Known() bool {
	for _, d := range protocols {
		if d.p == p {
			return true
		}
	}
	return false
}

// HTTPStatus reports whether answers of p carry HTTP status codes, which a user may judge
// (--expect-status): HTTP/1.1 and HTTP/2 do; a WebSocket message carries the 101 of its
// connection's upgrade, a gRPC call its own status code.
func (p Protocol) HTTPStatus() bool {
	for _, d := range protocols {
		if d.p == p {
			return d.http
		}
	}
	return false
}

// Success reports whether an answer of p with the given status is a success when the user has not
// said otherwise: an HTTP 2xx or 3xx (as wrk and vegeta count them); for WebSocket, every message
// that arrived (its status is its connection's 101); for gRPC, status 0 (OK).
func (p Protocol) Success(status int) bool {
	switch p {
	case WS:
		return status == 101
	case GRPC:
		return status == 0
	}
	return status >= 200 && status < 400
}

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
