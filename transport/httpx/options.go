package httpx

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"
)

// Defaults used for the zero values of Options.
const (
	DefaultTimeout        = 30 * time.Second
	DefaultConnectTimeout = 10 * time.Second
	DefaultUserAgent      = "rpcbench"
	DefaultMaxBody        = 16 << 20 // 16 MiB
)

// Sizes of each connection's buffers. The status line, chunk size lines and the framing headers of an
// answer must fit in the read buffer; other header lines may be up to 64 KiB.
const (
	readBufferSize  = 4 << 10
	writeBufferSize = 4 << 10
)

// Options configures a Transport. The zero value is ready to use: 30 s per request, 10 s to connect,
// no cap on connections, keep-alive on, certificates verified, bodies read and discarded, User-Agent
// "rpcbench". Apart from TLSConfig and Resolver it is plain data that a report can repeat back. New
// copies it.
type Options struct {
	// Timeout bounds a whole request: waiting for a free connection, connecting, writing and reading
	// the complete answer; on an idle connection taken at once, from the send (Outcome.Sent) to the
	// end of the answer. 0 means DefaultTimeout.
	Timeout time.Duration `json:"timeout"`
	// ConnectTimeout bounds opening a connection: name resolution, TCP connect and TLS handshake.
	// 0 means DefaultConnectTimeout. Timeout still applies when it is shorter.
	ConnectTimeout time.Duration `json:"connect_timeout"`
	// MaxConns caps the connections open at once, over all hosts; a request that finds none free
	// waits for one (within Timeout). 0 means no cap.
	MaxConns int `json:"max_conns"`
	// DisableKeepAlive opens a new connection for every request and sends "Connection: close", to
	// measure connection set-up.
	DisableKeepAlive bool `json:"disable_keep_alive"`
	// InsecureSkipVerify skips the verification of the server's certificate chain and host name.
	InsecureSkipVerify bool `json:"insecure_skip_verify"`
	// TLSConfig, when set, is the base of the TLS configuration of every https connection (it is
	// cloned; ServerName is filled in per host when empty, InsecureSkipVerify is added when set).
	TLSConfig *tls.Config `json:"-"`
	// KeepBody copies each answer's body into Outcome.Body, reusing its capacity; otherwise bodies
	// are read and discarded.
	KeepBody bool `json:"keep_body"`
	// MaxBody bounds a kept body: an answer with a longer one fails with class result.TooLarge
	// (ErrBodyTooLarge) and its connection is closed. 0 means DefaultMaxBody. Without KeepBody,
	// bodies are counted and discarded whatever their length.
	MaxBody int64 `json:"max_body,omitempty"`
	// UserAgent is the User-Agent header sent when the request has none. "" means DefaultUserAgent.
	UserAgent string `json:"user_agent"`
	// Resolver, when set, looks up host names (e.g. one whose Dial reaches a name server of the
	// caller's); nil means net.DefaultResolver.
	Resolver *net.Resolver `json:"-"`
}

// Validate returns every problem of o, joined, or nil.
func (o *Options) Validate() error {
	var errs []error
	if o.Timeout < 0 {
		errs = append(errs, fmt.Errorf("httpx: Timeout %v is negative; use 0 for the default (%v) or a positive duration", o.Timeout, DefaultTimeout))
	}
	if o.ConnectTimeout < 0 {
		errs = append(errs, fmt.Errorf("httpx: ConnectTimeout %v is negative; use 0 for the default (%v) or a positive duration", o.ConnectTimeout, DefaultConnectTimeout))
	}
	if o.MaxBody < 0 {
		errs = append(errs, fmt.Errorf("httpx: MaxBody %d is negative; use 0 for the default (%d bytes) or a positive size", o.MaxBody, DefaultMaxBody))
	}
	if o.MaxConns < 0 {
		errs = append(errs, fmt.Errorf("httpx: MaxConns %d is negative; use 0 for no cap or a positive number", o.MaxConns))
	}
	if strings.ContainsAny(o.UserAgent, "\r\n") {
		errs = append(errs, fmt.Errorf("httpx: UserAgent %q holds a line break; use a single line", o.UserAgent))
	}
	return errors.Join(errs...)
}

// ErrClosed is the error of a request cut short, or refused, because its Transport was closed.
var ErrClosed = errors.New("httpx: transport closed")
