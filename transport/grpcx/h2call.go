package grpcx

import (
	"context"
	"crypto/tls"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"net"
	"os"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"golang.org/x/net/http2"
	"google.golang.org/grpc/codes"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/transport"
	"github.com/rpcbench/rpcbench/transport/h2"
)

// The clients a Transport makes its calls with (Options.Client).
const (
	// ClientAuto makes unary calls on rpcbench's own HTTP/2 client (transport/h2) and the rest
	// (streaming calls, server reflection) on grpc-go.
	ClientAuto = "auto"
	// ClientGRPCGo makes every call on grpc-go.
	ClientGRPCGo = "grpc-go"
)

// CheckClient returns an error unless c names a client: "" (ClientAuto), ClientAuto or
// ClientGRPCGo.
func CheckClient(c string) error {
	switch c {
	case "", ClientAuto, ClientGRPCGo:
		return nil
	}
	return fmt.Errorf("gRPC client %q: want %s (unary calls on rpcbench's own HTTP/2 client) or %s", c, ClientAuto, ClientGRPCGo)
}

// h2call is the state of one unary call on the own client, pooled.
type h2call struct {
	req     transport.Request
	hdr     []transport.Header
	ans     h2.GRPCAnswer
	body    []byte // the answer, kept (KeepBody): prefix and message
	scratch []byte // a request message marshalled for this call alone
	msg     []byte // the grpc-message, percent-decoded
}

// ownClient reports whether the unary calls go on the own HTTP/2 client.
func (t *Transport) ownClient() bool { return t.opts.Client != ClientGRPCGo }

// resolved returns the method at r's path on tg, resolving it on first use: by the target's
// Resolver, or by its server's reflection on the connection Prepare opens (opened now if need
// be; its failure is the call's, in out). nil when it could not be resolved for want of a
// connection: out says why.
func (t *Transport) resolved(ctx context.Context, tg *target, r *transport.Request, out *transport.Outcome) *method {
	tg.mu.RLock()
	m := tg.methods[string(r.Path)]
	tg.mu.RUnlock()
	if m != nil {
		return m
	}
	callCtx, cancel := context.WithTimeout(ctx, t.opts.Timeout)
	defer cancel()
	tg.mu.RLock()
	needConn := tg.resolver == nil
	tg.mu.RUnlock()
	cc := tg.prep.cc.Load()
	if needConn && cc == nil {
		var po transport.Outcome
		var err error
		if cc, err = tg.prep.open(callCtx, t, tg.key, &po); err != nil {
			out.Opened, out.Conn = po.Opened, po.Conn
			out.Class, out.Err = classify(ctx, callCtx, err), err
			return nil
		}
	}
	return tg.method(callCtx, cc, r.Path)
}

// callH2 makes the unary call r of m on the own HTTP/2 client of a connection of tg.
func (t *Transport) callH2(ctx context.Context, tg *target, m *method, r *transport.Request, out *transport.Outcome) {
	s := tg.pick(t.opts.Spread)
	s.inflight.Add(1)
	defer s.inflight.Add(-1)
	ht := s.h2.Load()
	if ht == nil {
		var err error
		if ht, err = s.newH2(t, tg.key); err != nil {
			out.Class, out.Err = result.Other, err
			return
		}
	}
	c := t.calls.Get().(*h2call)
	defer t.putCall(c)
	framed, scratch, err := m.body(r.Body, c.scratch[:0], t.opts.MaxBodies)
	c.scratch = scratch
	if err != nil {
		out.Class, out.Err = result.Other, err
		return
	}
	var refused string
	if c.hdr, refused = t.metadata(c.hdr[:0], r.Header); refused != "" {
		out.Status = int(codes.Internal) // as grpc-go refuses it, before sending
		out.Class, out.Err = result.Status, t.statusError(codes.Internal, refused)
		return
	}
	c.req = transport.Request{Method: "POST", Scheme: "http", Host: r.Host, Path: m.wirePath, Header: c.hdr, Body: framed, Protocol: r.Protocol}
	if tg.key.scheme != "grpc" {
		c.req.Scheme = "https"
	}
	js := out.Body
	if t.opts.KeepBody {
		out.Body = c.body[:0]
	}
	ht.DoGRPC(ctx, &c.req, out, &c.ans)
	if t.opts.KeepBody {
		c.body, out.Body = out.Body, js[:0]
	}
	out.Conn.Proto = "" // as grpc-go's calls report it
	t.finishH2(ctx, s, tg.key, m, c, out)
}

// putCall recycles c, keeping no huge buffer for the next call.
func (t *Transport) putCall(c *h2call) {
	if cap(c.body) > 1<<20 {
		c.body = nil
	}
	if cap(c.scratch) > 1<<20 {
		c.scratch = nil
	}
	c.req = transport.Request{}
	clear(c.hdr)
	t.calls.Put(c)
}

// finishH2 fills out, as h2 left it, from the gRPC answer of call c of m.
func (t *Transport) finishH2(ctx context.Context, s *slot, k targetKey, m *method, c *h2call, out *transport.Outcome) {
	a := &c.ans
	if out.Sent.IsZero() {
		out.BytesOut = 0
	} else {
		out.BytesOut = int64(len(c.req.Body))
	}
	if out.Class != result.OK {
		t.failH2(ctx, s, k, c, out)
		return
	}
	out.BytesIn = a.BodyLen
	code, msg := t.answerStatus(c)
	out.Status = int(code)
	if code != codes.OK {
		switch {
		case code == codes.DeadlineExceeded:
			out.Answered = false
			out.Class, out.Err = result.Timeout, CodeError(code)
		default:
			out.Class, out.Err = result.Status, t.statusError(code, msg)
		}
		return
	}
	if !t.opts.KeepBody {
		return
	}
	var err error // the body is one uncompressed message, whole: answerStatus saw its framing
	if out.Body, err = m.decode(c.body[frameHeader:], out.Body[:0]); err != nil {
		out.Class, out.Err = result.Protocol, err
	}
}

// answerStatus returns the status of an answer that came in full: its grpc-status and
// grpc-message (percent-decoded, valid until c's next use), or what stands for them in an answer
// that is not gRPC's or whose messages are not framed as gRPC's, as grpc-go tells them (in the
// order it reads them: headers, the first two messages, then the trailers).
func (t *Transport) answerStatus(c *h2call) (codes.Code, string) {
	a := &c.ans
	switch {
	case !a.GRPC || a.HTTPStatus != 200 && !a.HeadStatus:
		code := httpCode(a.HTTPStatus)
		if a.HTTPStatus == 200 {
			return code, "not a gRPC answer: no application/grpc content-type"
		}
		return code, "not a gRPC answer: HTTP status " + strconv.Itoa(a.HTTPStatus)
	}
	if m := framingFault(a); m != "" {
		return codes.Internal, m
	}
	switch {
	case a.Status == -1 && !a.Trailers:
		return codes.Internal, "server closed the stream without sending trailers"
	case a.Status == -1:
		return codes.Unknown, ""
	case a.Status < 0:
		return codes.Unknown, "a grpc-status that is not a number"
	case a.Status == 0 && a.Messages() == 0:
		return codes.Internal, "the server sent no message"
	}
	c.msg = percentDecode(c.msg[:0], a.Message)
	return codes.Code(a.Status), unsafe.String(unsafe.SliceData(c.msg), len(c.msg))
}

// framingFault is grpc-go's message for the first fault it meets reading the first two messages
// of answer a, as a unary call reads them; "" when there is none.
func framingFault(a *h2.GRPCAnswer) string {
	switch f := a.Framing; {
	case f.Flag == 1 && (len(a.Encoding) == 0 || string(a.Encoding) == "identity"):
		return "grpc: compressed flag set with identity or empty encoding"
	case f.Flag == 1: // rpcbench installs no decompressor, nor asks for compression
		return "grpc: Decompressor is not installed for grpc-encoding " + strconv.Quote(string(a.Encoding))
	case f.Flag != 0:
		return "grpc: received unexpected payload format " + strconv.Itoa(int(f.Flag))
	case a.Cut() && a.Messages() <= 2:
		return "unexpected EOF"
	case f.Two:
		return "cardinality violation: expected <EOF> for non server-streaming RPCs, but received another message"
	}
	return ""
}

// httpCode is the gRPC code of an answer with HTTP status s that is not gRPC's, as gRPC's
// specification maps them.
func httpCode(s int) codes.Code {
	switch s {
	case 400:
		return codes.Internal
	case 401:
		return codes.Unauthenticated
	case 403:
		return codes.PermissionDenied
	case 404:
		return codes.Unimplemented
	case 429, 502, 503, 504:
		return codes.Unavailable
	}
	return codes.Unknown
}

// percentDecode appends s, percent-decoded as grpc-message is, to dst: a '%' not followed by two
// hex digits stays as it is.
func percentDecode(dst, s []byte) []byte {
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if h, l := unhex(s[i+1]), unhex(s[i+2]); h >= 0 && l >= 0 {
				dst = append(dst, byte(h<<4|l))
				i += 2
				continue
			}
		}
		dst = append(dst, s[i])
	}
	return dst
}

func unhex(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// failH2 fills out from a call the own client did not see answered in full: h2's class and error,
// told as grpc-go's calls tell them.
func (t *Transport) failH2(ctx context.Context, s *slot, k targetKey, c *h2call, out *transport.Outcome) {
	err := out.Err
	switch {
	case errors.Is(err, h2.ErrNoStreamsAllowed):
		out.Sent, out.BytesOut = time.Time{}, 0
		out.Class, out.Err = result.Timeout, ErrNoStreams
	case out.Class == result.Timeout && !out.Sent.IsZero():
		out.Status = int(codes.DeadlineExceeded)
		out.Class, out.Err = result.Timeout, CodeError(codes.DeadlineExceeded)
	case out.Class == result.TooLarge:
		out.Answered, out.Status, out.BytesIn = false, 0, 0
		out.Err = fmt.Errorf("%w (%d bytes)", ErrAnswerTooLarge, t.opts.MaxBody)
		if b := c.body; len(b) >= frameHeader { // its first bytes, kept: the prefix gives its length
			out.Err = fmt.Errorf("%w (%d bytes): an answer of %d bytes", ErrAnswerTooLarge, t.opts.MaxBody, binary.BigEndian.Uint32(b[1:frameHeader]))
		}
	case out.Class == result.Canceled:
	default:
		if code, ok := h2.ResetCode(err); ok && code != http2.ErrCodeRefusedStream {
			c := resetCode(code)
			if c == codes.Canceled && !time.Now().Before(out.Sent.Add(t.opts.Timeout)) {
				// the server's deadline, grpc-timeout, reset it: the call's own has passed too (as
				// grpc-go tells it)
				out.Status = int(codes.DeadlineExceeded)
				out.Class, out.Err = result.Timeout, CodeError(codes.DeadlineExceeded)
				return
			}
			out.Answered, out.Status = true, int(c)
			out.Class, out.Err = result.Status, t.statusError(c, "the server reset the stream: "+code.String())
			return
		}
		if out.Opened && out.Conn.Failed {
			t.connFailed(ctx, s, k, out)
		}
		if out.Class == result.Reset || out.Class == result.Refused {
			out.Status = int(codes.Unavailable) // as grpc-go tells a connection lost or refused
		}
	}
}

// resetCode is the gRPC code of a stream the server reset with code, as grpc-go tells it.
func resetCode(code http2.ErrCode) codes.Code {
	switch code {
	case http2.ErrCodeFlowControl, http2.ErrCodeEnhanceYourCalm:
		return codes.ResourceExhausted
	case http2.ErrCodeRefusedStream:
		return codes.Unavailable
	case http2.ErrCodeCancel:
		return codes.Canceled
	case http2.ErrCodeInadequateSecurity:
		return codes.PermissionDenied
	}
	return codes.Internal
}

// connFailed says why the connection the call opened failed, where the own client's error does
// not: a TLS server spoken to in plaintext, a client certificate the server wanted.
func (t *Transport) connFailed(ctx context.Context, s *slot, k targetKey, out *transport.Outcome) {
	err := out.Err
	if out.Class == result.Timeout || out.Class == result.Canceled || isTimeout(err) {
		return // the client's own deadline or the run's end: nothing the server did
	}
	isTLS := k.scheme != "grpc"
	w := watchConn{s: s, tls: isTLS, hasCert: s.hasCert.Load()}
	switch {
	case errors.Is(err, h2.ErrHandshake):
		err = w.firstReadErr(err)
	case isTLS:
		err = tlsAlert(err, w.hasCert)
	}
	if err == out.Err {
		return
	}
	out.Err = err
	if !isTLS && errors.Is(err, errBeforeSettings) && speaksTLS(ctx, k.host, t.opts.ConnectTimeout) {
		out.Class, out.Err = result.TLS, ErrServerTLS
		return
	}
	if c := transport.Classify(err); c != result.Other {
		out.Class = c
	}
}

// metadata appends to dst gRPC's header fields and the call's metadata md: names lower-cased by
// h2, the fields grpc-go reserves for itself dropped as it drops them (user-agent too: h2 sends
// its own), binary values (-bin) base64-encoded. As grpc-go does, it refuses metadata whose name,
// lower-cased, holds a byte outside [0-9a-z-_.], or whose value (not -bin) a byte outside
// printable ASCII: refused is grpc-go's words for it, else "".
func (t *Transport) metadata(dst, md []transport.Header) (_ []transport.Header, refused string) {
	dst = append(dst, t.fixed...)
	for _, h := range md {
		if m := invalidMetadata(h); m != "" {
			return dst, m
		}
	}
	for _, h := range md {
		switch {
		case reserved(h.Name):
		case len(h.Name) > 4 && strings.EqualFold(h.Name[len(h.Name)-4:], "-bin"):
			dst = append(dst, transport.Header{Name: h.Name, Value: base64.RawStdEncoding.EncodeToString([]byte(h.Value))})
		default:
			dst = append(dst, h)
		}
	}
	return dst, ""
}

// invalidMetadata is grpc-go's message refusing the metadata h, "" when it takes it: see
// metadata.
func invalidMetadata(h transport.Header) string {
	switch {
	case h.Name == "":
		return "there is an empty key in the header"
	case h.Name[0] == ':':
		return "" // a pseudo-header: reserved, dropped
	}
	for i := range len(h.Name) {
		c := h.Name[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '.' || c == '-' || c == '_') {
			return fmt.Sprintf("header key %q contains illegal characters not in [0-9a-z-_.]", strings.ToLower(h.Name))
		}
	}
	if len(h.Name) > 4 && strings.EqualFold(h.Name[len(h.Name)-4:], "-bin") {
		return ""
	}
	for i := range len(h.Value) {
		if h.Value[i] < 0x20 || h.Value[i] > 0x7e {
			return fmt.Sprintf("header key %q contains value with non-printable ASCII characters", strings.ToLower(h.Name))
		}
	}
	return ""
}

// reserved reports whether name is a header field gRPC keeps for itself, which grpc-go (v1.85)
// does not send from a call's metadata: a pseudo-header, or one of its list.
func reserved(name string) bool {
	if name != "" && name[0] == ':' {
		return true
	}
	for _, r := range [...]string{"content-type", "user-agent", "grpc-message-type", "grpc-encoding", "grpc-message",
		"grpc-status", "grpc-timeout", "te"} {
		if len(name) == len(r) && strings.EqualFold(name, r) {
			return true
		}
	}
	return false
}

// fixedHeaders are gRPC's own header fields of every call: its content type, the trailers it
// waits for, and its deadline, the Timeout (grpc-timeout).
func fixedHeaders(timeout time.Duration) []transport.Header {
	return []transport.Header{{Name: "content-type", Value: "application/grpc"}, {Name: "te", Value: "trailers"}, {Name: "grpc-timeout", Value: grpcTimeout(timeout)}}
}

// grpcTimeout encodes d as gRPC's specification says: at most 8 digits and a unit, the smallest
// unit (n, u, m, S, M, H) whose count fits, rounded up so that the server never waits less.
func grpcTimeout(d time.Duration) string {
	if d <= 0 {
		return "0n"
	}
	const most = 1e8 - 1
	for _, u := range [...]struct {
		d    time.Duration
		unit string
	}{{time.Nanosecond, "n"}, {time.Microsecond, "u"}, {time.Millisecond, "m"}, {time.Second, "S"}, {time.Minute, "M"}} {
		if n := ceilDiv(d, u.d); n <= most {
			return strconv.FormatInt(n, 10) + u.unit
		}
	}
	return strconv.FormatInt(ceilDiv(d, time.Hour), 10) + "H"
}

// ceilDiv is d/u rounded up.
func ceilDiv(d, u time.Duration) int64 {
	if d%u != 0 {
		return int64(d/u) + 1
	}
	return int64(d / u)
}

// isTimeout reports whether err is a deadline's or a context's: the client's own doing.
func isTimeout(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) || errors.Is(err, os.ErrDeadlineExceeded)
}

// newH2 makes s's own HTTP/2 client for the server of k: one connection, opened by the first
// call, carrying as many calls at once as the server allows.
func (s *slot) newH2(t *Transport, k targetKey) (*h2.Transport, error) {
	o := h2.Options{
		Cleartext:      k.scheme == "grpc",
		Timeout:        t.opts.Timeout,
		ConnectTimeout: t.opts.ConnectTimeout,
		MaxConns:       1,
		Streams:        math.MaxInt32,
		KeepBody:       t.opts.KeepBody,
		MaxBody:        t.opts.MaxBody + frameHeader,
		GRPC:           true,
	}
	if !o.Cleartext {
		c, hasCert := s.tlsConfig(t, k)
		o.TLS, o.InsecureSkipVerify = c, c.InsecureSkipVerify
		s.hasCert.Store(hasCert)
	}
	ht, err := h2.New(o)
	if err != nil {
		return nil, fmt.Errorf("grpcx: %w", err)
	}
	if !s.h2.CompareAndSwap(nil, ht) {
		_ = ht.Close() // another call made one first; this one opened nothing
		return s.h2.Load(), nil
	}
	if t.closed.Load() { // Close ran meanwhile and did not see ht
		_ = ht.Close()
	}
	return ht, nil
}

// tlsConfig returns the TLS settings of s's connections to k's server, and whether they give a
// client certificate; without one, a server's request for it is noted in s (certAsked).
func (s *slot) tlsConfig(t *Transport, k targetKey) (*tls.Config, bool) {
	host, _, err := net.SplitHostPort(k.host)
	if err != nil {
		host = k.host
	}
	c := &tls.Config{}
	if t.opts.TLS != nil {
		c = t.opts.TLS.Clone()
	}
	if c.ServerName == "" {
		c.ServerName = host
	}
	c.InsecureSkipVerify = c.InsecureSkipVerify || t.opts.InsecureSkipVerify //nolint:gosec // the user asked
	hasCert := len(c.Certificates) > 0 || c.GetClientCertificate != nil
	s.certAsked.Store(false)
	if !hasCert {
		c.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
			s.certAsked.Store(true)
			return &tls.Certificate{}, nil // none: as crypto/tls does without certificates
		}
	}
	return c, hasCert
}
