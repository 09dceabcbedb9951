package h2

import (
	"context"
	"encoding/binary"
	"errors"
	"strings"

	"golang.org/x/net/http2"

	"github.com/rpcbench/rpcbench/transport"
)

// GRPCAnswer is what DoGRPC reads of a gRPC answer besides what an Outcome holds: the fields a
// gRPC client needs to tell the call's status, from the answer's headers or, after its message,
// its trailers (a trailers-only answer has them in its headers).
type GRPCAnswer struct {
	// HTTPStatus is the answer's :status; 0 when no answer came.
	HTTPStatus int
	// GRPC is whether its content-type is application/grpc, alone or with a suffix (+proto).
	GRPC bool
	// Status is the grpc-status; -1 when the answer gave none.
	Status int
	// Message is the grpc-message as sent (percent-encoded), reusing its capacity.
	Message []byte
	// HeadStatus is whether the final answer's headers (not its trailers) held a grpc-status.
	HeadStatus bool
	// Trailers is whether the answer ended with a header block (its trailers, or its headers
	// alone), not with a DATA frame.
	Trailers bool
	// Encoding is the grpc-encoding of the answer's headers, reusing its capacity; empty when
	// absent.
	Encoding []byte
	// BodyLen counts the bytes of the answer's DATA frames: the messages and their 5-byte
	// prefixes.
	BodyLen int64
	// Framing is the first fault of the messages' framing (see Frame), read as a unary call's
	// client reads them: none, the first message or the second.
	Framing Framing

	messages int     // messages begun
	pre      [5]byte // the prefix being read
	preN     int     // its bytes read
	left     int64   // bytes of the message being read not yet come
}

// Framing is a fault in the length-prefixed messages of a unary call's answer.
type Framing struct {
	// Flag is the compressed-flag byte of a message's prefix when not 0: the first message's,
	// else the second's; 0 when neither set it.
	Flag byte
	// Two is whether a second message began after the first had come in full, flag 0.
	Two bool
}

// reset readies a for another answer.
func (a *GRPCAnswer) reset() {
	a.HTTPStatus, a.GRPC, a.Status, a.Message, a.Encoding, a.BodyLen = 0, false, -1, a.Message[:0], a.Encoding[:0], 0
	a.HeadStatus, a.Trailers, a.Framing, a.messages, a.preN, a.left = false, false, Framing{}, 0, 0, 0
}

// Frame walks p, the next bytes of the answer's DATA, through the messages' 5-byte prefixes
// without keeping them, noting in Framing what a unary call's client reading the first two
// messages in turn would stop at. DoGRPC calls it for each DATA frame.
func (a *GRPCAnswer) Frame(p []byte) {
	for len(p) > 0 {
		if a.left > 0 {
			n := min(a.left, int64(len(p)))
			a.left -= n
			p = p[n:]
			continue
		}
		if a.preN == 0 {
			a.messages++
		}
		n := copy(a.pre[a.preN:], p)
		a.preN += n
		p = p[n:]
		if a.preN < len(a.pre) {
			return
		}
		a.preN, a.left = 0, int64(binary.BigEndian.Uint32(a.pre[1:]))
		if a.messages <= 2 && a.Framing == (Framing{}) {
			switch {
			case a.pre[0] != 0:
				a.Framing.Flag = a.pre[0]
			case a.messages == 2:
				a.Framing.Two = true
			}
		}
	}
}

// Messages returns how many messages began in the DATA walked by Frame.
func (a *GRPCAnswer) Messages() int { return a.messages }

// Cut reports whether the DATA walked by Frame ended inside a message or its prefix.
func (a *GRPCAnswer) Cut() bool { return a.preN > 0 || a.left > 0 }

// DoGRPC is Do for a gRPC call, on a Transport made with Options.GRPC: r is the call's POST, its
// Body the length-prefixed message, its Header the metadata and gRPC's own fields (content-type,
// te). It fills out as Do does (out.Status is the HTTP status) and a from the answer's headers and
// trailers. Without Options.GRPC, a gets only HTTPStatus and BodyLen.
func (t *Transport) DoGRPC(ctx context.Context, r *transport.Request, out *transport.Outcome, a *GRPCAnswer) {
	a.reset()
	t.do(ctx, r, out, a)
}

// ErrNoStreamsAllowed matches the error of a request that waited for a stream on a connection
// whose server's SETTINGS allow none (MAX_CONCURRENT_STREAMS 0): it was never sent.
var ErrNoStreamsAllowed = errors.New("h2: the server's SETTINGS allow no streams")

// Is makes a noStreamError of a server that allows no stream match ErrNoStreamsAllowed.
func (e noStreamError) Is(target error) bool { return target == ErrNoStreamsAllowed && e.max == 0 }

// ResetCode returns the error code of a stream the server reset (RST_STREAM), and whether err
// is that.
func ResetCode(err error) (http2.ErrCode, bool) {
	var re resetError
	if errors.As(err, &re) {
		return re.code, true
	}
	return 0, false
}

// grpcField takes one decoded field of an answer's header block for gRPC: grpc-status,
// grpc-message, content-type.
func (h *headerBlock) grpcField(name, value string) {
	switch name {
	case "grpc-status":
		h.grpcStatus = atoi(value)
		if h.grpcStatus < 0 {
			h.grpcStatus = -2 // present, not a number: an unknown code
		}
	case "grpc-message":
		h.grpcMsg = append(h.grpcMsg[:0], value...)
		h.hasMsg = true
	case "grpc-encoding":
		h.grpcEnc = append(h.grpcEnc[:0], value...)
	case "content-type":
		v, _, _ := strings.Cut(value, ";")
		h.grpcType = v == "application/grpc" || strings.HasPrefix(v, "application/grpc+")
	}
}

// grpcAnswer records the gRPC fields of the header block h in st's answer a: the final answer's
// headers, or its trailers. cc.mu is held.
func (h *headerBlock) grpcAnswer(a *GRPCAnswer, final bool) {
	if final {
		a.HTTPStatus, a.GRPC = h.status, h.grpcType
		a.Encoding = append(a.Encoding[:0], h.grpcEnc...)
		a.HeadStatus = h.grpcStatus != -1
	}
	a.Trailers = h.endStream
	if h.grpcStatus != -1 {
		a.Status = h.grpcStatus
	}
	if h.hasMsg {
		a.Message = append(a.Message[:0], h.grpcMsg...)
	}
}

// ErrHandshake matches the error of a connection whose HTTP/2 handshake failed once TCP (and TLS)
// were up: the client preface could not be sent, or the server's SETTINGS not read (the server
// closed the connection before any, say).
var ErrHandshake = errors.New("h2: the HTTP/2 handshake failed")

// handshakeError is the error of a failed HTTP/2 handshake: what failed, and why.
type handshakeError struct {
	what string
	err  error
}

func (e handshakeError) Error() string   { return e.what + ": " + e.err.Error() }
func (e handshakeError) Unwrap() []error { return []error{e.err, ErrHandshake} }
