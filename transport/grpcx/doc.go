// Package grpcx is rpcbench's gRPC transport: calls over HTTP/2, plaintext (grpc://) or TLS
// (grpcs://). Unary calls go on rpcbench's own HTTP/2 client (transport/h2, with Options.GRPC): a
// HEADERS frame, the length-prefixed message in one DATA frame, and grpc-status and grpc-message
// read from the trailers (or the headers of a trailers-only answer), mapped to the codes and
// classes grpc-go's calls give; they allocate nothing once the connection is open. Streaming calls
// and server reflection go on grpc-go, and so do unary calls with Options.Client ClientGRPCGo.
//
// A request names its method by its Path, "/package.Service/Method" (ghz's
// "package.Service.Method" is taken too), and carries the request message as JSON in its Body and
// the call's metadata in its Header. A Resolver finds the method's descriptor: from the server's
// reflection service (the default), from .proto files compiled at run time (FromProto) or from a
// protoset (FromProtoset). The JSON is turned into the protobuf message once per distinct body and
// kept marshalled, so a static body costs nothing per call; the calls send those bytes and read
// the answer's bytes as they are (a raw codec), and decode the answer to JSON only when the
// answer's body is kept for checks (Options.KeepBody).
//
// An Outcome's Status is the gRPC status code (0 for OK). A call that fails with a status is of
// class Status with the message "grpc CODE: sample" (`grpc NotFound: items: no item with id "N"`): the
// code, and the server's status message with its numbers blanked out and cut at 80 bytes, so
// reports count failures by code and cause; DeadlineExceeded is a timeout, and a connection refused
// is refused, unsent. A call on a connection whose server allows no stream (MAX_CONCURRENT_STREAMS
// 0) waits for one until its time limit: a timeout, unsent (ErrNoStreams). BytesIn and BytesOut
// count the messages and their 5-byte gRPC prefixes, not the HTTP/2 frames and headers around them.
// A connection's set-up is reported once, by the call that opened it: Connect is the TCP connect,
// TLS the rest of the set-up until the connection was ready (on grpc-go's connections the TLS and
// HTTP/2 handshakes; on the own client's the TLS handshake alone).
package grpcx
