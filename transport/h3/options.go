package h3

import (
	"crypto/tls"
	"errors"
	"time"

	"github.com/rpcbench/rpcbench/transport"
)

// Defaults used for the zero values of Options.
const (
	DefaultTimeout        = 30 * time.Second
	DefaultConnectTimeout = 10 * time.Second
	DefaultMaxBody        = 16 << 20 // 16 MiB
	DefaultUserAgent      = "rpcbench"
	// DefaultStreams is how many requests a connection carries at once before another opens:
	// quic-go's default of bidirectional streams a peer may open (MaxIncomingStreams).
	DefaultStreams = 100
)

// Options configure a Transport. The zero value is ready: no cap on connections, DefaultStreams
// requests per connection, the default time limits, certificates verified, bodies discarded.
type Options struct {
	// Timeout bounds a whole request: its connection's set-up and the answer's last byte. 0 means
	// DefaultTimeout.
	Timeout time.Duration
	// ConnectTimeout bounds a connection's set-up: DNS and the QUIC handshake. 0 means
	// DefaultConnectTimeout. Timeout still applies when it is shorter.
	ConnectTimeout time.Duration
	// MaxConns caps the connections open at once, over all hosts; 0 means no cap.
	MaxConns int
	// Streams is how many requests one connection carries at once before another opens; 0 means
	// DefaultStreams.
	Streams int
	// DisableKeepAlive opens a connection for every request and closes it after.
	DisableKeepAlive bool
	// InsecureSkipVerify skips the verification of the server's certificate.
	InsecureSkipVerify bool
	// TLS, when set, is the base of the TLS configuration (cloned; ALPN is set to h3 here).
	TLS *tls.Config
	// KeepBody copies each answer's body into Outcome.Body, reusing its capacity.
	KeepBody bool
	// MaxBody bounds a kept body: a longer answer fails with class too-large. 0 means
	// DefaultMaxBody.
	MaxBody int64
	// UserAgent is sent when the request has no User-Agent header; "" means DefaultUserAgent.
	UserAgent string
}

// Validate returns every problem of o, joined, or nil (see transport.Limits.Check).
func (o *Options) Validate() error {
	return errors.Join(transport.Limits{Timeout: o.Timeout, ConnectTimeout: o.ConnectTimeout, MaxConns: o.MaxConns,
		Streams: o.Streams, MaxBody: o.MaxBody, UserAgent: o.UserAgent}.Check("h3")...)
}

// ErrClosed is the error of a request refused because its Transport was closed.
var ErrClosed = errors.New("h3: transport closed")

// ErrBodyTooLarge is the failure of an answer to be kept that is longer than Options.MaxBody.
var ErrBodyTooLarge = errors.New("h3: answer body too large")
