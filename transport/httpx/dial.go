package httpx

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/transport/rawconn"
)

// poolKey names a pool as requests spell it: scheme and authority. Several keys may lead to the same
// pool ("host" and "host:80").
type poolKey struct {
	scheme, host string
}

// hostPool holds the idle connections to one scheme, host and port. Its fields other than idle are
// set when it is made; idle is guarded by the Transport's mutex.
type hostPool struct {
	id   string     // "https://name:port", the pool's canonical name
	name string     // host name or IP literal, without brackets
	port uint16     // TCP port
	ip   netip.Addr // valid when name is an IP literal: no resolution needed
	tls  *tls.Config
	idle []*conn // idle connections, most recently used last
}

// newPool checks scheme and host and returns an empty pool for them.
func (t *Transport) newPool(scheme, host string) (*hostPool, error) {
	var defPort string
	switch scheme {
	case "http", "":
		scheme, defPort = "http", "80"
	case "https":
		defPort = "443"
	default:
		return nil, fmt.Errorf("httpx: unsupported scheme %q; use http or https", scheme)
	}
	name, port, err := splitHostPort(host, defPort)
	if err != nil {
		return nil, err
	}
	p := &hostPool{name: name, port: port, id: scheme + "://" + net.JoinHostPort(name, strconv.Itoa(int(port)))}
	if ip, err := netip.ParseAddr(name); err == nil {
		p.ip = ip
	}
	if scheme == "https" {
		var cfg *tls.Config
		if t.opts.TLSConfig != nil {
			cfg = t.opts.TLSConfig.Clone()
		} else {
			cfg = &tls.Config{}
		}
		if cfg.ServerName == "" {
			cfg.ServerName = name
		}
		if t.opts.InsecureSkipVerify {
			cfg.InsecureSkipVerify = true
		}
		if len(cfg.NextProtos) == 0 {
			cfg.NextProtos = []string{"http/1.1"}
		}
		p.tls = cfg
	}
	return p, nil
}

// splitHostPort splits an authority ("host", "host:port", "[v6]:port") into name and port.
func splitHostPort(host, defPort string) (name string, port uint16, err error) {
	if host == "" {
		return "", 0, fmt.Errorf("httpx: request has no host")
	}
	name, ps := host, defPort
	if strings.HasPrefix(host, "[") {
		end := strings.IndexByte(host, ']')
		if end < 0 {
			return "", 0, fmt.Errorf("httpx: host %q: missing ']' after an IPv6 address", host)
		}
		name = host[1:end]
		switch rest := host[end+1:]; {
		case rest == "":
		case rest[0] == ':':
			ps = rest[1:]
		default:
			return "", 0, fmt.Errorf("httpx: host %q: want [address]:port", host)
		}
	} else if i := strings.LastIndexByte(host, ':'); i >= 0 {
		if strings.IndexByte(host[:i], ':') >= 0 {
			return "", 0, fmt.Errorf("httpx: host %q: put an IPv6 address in brackets, as in [::1]:8080", host)
		}
		name, ps = host[:i], host[i+1:]
	}
	if ps == "" { // "host:" means the default port, as in URLs
		ps = defPort
	}
	n, err := strconv.ParseUint(ps, 10, 16)
	if err != nil || n == 0 || name == "" {
		return "", 0, fmt.Errorf("httpx: host %q: want host or host:port with a port from 1 to 65535", host)
	}
	return name, uint16(n), nil
}

// dial opens a connection to p: resolves its name (timed, unless it is an IP literal), connects to
// the addresses found in order until one accepts, and makes the TLS handshake for https. It is
// bounded by ConnectTimeout and by deadline, the end of the request.
func (t *Transport) dial(ctx context.Context, p *hostPool, deadline time.Time) (*conn, result.ConnEvent, error) {
	var ev result.ConnEvent
	dl := time.Now().Add(t.connectTimeout)
	if deadline.Before(dl) {
		dl = deadline
	}
	ctx, cancel := context.WithDeadline(ctx, dl)
	defer cancel()

	addrs := []netip.Addr{p.ip}
	if !p.ip.IsValid() {
		start := time.Now()
		ips, err := t.resolver.LookupNetIP(ctx, "ip", p.name)
		ev.DNS = max(time.Since(start), 1)
		if err == nil && len(ips) == 0 {
			err = &net.DNSError{Err: "no addresses found", Name: p.name, IsNotFound: true}
		}
		if err != nil {
			ev.Failed = true
			return nil, ev, err
		}
		addrs = ips
	}

	start := time.Now()
	var d net.Dialer
	var nc net.Conn
	var err error
	for _, ip := range addrs {
		nc, err = d.DialContext(ctx, "tcp", netip.AddrPortFrom(ip.Unmap(), p.port).String())
		if err == nil || ctx.Err() != nil {
			break
		}
	}
	ev.Connect = max(time.Since(start), 1)
	if err != nil {
		ev.Failed = true
		return nil, ev, err
	}

	nc = rawconn.Wrap(nc) // reads and writes the scheduler does not see as system calls
	tcp := nc
	if p.tls != nil {
		start := time.Now()
		tc := tls.Client(nc, p.tls)
		err := tc.HandshakeContext(ctx)
		ev.TLS = max(time.Since(start), 1)
		if err != nil {
			_ = nc.Close()
			ev.Failed = true
			return nil, ev, fmt.Errorf("httpx: TLS handshake with %s: %w", p.id, err)
		}
		nc = tc
	}
	return newConn(nc, tcp, p), ev, nil
}
