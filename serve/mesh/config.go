package mesh

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// Transport is how the peers (and the gateway, to the first peer) call each other; "" means HTTP.
// Every process of a mesh must use the same one.
type Transport string

// The transports.
const (
	// HTTP is HTTP/1.1 with JSON bodies over a keep-alive pool. An open hop holds a connection of its
	// own, so a deep chain needs as many connections as hops.
	HTTP Transport = "http"
	// H2C is HTTP/2 over cleartext TCP (prior knowledge) with JSON bodies: hops are streams
	// multiplexed on a few connections.
	H2C Transport = "h2c"
	// GRPC is gRPC with the meshpb protocol buffers, multiplexed on one connection per peer.
	GRPC Transport = "grpc"
)

// Transports returns every transport.
func Transports() []Transport { return []Transport{HTTP, H2C, GRPC} }

// ParseTransport turns "http", "h2c" or "grpc" into a Transport.
func ParseTransport(s string) (Transport, error) {
	for _, t := range Transports() {
		if string(t) == s {
			return t, nil
		}
	}
	return "", fmt.Errorf("unknown transport %q; want http, h2c or grpc", s)
}

// Timeouts of a chain when Config.Timeout is zero: BaseTimeout plus PerHopTimeout for every hop of
// the limit, so a deep chain gets time in proportion (10,000 hops: 30s).
const (
	BaseTimeout   = 10 * time.Second
	PerHopTimeout = 2 * time.Millisecond
)

// reserveFiles is how many file descriptors the HTTP/1.1 budget leaves for everything but hop
// connections: listeners, gRPC, log files, the runtime.
const reserveFiles = 128

// Config is how a gateway or a peer behaves. The zero value is ready to use: HTTP/1.1, the default
// timeout and limit, a connection budget read from the process's open-file limit, and (for Start and
// Listen) peers A–E started in the same process. A Config is a plain value, safe to copy and to share;
// nothing keeps a reference to its Peers map.
type Config struct {
	// Peers is the directory: each peer's name and the HOST:PORT it listens on. Every process of a
	// mesh needs the same directory. Empty means, for Start and Listen, five peers A–E started on
	// 127.0.0.1:0 in this process; NewGateway and ServePeer require it.
	Peers map[string]string
	// Transport is how peers call each other; "" means HTTP.
	Transport Transport
	// Timeout bounds a whole chain, from the gateway's start to the answer; 0 means
	// BaseTimeout + PerHopTimeout × limit. The deadline travels with the chain, so every peer gives up
	// at the same instant and the gateway answers 504, saying which timeout passed.
	Timeout time.Duration
	// MaxLimit is the largest hop limit a request may ask for; 0 means DefaultMaxLimit.
	MaxLimit int
	// MaxOpenFiles is the file descriptors the HTTP/1.1 transport may fill with connections; 0 means
	// the process's soft RLIMIT_NOFILE (where the system has one), and a negative value means no
	// budget. A hop that would need a connection beyond it fails with an error that says so, rather
	// than waiting forever for an accept that cannot happen.
	MaxOpenFiles int
}

// Validate reports every problem with c, each naming its field.
func (c Config) Validate() error {
	var errs []error
	if c.Transport != "" {
		if _, err := ParseTransport(string(c.Transport)); err != nil {
			errs = append(errs, fmt.Errorf("mesh: Transport: %v", err))
		}
	}
	if c.Timeout < 0 {
		errs = append(errs, fmt.Errorf("mesh: Timeout: got %v; want > 0 (0 for %v + %v per hop)", c.Timeout, BaseTimeout, PerHopTimeout))
	}
	if len(c.Peers) > 0 {
		if err := checkPeers(c.Peers); err != nil {
			errs = append(errs, fmt.Errorf("mesh: Peers: %v", err))
		}
	}
	if c.MaxLimit < 0 || c.MaxLimit > math.MaxInt32 {
		errs = append(errs, fmt.Errorf("mesh: MaxLimit: got %d; want 1 to %d (0 for %d)", c.MaxLimit, math.MaxInt32, DefaultMaxLimit))
	}
	return errors.Join(errs...)
}

func (c Config) transport() Transport {
	if c.Transport == "" {
		return HTTP
	}
	return c.Transport
}

func (c Config) maxLimit() int {
	if c.MaxLimit == 0 {
		return DefaultMaxLimit
	}
	return c.MaxLimit
}

// ChainTimeout is the time a chain of limit hops may take under c.
func (c Config) ChainTimeout(limit int) time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return BaseTimeout + time.Duration(limit)*PerHopTimeout
}

// timeoutHint explains where a chain's timeout came from, for error messages.
func (c Config) timeoutHint(limit int) string {
	if c.Timeout > 0 {
		return fmt.Sprintf("the configured timeout %v", c.Timeout)
	}
	return fmt.Sprintf("the timeout for %d hops: %v + %v per hop; set a longer one with --timeout", limit, BaseTimeout, PerHopTimeout)
}

// fileBudget resolves MaxOpenFiles: the budget, or 0 for none.
func (c Config) fileBudget() int {
	switch {
	case c.MaxOpenFiles < 0:
		return 0
	case c.MaxOpenFiles > 0:
		return c.MaxOpenFiles
	}
	return openFileLimit()
}
