package plan

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/rpcbench/rpcbench/result"
)

// schemeOf returns the scheme of a URL, templates and all: what comes before "://".
func schemeOf(u string) string {
	s, _, ok := strings.Cut(u, "://")
	if !ok {
		return ""
	}
	return s
}

// lowerScheme returns u with its scheme in lower case (HTTP://host/ is taken as curl takes it).
func lowerScheme(u string) string {
	s, rest, ok := strings.Cut(u, "://")
	if !ok || s == strings.ToLower(s) {
		return u
	}
	return strings.ToLower(s) + "://" + rest
}

// basicAuth moves the user-info of u (http://user:pass@host/) into an Authorization header, as
// curl sends it: Basic, the user and password unescaped. A header of that name given already wins;
// the user-info leaves the URL either way, so that it is never sent as part of the host.
func basicAuth(u string, h []result.RequestHeader) (string, []result.RequestHeader) {
	i := strings.Index(u, "://")
	if i < 0 {
		return u, h
	}
	rest := u[i+3:]
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	at := strings.LastIndex(rest[:end], "@")
	if at < 0 || strings.Contains(rest[:at], "{{") {
		return u, h
	}
	info := rest[:at]
	stripped := u[:i+3] + rest[at+1:]
	for _, x := range h {
		if strings.EqualFold(x.Name, "Authorization") {
			return stripped, h
		}
	}
	user, pass, _ := strings.Cut(info, ":")
	if v, err := url.PathUnescape(user); err == nil {
		user = v
	}
	if v, err := url.PathUnescape(pass); err == nil {
		pass = v
	}
	auth := result.RequestHeader{Name: "Authorization", Value: "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))}
	return stripped, append(append([]result.RequestHeader(nil), h...), auth)
}

// defaultProtocol returns the protocol the first endpoint's URL scheme calls for, or "" when it
// has none that a transport serves (Validate says so). A plan whose URLs are all https:// takes h2,
// which speaks HTTP/2 to a server whose ALPN chooses it and HTTP/1.1 to the others, as curl and
// browsers do; one that mixes http:// and https:// takes HTTP/1.1.
// ProtocolOf is the protocol p runs over: its Protocol, or the one its URLs call for when it names
// none (as Normalized fills it in), without normalising the rest of the plan.
func (p Plan) ProtocolOf() result.Proto {
	if p.Protocol != "" {
		return p.Protocol
	}
	return p.defaultProtocol()
}

func (p Plan) defaultProtocol() result.Proto {
	if len(p.Endpoints) == 0 {
		return ""
	}
	proto, err := result.ProtocolFor(schemeOf(p.Endpoints[0].URL))
	if err != nil {
		return ""
	}
	if proto == result.HTTP1 && !slices.ContainsFunc(p.Endpoints, func(e Endpoint) bool { return !strings.EqualFold(schemeOf(e.URL), "https") }) {
		return result.H2
	}
	return proto
}

// validateProtocol checks that the plan's protocol carries every endpoint's URL: one protocol per
// run, so http and ws endpoints do not mix; and WebSocket endpoints share one URL, since a
// connection is opened to one URL and carries every call after.
func (p Plan) validateProtocol() []error {
	proto := p.Protocol
	if proto == "" {
		proto = p.defaultProtocol()
	}
	if proto == "" {
		return nil // the URLs' own checks say what is wrong with the first one
	}
	if !proto.Known() {
		return []error{fmt.Errorf("plan: protocol %q: want http1, h2, h2c, h3, grpc or ws", proto)}
	}
	var errs []error
	if p.HTTP.Streams > 0 && proto != result.H2 && proto != result.H2C && proto != result.H3 && proto != result.GRPC {
		errs = append(errs, fmt.Errorf("plan: streams per connection go with HTTP/2 (h2, h2c), HTTP/3 (h3) and gRPC, not with protocol %s", proto))
	}
	for i, e := range p.Endpoints {
		s := schemeOf(e.URL)
		if s == "" || proto.Serves(s) {
			continue
		}
		if _, err := result.ProtocolFor(s); err != nil {
			continue // a scheme nothing serves: the URL's own check says so
		}
		errs = append(errs, fmt.Errorf("plan: endpoint %d: URL %q: protocol %s does not carry %s:// URLs; one run speaks one protocol: run them apart", i+1, RedactURL(e.URL), proto, s))
	}
	if proto == result.WS && len(errs) == 0 {
		for i, e := range p.Endpoints[1:] {
			if e.URL != p.Endpoints[0].URL {
				errs = append(errs, fmt.Errorf("plan: endpoint %d: WebSocket endpoints must share one URL, got %s and %s; run them apart", i+2, p.Endpoints[0].URL, e.URL))
				break
			}
		}
	}
	return errs
}
