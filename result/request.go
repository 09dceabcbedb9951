package result

import "time"

// RequestHeader is one request header line (transport.Header). Headers are kept as an ordered list, as they are sent.
type RequestHeader struct {
	Name, Value string
}

// Request is one request ready to send (transport.Request). It is owned by one sender and reused from request to
// request: a Transport reads it during Do and keeps no reference to it afterwards.
type Request struct {
	// Endpoint is the index of the endpoint the request belongs to (0 for a single target).
	Endpoint int
	// Method is the HTTP method ("GET"); transports of other protocols may ignore it.
	Method string
	// Scheme is the URL's scheme: "http", "https", "ws", "wss".
	Scheme string
	// Protocol is how the request travels; the engine sets it from the plan after the source has
	// filled the request. It decides what success is for the answer's status (Proto.Success).
	Protocol Proto
	// Host is the authority: "host" or "host:port", as in a URL.
	Host string
	// Path is the request target: path and query ("/v0/entity?id=42"), never empty ("/").
	Path []byte
	// Header holds the extra header lines, sent in order after Host.
	Header []RequestHeader
	// Body is the request body; nil or empty for none.
	Body []byte
	// SourceState belongs to the plan.Source that fills this Request: its per-sender state (a
	// random generator, the buffers that Path, Header and Body are rendered into), kept from
	// request to request so that rendering allocates nothing. Transports ignore it. Path, Header
	// and Body may point into those buffers: they are valid until the next Fill.
	SourceState any
}

// Outcome is what a Transport reports about one request (transport.Outcome). The engine resets it before each Do.
type Outcome struct {
	// Sent is when the request's first byte was written, after any connection set-up. Zero means
	// that nothing of it was written: a request that failed with Sent zero (a connection refused,
	// a name not resolved) counts as failed before sending, not as sent, and has no service time.
	// A transport that answers without setting it is taken to have sent at the start of Do.
	Sent time.Time
	// FirstByte is when the first byte of the answer arrived; zero when unknown.
	FirstByte time.Time
	// Answered is true when a complete answer arrived, whatever its status.
	Answered bool
	// Status is the answer's status code (HTTP status); 0 when there was no answer.
	Status int
	// Class is OK when the request succeeded; otherwise why it failed.
	Class Class
	// Err gives the failure's detail when Class is not OK.
	Err error
	// BytesIn and BytesOut count the bytes read and written for this request, headers included.
	BytesIn, BytesOut int64
	// MsgsIn and MsgsOut count the messages received and sent by a streaming call (gRPC's
	// server-, client- and bidi-streaming); 0 for other requests.
	MsgsIn, MsgsOut int64
	// MsgLatencies are the latencies of the answers of a bidi call whose messages went on a
	// schedule, each from its message's due time; the transport reuses its capacity.
	MsgLatencies []time.Duration
	// MsgGaps are the times between consecutive answers of a server- or bidi-streaming call; the
	// transport reuses its capacity.
	MsgGaps []time.Duration
	// Conn describes the connection opened for this request, or the attempt that failed
	// (Conn.Failed), when there was one: then Opened is true.
	Conn   ConnEvent
	Opened bool
	// Packets are the QUIC packets the request's connection sent, received and lost since it
	// last reported them (HTTP/3); zero for other protocols.
	Packets QUICPackets
	// Retried counts the times the request was sent again on a new connection because a reused
	// one was closed or reset before any byte of the answer (see httpx); the rest of the Outcome
	// describes the last attempt.
	Retried int
	// RetriedGoAway counts the times the request was sent again on a new connection because the
	// server's GOAWAY said it had not processed it (its stream was above the last one the server
	// takes: HTTP/2's graceful close, e.g. a cap on requests per connection); the rest of the
	// Outcome describes the last attempt.
	RetriedGoAway int
	// Body is the answer's body, when the Transport was asked to keep it (see KeepBody in the
	// transports' options); it is valid until the next Do on the same sender.
	Body []byte
}

// Reset clears o for the next request, keeping the capacity of Body.
func (o *Outcome) Reset() {
	b, ml, mg := o.Body[:0], o.MsgLatencies[:0], o.MsgGaps[:0]
	*o = Outcome{Body: b, MsgLatencies: ml, MsgGaps: mg}
}
