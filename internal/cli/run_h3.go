package cli

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/transport"
	"github.com/rpcbench/rpcbench/transport/h3"
)

// h3Flags is the flag of `run` that speaks HTTP/3 over QUIC to https:// URLs: --http3 always,
// --http3=auto when the server's Alt-Svc offers h3 (one request before the run asks).
type h3Flags struct {
	mode  string // "", "true", "false" or "auto"
	notes []string
}

// h3Mode is --http3's value: a bare --http3 is true; --http3=auto probes.
type h3Mode struct{ v *string }

func (m h3Mode) String() string {
	if m.v == nil {
		return ""
	}
	return *m.v
}

func (m h3Mode) Set(s string) error {
	switch s {
	case "true", "false", "auto":
		*m.v = s
		return nil
	}
	return fmt.Errorf("want --http3 (always), --http3=auto (when the server's Alt-Svc offers h3) or --http3=false, got %q", s)
}

func (m h3Mode) IsBoolFlag() bool { return true }

func (f *h3Flags) define(fs *flag.FlagSet) {
	fs.Var(h3Mode{&f.mode}, "http3", "speak HTTP/3 over QUIC to https:// URLs; =auto: only when the server answers a first request with Alt-Svc: h3")
}

// apply sets p's protocol to h3 for --http3, and for --http3=auto when the origin of p's
// endpoints answers with an Alt-Svc that offers h3, moving the endpoints to the authority it
// names. What it found waits in f.notes for say. It runs after h2's flags, with which --http3 does not go.
func (f *h3Flags) apply(p *plan.Plan, h2 h2Flags) error {
	if f.mode == "" || f.mode == "false" {
		return nil
	}
	switch {
	case h2.h2c:
		return usagef("--http3 and --h2c: give one of them")
	case h2.http1:
		return usagef("--http3 and --http1: give one of them")
	}
	if f.mode == "auto" {
		up, err := f.probe(p)
		if err != nil || !up {
			return err
		}
	}
	p.Protocol = transport.H3
	return nil
}

// say prints the notes of apply on stderr, as cmd's, and, when the run speaks proto h3 (by flag
// or plan file), a warning about UDP buffers too small for QUIC (h3.BufferWarning).
func (f *h3Flags) say(e *env, cmd string, proto transport.Protocol) {
	if proto == transport.H3 {
		if w := h3.BufferWarning(); w != "" {
			f.notes = append(f.notes, w)
		}
	}
	for _, n := range f.notes {
		fmt.Fprintf(e.stderr, "rpcbench %s: %s\n", cmd, n)
	}
	f.notes = nil
}

// probe asks the origin of p's endpoints, with one GET of its root over HTTP/2 or HTTP/1.1,
// whether it offers h3 (Alt-Svc), and if so moves the endpoints to the authority the Alt-Svc
// names and returns true.
func (f *h3Flags) probe(p *plan.Plan) (bool, error) {
	if len(p.Endpoints) == 0 {
		return false, usagef("--http3=auto: no URL to probe")
	}
	origin, err := url.Parse(p.Endpoints[0].URL)
	if err != nil || origin.Scheme != "https" || origin.Host == "" || strings.Contains(origin.Host, "{{") {
		return false, usagef("--http3=auto: it probes the https:// origin of the URLs; %q has none", plan.RedactURL(p.Endpoints[0].URL))
	}
	for _, ep := range p.Endpoints[1:] {
		if u, err := url.Parse(ep.URL); err != nil || u.Scheme != origin.Scheme || u.Host != origin.Host {
			return false, usagef("--http3=auto probes one origin, and the URLs name several (%s, %s): give --http3, or leave it out", origin.Scheme+"://"+origin.Host, plan.RedactURL(ep.URL))
		}
	}
	tc, err := transport.TLSConfig(p.TLS, p.HTTP.Insecure)
	if err != nil {
		return false, usagef("TLS: %v", err)
	}
	timeout := p.HTTP.ConnectTimeout
	if timeout == 0 {
		timeout = 10 * time.Second
	}
	site := origin.Scheme + "://" + origin.Host
	alt, header, err := altSvcH3(site, tc, timeout)
	switch {
	case err != nil:
		f.notes = append(f.notes, fmt.Sprintf("--http3=auto: could not ask %s for its Alt-Svc (%v); this run speaks HTTP/2 or HTTP/1.1, as ALPN chooses", site, err))
		return false, nil
	case alt == "":
		if header == "" {
			header = "none"
		}
		f.notes = append(f.notes, fmt.Sprintf("--http3=auto: %s offers no h3 (Alt-Svc: %s); this run speaks HTTP/2 or HTTP/1.1, as ALPN chooses", site, header))
		return false, nil
	}
	host, port, err := net.SplitHostPort(alt)
	if err != nil {
		return false, fmt.Errorf("--http3=auto: %s answers Alt-Svc: %s, whose h3 authority %q is not host:port", site, header, alt)
	}
	if host == "" {
		host = origin.Hostname()
	}
	to := net.JoinHostPort(host, port)
	if to != origin.Host {
		for i := range p.Endpoints {
			u, _ := url.Parse(p.Endpoints[i].URL)
			u.Host = to
			p.Endpoints[i].URL = u.String()
		}
	}
	f.notes = append(f.notes, fmt.Sprintf("--http3=auto: %s answers Alt-Svc: %s; this run speaks HTTP/3 (h3) to %s over UDP", site, header, to))
	return true, nil
}

// altSvcH3 sends GET site/ and returns the authority of the h3 alternative its Alt-Svc header
// offers ("" when it offers none) and the header as it came.
func altSvcH3(site string, tc *tls.Config, timeout time.Duration) (alt, header string, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, site+"/", nil)
	if err != nil {
		return "", "", err
	}
	tr := &http.Transport{TLSClientConfig: tc, ForceAttemptHTTP2: true}
	defer tr.CloseIdleConnections()
	resp, err := tr.RoundTrip(req)
	if err != nil {
		return "", "", err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	header = strings.Join(resp.Header.Values("Alt-Svc"), ", ")
	alt, err = parseAltSvcH3(header)
	return alt, header, err
}

// parseAltSvcH3 returns the authority of the first h3 alternative of an Alt-Svc header value
// (RFC 7838: `h3=":443"; ma=3600, h2=":443"`), or "" when none is h3 (or the value is "clear").
func parseAltSvcH3(v string) (string, error) {
	for entry := range strings.SplitSeq(v, ",") {
		alt, _, _ := strings.Cut(entry, ";")
		id, authority, ok := strings.Cut(strings.TrimSpace(alt), "=")
		if !ok || strings.TrimSpace(id) != "h3" {
			continue
		}
		authority = strings.TrimSpace(authority)
		if len(authority) < 2 || authority[0] != '"' || authority[len(authority)-1] != '"' {
			return "", errors.New("Alt-Svc h3 alternative " + authority + " is not a quoted authority")
		}
		return authority[1 : len(authority)-1], nil
	}
	return "", nil
}
