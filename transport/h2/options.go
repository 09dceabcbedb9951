package h2

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
	// the usual SETTINGS_MAX_CONCURRENT_STREAMS of servers (Go's is 250, nginx's 128).
	DefaultStreams = 100
)

// Options configure a Transport. The zero value is ready: h2 by ALPN over TLS, no cap on
// connections, DefaultStreams requests per connection, the default time limits, certificates
// verified, bodies discarded. Apart from TLS it is plain data that a report can repeat back.
type Options struct {
	// Cleartext speaks h2c: HTTP/2 over TCP with prior knowledge, to http:// URLs. Otherwise
	// https:// URLs are spoken to in h2 when the server's ALPN chooses it, else in HTTP/1.1.
	Cleartext bool `json:"cleartext,omitempty"`
	// Timeout bounds a whole request: the wait for a connection, its set-up, the answer's last
	// byte. 0 means DefaultTimeout.
	Timeout time.Duration `json:"timeout,omitempty"`
	// ConnectTimeout bounds a connection's set-up: DNS, connect, TLS and HTTP/2 handshakes.
	// 0 means DefaultConnectTimeout. Timeout still applies when it is shorter.
	ConnectTimeout time.Duration `json:"connect_timeout,omitempty"`
	// MaxConns caps the connections open at once, over all hosts; a request that finds every
	// connection carrying Streams requests and the cap reached waits. 0 means no cap.
	MaxConns int `json:"max_conns,omitempty"`
	// Streams is how many requests one connection carries at once; 0 means DefaultStreams. A
	// server that allows fewer (its SETTINGS_MAX_CONCURRENT_STREAMS) makes the excess wait on
	// the connection. A connection that fell back to HTTP/1.1 carries one request at a time.
	Streams int `json:"streams,omitempty"`
	// DisableKeepAlive opens a connection for every request and closes it after.
	DisableKeepAlive bool `json:"disable_keep_alive,omitempty"`
	// InsecureSkipVerify skips the verification of the server's certificate.
	InsecureSkipVerify bool `json:"insecure_skip_verify,omitempty"`
	// TLS, when set, is the base of the TLS configuration (cloned; ALPN is set here).
	TLS *tls.Config `json:"-"`
	// KeepBody copies each answer's body into Outcome.Body, reusing its capacity.
	KeepBody bool `json:"keep_body,omitempty"`
	// MaxBody bounds a kept body: a longer answer fails with class too-large. 0 means
	// DefaultMaxBody.
	MaxBody int64 `json:"max_body,omitempty"`
	// GRPC reads gRPC's fields of the answers (grpc-status, grpc-message, content-type) for
	// DoGRPC.
	GRPC bool `json:"grpc,omitempty"`
	// UserAgent is sent when the request has no User-Agent header; "" means DefaultUserAgent.
	UserAgent string `json:"user_agent,omitempty"`
}

// Validate returns every problem of o, joined, or nil (see transport.Limits.Check).
func (o *Options) Validate() error {
	return errors.Join(transport.Limits{Timeout: o.Timeout, ConnectTimeout: o.ConnectTimeout, MaxConns: o.MaxConns,
		Streams: o.Streams, MaxBody: o.MaxBody, UserAgent: o.UserAgent}.Check("h2")...)
}

// ErrClosed is the error of a request cut short, or refused, because its Transport was closed.
var ErrClosed = errors.New("h2: transport closed")

// ErrBodyTooLarge is the error of an answer whose body is longer than MaxBody.
var ErrBodyTooLarge = errors.New("h2: answer body too large")
