package grpcx_test

import (
	"context"
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/serve/items/rpzpb"
	"github.com/rpcbench/rpcbench/transport"
	"github.com/rpcbench/rpcbench/transport/grpcx"
)

// streamProto describes the streaming test server. In has the field number of
// rpz.GetItemRequest, whose generated type the server reads and writes.
const streamProto = `syntax = "proto3";

package stream;

service Stream {
  // Count answers id "N" with N messages, ids "1" to "N".
  rpc Count(In) returns (stream In);
  // Join answers the messages with one, their ids joined by commas.
  rpc Join(stream In) returns (In);
  // Echo answers each message with itself.
  rpc Echo(stream In) returns (stream In);
  // Abort answers the first message with itself, then ends the stream with status Aborted.
  rpc Abort(stream In) returns (stream In);
  // Hang answers with one message, then never ends the stream.
  rpc Hang(In) returns (stream In);
}

message In {
  string id = 1;
}
`

// streamResolver compiles streamProto from a file of the test.
func streamResolver(t testing.TB) *grpcx.Resolver {
	t.Helper()
	r, err := grpcx.FromProto(context.Background(), nil, writeFile(t, t.TempDir(), "stream.proto", streamProto))
	if err != nil {
		t.Fatalf("FromProto: %v", err)
	}
	return r
}

// newStreamServer serves stream.Stream on loopback; hung gets a value each time Hang has sent its
// message.
func newStreamServer(t testing.TB, hung chan<- struct{}) (string, *grpc.Server) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer(grpc.UnknownServiceHandler(func(_ any, s grpc.ServerStream) error {
		m, _ := grpc.MethodFromServerStream(s)
		recv := func() (*rpzpb.GetItemRequest, error) {
			in := new(rpzpb.GetItemRequest)
			return in, s.RecvMsg(in)
		}
		switch m {
		case "/stream.Stream/Count":
			in, err := recv()
			if err != nil {
				return err
			}
			n, err := strconv.Atoi(in.GetId())
			if err != nil || n > 1000 {
				return status.Error(codes.InvalidArgument, "want a count up to 1000")
			}
			for i := 1; i <= n; i++ {
				if err := s.SendMsg(&rpzpb.GetItemRequest{Id: strconv.Itoa(i)}); err != nil {
					return err
				}
			}
			return nil
		case "/stream.Stream/Hang":
			if _, err := recv(); err != nil {
				return err
			}
			if err := s.SendMsg(&rpzpb.GetItemRequest{Id: "1"}); err != nil {
				return err
			}
			hung <- struct{}{}
			<-s.Context().Done()
			return s.Context().Err()
		case "/stream.Stream/Join":
			var ids []string
			for {
				in, err := recv()
				if errors.Is(err, io.EOF) {
					return s.SendMsg(&rpzpb.GetItemRequest{Id: strings.Join(ids, ",")})
				} else if err != nil {
					return err
				}
				ids = append(ids, in.GetId())
			}
		case "/stream.Stream/Echo", "/stream.Stream/Abort":
			for {
				in, err := recv()
				if errors.Is(err, io.EOF) {
					return nil
				} else if err != nil {
					return err
				}
				if err := s.SendMsg(in); err != nil {
					return err
				}
				if m == "/stream.Stream/Abort" {
					return status.Error(codes.Aborted, "aborted as asked")
				}
			}
		}
		return status.Errorf(codes.Unimplemented, "no method %s", m)
	}))
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(srv.Stop)
	return ln.Addr().String(), srv
}

func TestStreams(t *testing.T) {
	t.Parallel()
	addr, _ := newStreamServer(t, nil)
	res := streamResolver(t)
	tr := newTransport(t, grpcx.Options{Resolver: res, KeepBody: true})
	for _, tc := range []struct {
		name        string
		method      string
		body        string
		class       result.Class
		status      int
		sent, recvd int64
		answers     string // the kept answers, JSON lines
	}{
		// one request, three answers
		{"server-streaming", "Count", `{"id":"3"}`, result.OK, 0, 1, 3, "{\"id\":\"1\"}\n{\"id\":\"2\"}\n{\"id\":\"3\"}\n"},
		// three requests as JSON lines, one answer
		{"client-streaming", "Join", "{\"id\":\"a\"}\n{\"id\":\"b\"}\n{\"id\":\"c\"}\n", result.OK, 0, 3, 1, "{\"id\":\"a,b,c\"}\n"},
		// values spread over lines, each echoed
		{"bidi", "Echo", "{\n \"id\": \"x\"\n}\n{\"id\":\"y\"}", result.OK, 0, 2, 2, "{\"id\":\"x\"}\n{\"id\":\"y\"}\n"},
		// no request message: the server ends the stream at once
		{"bidi, no message", "Echo", "", result.OK, 0, 0, 0, ""},
		// an answer, then status Aborted
		{"aborted", "Abort", "{\"id\":\"1\"}\n{\"id\":\"2\"}\n", result.Status, int(codes.Aborted), -1, 1, "{\"id\":\"1\"}\n"},
		// the server refuses the request
		{"status", "Count", `{"id":"x"}`, result.Status, int(codes.InvalidArgument), 1, 0, ""},
		// a server stream takes one message
		{"two messages to a server stream", "Count", `{"id":"1"}{"id":"2"}`, result.Other, 0, 0, 0, ""},
		// a message that is not an In
		{"bad message", "Join", `{"id":"1"}` + "\n" + `{"nope":1}`, result.Other, 0, 0, 0, ""},
	} {
		var out transport.Outcome
		r := &transport.Request{Scheme: "grpc", Host: addr, Path: []byte("/stream.Stream/" + tc.method), Body: []byte(tc.body)}
		tr.Do(context.Background(), r, &out)
		if out.Class != tc.class || out.Status != tc.status {
			t.Errorf("%s: class %v, status %d (%v); want %v, %d", tc.name, out.Class, out.Status, out.Err, tc.class, tc.status)
		}
		// the aborted stream may end before the second message is sent
		if tc.sent >= 0 && out.MsgsOut != tc.sent || out.MsgsIn != tc.recvd {
			t.Errorf("%s: sent %d, received %d messages; want %d, %d", tc.name, out.MsgsOut, out.MsgsIn, tc.sent, tc.recvd)
		}
		if want := max(tc.recvd-1, 0); int64(len(out.MsgGaps)) != want {
			t.Errorf("%s: %d gaps between answers; want %d", tc.name, len(out.MsgGaps), want)
		}
		if string(out.Body) != tc.answers {
			t.Errorf("%s: answers %q; want %q", tc.name, out.Body, tc.answers)
		}
		if tc.recvd > 0 && (out.FirstByte.Before(out.Sent) || out.FirstByte.IsZero()) {
			t.Errorf("%s: first message at %v, sent at %v; want the first message after the send", tc.name, out.FirstByte, out.Sent)
		}
		if tc.class == result.Other && !strings.Contains(out.Err.Error(), "message") {
			t.Errorf("%s: error %v; want one naming the message at fault", tc.name, out.Err)
		}
	}
}

// A stream the server never ends fails at the call's deadline, class timeout, keeping the message
// that came before; one whose server goes away mid-stream fails class reset.
func TestStreamCutShort(t *testing.T) {
	t.Parallel()
	res := streamResolver(t)
	hung := make(chan struct{}, 1)
	addr, srv := newStreamServer(t, hung)
	r := &transport.Request{Scheme: "grpc", Host: addr, Path: []byte("/stream.Stream/Hang"), Body: []byte(`{"id":"1"}`)}

	tr := newTransport(t, grpcx.Options{Resolver: res, Timeout: 200 * time.Millisecond})
	var out transport.Outcome
	tr.Do(context.Background(), r, &out)
	<-hung
	if out.Class != result.Timeout || out.MsgsIn != 1 {
		t.Errorf("never ended: class %v (%v), %d messages; want timeout after 1", out.Class, out.Err, out.MsgsIn)
	}

	tr = newTransport(t, grpcx.Options{Resolver: res})
	out.Reset()
	done := make(chan struct{})
	go func() {
		defer close(done)
		tr.Do(context.Background(), r, &out)
	}()
	<-hung
	srv.Stop() // closes the connection under the stream
	<-done
	// the message sent before may or may not have reached the client when the connection closed
	if out.Class != result.Reset || out.MsgsIn > 1 {
		t.Errorf("server gone: class %v (%v), %d messages; want reset after at most 1", out.Class, out.Err, out.MsgsIn)
	}
}

// With StreamRate the messages of a bidi call go on a schedule, 1 ms apart at 1000/s: the call
// lasts at least until the last is due (4 ms after the first of 5), and each answer has a latency
// from its message's due time. A client-streaming call is paced alike, without latencies.
func TestStreamRate(t *testing.T) {
	t.Parallel()
	addr, _ := newStreamServer(t, nil)
	res := streamResolver(t)
	tr := newTransport(t, grpcx.Options{Resolver: res, StreamRate: 1000})
	body := []byte(strings.Repeat(`{"id":"1"}`+"\n", 5))
	for _, tc := range []struct {
		method    string
		latencies int
	}{{"Echo", 5}, {"Join", 0}} {
		var out transport.Outcome
		tr.Do(context.Background(), &transport.Request{Scheme: "grpc", Host: addr, Path: []byte("/stream.Stream/" + tc.method), Body: body}, &out)
		took := time.Since(out.Sent)
		if out.Class != result.OK || out.MsgsOut != 5 || len(out.MsgLatencies) != tc.latencies {
			t.Errorf("%s: class %v (%v), %d sent, %d latencies; want ok, 5 sent, %d latencies", tc.method, out.Class, out.Err, out.MsgsOut, len(out.MsgLatencies), tc.latencies)
		}
		if took < 4*time.Millisecond {
			t.Errorf("%s: the call took %v; want at least 4ms, until its last message was due", tc.method, took)
		}
		if tc.latencies == 0 {
			continue
		}
		if len(out.MsgGaps) != 4 || out.FirstByte.IsZero() {
			t.Fatalf("%s: first answer at %v, %d gaps between answers; want a first answer and 4 gaps", tc.method, out.FirstByte, len(out.MsgGaps))
		}
		// Answer k arrived at FirstByte plus the gaps before it; its message was due k ms after
		// Sent: its latency is the one, less the other.
		arrived := out.FirstByte.Sub(out.Sent)
		for k, d := range out.MsgLatencies {
			if k > 0 {
				arrived += out.MsgGaps[k-1]
			}
			if want := arrived - time.Duration(k)*time.Millisecond; d < want-time.Nanosecond || d > want+time.Nanosecond {
				t.Errorf("%s: latency %d is %v; want %v (arrived %v after the start, due at %d ms)", tc.method, k, d, want, arrived, k)
			}
		}
	}
}

// StreamCount and StreamDuration, as ghz's --stream-call-count and --stream-call-duration: a
// client stream sends its count of messages, the body's in turn; a server stream ends after its
// count of answers or its duration, counted answered; a paced stream stops sending at its duration.
// A body that is one JSON array gives a client stream its messages.
func TestStreamCountAndDuration(t *testing.T) {
	t.Parallel()
	addr, _ := newStreamServer(t, make(chan struct{}, 1)) // Hang is called once
	res := streamResolver(t)
	for _, tc := range []struct {
		name        string
		opts        grpcx.Options
		method      string
		body        string
		sent, recvd int64
		answers     string
		atLeast     time.Duration // the call lasts at least this long
	}{
		// 5 messages from a body of 2: a, b, a, b, a
		{"count, client stream", grpcx.Options{StreamCount: 5}, "Join", `{"id":"a"} {"id":"b"}`, 5, 1, "{\"id\":\"a,b,a,b,a\"}\n", 0},
		// the same from ghz's array
		{"count, array", grpcx.Options{StreamCount: 3}, "Join", `[{"id":"a"},{"id":"b"}]`, 3, 1, "{\"id\":\"a,b,a\"}\n", 0},
		// an array of 2 sent once
		{"array", grpcx.Options{}, "Echo", `[{"id":"a"},{"id":"b"}]`, 2, 2, "{\"id\":\"a\"}\n{\"id\":\"b\"}\n", 0},
		// 3 answers of the 100 asked for, then the call ends the stream
		{"count, server stream", grpcx.Options{StreamCount: 3}, "Count", `{"id":"100"}`, 1, 3, "{\"id\":\"1\"}\n{\"id\":\"2\"}\n{\"id\":\"3\"}\n", 0},
		// Hang's one answer, then the stream ended at 100 ms
		{"duration, server stream", grpcx.Options{StreamDuration: 100 * time.Millisecond}, "Hang", `{"id":"1"}`, 1, 1, "{\"id\":\"1\"}\n", 100 * time.Millisecond},
		// at 100/s the messages are due at 0, 10, 20, 30 and 40 ms; the one due at 50 ms is not sent
		{"duration, paced bidi", grpcx.Options{StreamRate: 100, StreamCount: 1000, StreamDuration: 50 * time.Millisecond}, "Echo", `{"id":"x"}`, 5, 5, strings.Repeat("{\"id\":\"x\"}\n", 5), 40 * time.Millisecond},
	} {
		tc.opts.Resolver, tc.opts.KeepBody, tc.opts.Timeout = res, true, 10*time.Second
		tr := newTransport(t, tc.opts)
		var out transport.Outcome
		tr.Do(context.Background(), &transport.Request{Scheme: "grpc", Host: addr, Path: []byte("/stream.Stream/" + tc.method), Body: []byte(tc.body)}, &out)
		took := time.Since(out.Sent)
		if out.Class != result.OK || out.MsgsOut != tc.sent || out.MsgsIn != tc.recvd || string(out.Body) != tc.answers {
			t.Errorf("%s: class %v (%v), sent %d, received %d %q; want ok, %d, %d %q", tc.name, out.Class, out.Err, out.MsgsOut, out.MsgsIn, out.Body, tc.sent, tc.recvd, tc.answers)
		}
		if took < tc.atLeast || took > 5*time.Second {
			t.Errorf("%s: the call took %v; want at least %v, and well within its timeout", tc.name, took, tc.atLeast)
		}
	}
	// a server stream takes one message, not an array of them
	tr := newTransport(t, grpcx.Options{Resolver: res})
	var out transport.Outcome
	tr.Do(context.Background(), &transport.Request{Scheme: "grpc", Host: addr, Path: []byte("/stream.Stream/Count"), Body: []byte(`[{"id":"1"}]`)}, &out)
	if out.Class != result.Other || out.Err == nil || out.Err.Error() != "grpcx: /stream.Stream/Count is server-streaming: it takes one request message, not an array of them" {
		t.Errorf("an array to a server stream: class %v, %v", out.Class, out.Err)
	}
}
