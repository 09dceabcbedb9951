package grpcx_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/internal/faults"
	"github.com/rpcbench/rpcbench/internal/testnet"
	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/serve/items"
	"github.com/rpcbench/rpcbench/transport"
	"github.com/rpcbench/rpcbench/transport/grpcx"
)

func TestReflectionItems(t *testing.T) {
	t.Parallel()
	clients(t, func(t *testing.T, client string) {
		s := newItems(t, items.Config{})
		tr := newTransport(t, grpcx.Options{Client: client, KeepBody: true})

		out := do(t, tr, request("grpc", s.GRPCAddr(), "/rpz.ItemService/CreateItem", `{"id":"a1","name":"gear"}`))
		if out.Class != result.OK || out.Status != 0 || !out.Answered || out.Err != nil {
			t.Fatalf("CreateItem: got class %v status %d answered %v err %v; want ok 0 true nil", out.Class, out.Status, out.Answered, out.Err)
		}
		if out.Sent.IsZero() || !out.Opened || out.Conn.Failed || out.Conn.Connect <= 0 {
			t.Errorf("CreateItem: got Sent %v Opened %v Conn %+v; want a send on a connection opened for it", out.Sent, out.Opened, out.Conn)
		}
		var item struct{ ID, Name string }
		if err := json.Unmarshal(out.Body, &item); err != nil || item.ID != "a1" || item.Name != "gear" {
			t.Errorf("CreateItem body %s (%v); want id a1, name gear", out.Body, err)
		}
		// "id":"a1" (2+2 bytes) and "name":"gear" (2+4 bytes), behind the 5-byte prefix.
		if out.BytesOut != 15 {
			t.Errorf("BytesOut: got %d; want 15", out.BytesOut)
		}
		if got, err := s.Len(), error(nil); got != 1 {
			t.Errorf("items stored: got %d (%v); want 1", got, err)
		}

		// ghz's spelling of the name, and a missing item: counted as NotFound.
		out = do(t, tr, request("grpc", s.GRPCAddr(), "rpz.ItemService.GetItem", `{"id":"nope"}`))
		if out.Class != result.Status || out.Status != 5 || !out.Answered || out.Opened {
			t.Fatalf("GetItem of a missing id: got class %v status %d answered %v opened %v (%v); want status 5, answered, on the open connection",
				out.Class, out.Status, out.Answered, out.Opened, out.Err)
		}
		if x, ok := out.Err.(result.Exact); !ok || x != `grpc NotFound: items: no item with id "nope"` {
			t.Errorf("GetItem err: got %#v; want result.Exact(`grpc NotFound: items: no item with id \"nope\"`)", out.Err)
		}
		if transport.GRPC.Success(out.Status) {
			t.Errorf("status %d counted as a success", out.Status)
		}
	})
}

func TestProtoFileWithoutReflection(t *testing.T) {
	t.Parallel()
	clients(t, func(t *testing.T, client string) {
		s := newItems(t, items.Config{NoReflection: true})
		dir := t.TempDir()
		p := writeFile(t, dir, "items.proto", `syntax = "proto3";
package rpz;
import "google/protobuf/timestamp.proto";
service ItemService {
  rpc CreateItem(CreateItemRequest) returns (Item);
  rpc GetItem(GetItemRequest) returns (Item);
}
message CreateItemRequest { string id = 1; string name = 2; }
message GetItemRequest { string id = 1; }
message Item { string id = 1; string name = 2; google.protobuf.Timestamp timestamp = 3; bytes payload = 4; }
`)
		// Without the file, reflection is asked, and the server has none.
		bare := newTransport(t, grpcx.Options{Client: client})
		out := do(t, bare, request("grpc", s.GRPCAddr(), "/rpz.ItemService/GetItem", `{"id":"x"}`))
		if out.Class != result.Other || !out.Sent.IsZero() || out.Err == nil || !strings.Contains(out.Err.Error(), "no reflection service") {
			t.Errorf("without reflection: got class %v sent %v err %v; want other, unsent, \"no reflection service\"", out.Class, out.Sent, out.Err)
		}

		r, err := grpcx.FromProto(context.Background(), []string{dir}, p)
		if err != nil {
			t.Fatalf("FromProto: %v", err)
		}
		tr := newTransport(t, grpcx.Options{Client: client, Resolver: r, KeepBody: true})
		if out := do(t, tr, request("grpc", s.GRPCAddr(), "/rpz.ItemService/CreateItem", `{"id":"p1","name":"from proto"}`)); out.Class != result.OK {
			t.Fatalf("CreateItem: got class %v (%v); want ok", out.Class, out.Err)
		}
		out = do(t, tr, request("grpc", s.GRPCAddr(), "/rpz.ItemService/GetItem", `{"id":"p1"}`))
		if out.Class != result.OK || !strings.Contains(string(out.Body), `"name":"from proto"`) {
			t.Errorf("GetItem: got class %v body %s (%v); want ok with the name", out.Class, out.Body, out.Err)
		}
		out = do(t, tr, request("grpc", s.GRPCAddr(), "/rpz.ItemService/GetItem", `{"idd":"p1"}`))
		if out.Class != result.Other || !out.Sent.IsZero() || !strings.Contains(out.Err.Error(), "rpz.GetItemRequest") {
			t.Errorf("a body with an unknown field: got class %v sent %v err %v; want other, unsent, naming rpz.GetItemRequest", out.Class, out.Sent, out.Err)
		}
	})
}

func TestBadProto(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// The statement of line 4 lacks its ';': the parser stops at the '}' of line 5, column 1.
	p := writeFile(t, dir, "bad.proto", "syntax = \"proto3\";\npackage bad;\nmessage M {\n  string id = 1\n}\n")
	_, err := grpcx.FromProto(context.Background(), nil, p)
	if err == nil || !strings.Contains(err.Error(), "bad.proto:5:1:") {
		t.Errorf("FromProto: got %v; want an error at bad.proto:5:1", err)
	}
	_, err = grpcx.FromProto(context.Background(), nil, dir+"/missing.proto")
	if err == nil || !strings.Contains(err.Error(), "missing.proto") {
		t.Errorf("FromProto of a missing file: got %v; want an error naming it", err)
	}
}

func TestUnknownMethod(t *testing.T) {
	t.Parallel()
	clients(t, func(t *testing.T, client string) {
		s := newItems(t, items.Config{})
		want := "rpz.ItemService/CreateItem, rpz.ItemService/CreateItems, rpz.ItemService/GetItem, rpz.ItemService/GetItems, rpz.ItemService/ListItems"
		for _, tc := range []struct {
			name string
			r    *grpcx.Resolver
		}{
			{"reflection", nil},
			{"proto", echoResolver(t)},
		} {
			tr := newTransport(t, grpcx.Options{Client: client, Resolver: tc.r})
			for _, m := range []string{"/rpz.ItemService/Nope", "/rpz.Nothing/Get"} {
				out := do(t, tr, request("grpc", s.GRPCAddr(), m, `{}`))
				w := want
				if tc.r != nil {
					w = "echo.Echo/Block, echo.Echo/Echo, echo.Echo/Fail"
				}
				if out.Class != result.Other || !out.Sent.IsZero() || !errors.Is(out.Err, grpcx.ErrUnknownMethod) || !strings.Contains(out.Err.Error(), w) {
					t.Errorf("%s %s: got class %v sent %v err %v; want other, unsent, ErrUnknownMethod listing %s", tc.name, m, out.Class, out.Sent, out.Err, w)
				}
			}
		}
	})
}

func TestSplitName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, svc, m string }{
		{"/a.B/C", "a.B", "C"},
		{"a.B/C", "a.B", "C"},
		{"a.b.C.D", "a.b.C", "D"},
		{"B/C", "B", "C"},
		{"nodot", "", ""},
		{"a.B/", "", ""},
		{"/a/B/C", "", ""},
		{"a.B/C.D", "", ""},
	} {
		svc, m, err := grpcx.SplitName(tc.in)
		if svc != tc.svc || m != tc.m || (err != nil) != (tc.svc == "") {
			t.Errorf("SplitName(%q): got %q %q %v; want %q %q", tc.in, svc, m, err, tc.svc, tc.m)
		}
	}
}

func TestDeadline(t *testing.T) {
	t.Parallel()
	clients(t, func(t *testing.T, client string) {
		es := newEchoServer(t)
		const limit = 300 * time.Millisecond
		tr := newTransport(t, grpcx.Options{Client: client, Resolver: echoResolver(t), Timeout: limit})
		start := time.Now()
		out := do(t, tr, request("grpc", es.addr, "/echo.Echo/Block", `{"id":"1"}`))
		took := time.Since(start)
		if out.Class != result.Timeout || out.Status != 4 || out.Sent.IsZero() || out.Answered {
			t.Errorf("Block: got class %v status %d sent %v answered %v (%v); want timeout, status 4, sent, unanswered", out.Class, out.Status, out.Sent, out.Answered, out.Err)
		}
		if took < limit || took > limit+2*time.Second {
			t.Errorf("Block took %v; want about %v", took, limit)
		}
	})
}

func TestCanceled(t *testing.T) {
	t.Parallel()
	clients(t, func(t *testing.T, client string) {
		es := newEchoServer(t)
		tr := newTransport(t, grpcx.Options{Client: client, Resolver: echoResolver(t), Timeout: 10 * time.Second})
		r := request("grpc", es.addr, "/echo.Echo/Block", `{}`)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan transport.Outcome)
		go func() {
			var out transport.Outcome
			tr.Do(ctx, r, &out)
			done <- out
		}()
		// Wait until the call is on the server: the connection opened, the method resolved.
		if out := do(t, tr, request("grpc", es.addr, "/echo.Echo/Echo", `{}`)); out.Class != result.OK {
			t.Fatalf("Echo: %v %v", out.Class, out.Err)
		}
		cancel()
		select {
		case out := <-done:
			if out.Class != result.Canceled {
				t.Errorf("a call cut by the run's end: got class %v (%v); want canceled", out.Class, out.Err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("the cancelled call did not return within 5 s")
		}
	})
}

func TestStatusCodes(t *testing.T) {
	t.Parallel()
	clients(t, func(t *testing.T, client string) {
		es := newEchoServer(t)
		tr := newTransport(t, grpcx.Options{Client: client, Resolver: echoResolver(t)})
		for _, tc := range []struct {
			id   string
			code int
			msg  string
		}{
			{"3", 3, "grpc InvalidArgument: failing as asked"},
			{"14", 14, "grpc Unavailable: failing as asked"},
			{"1", 1, "grpc Canceled: failing as asked"}, // from the server, not the run: a status like any other
			{"16", 16, "grpc Unauthenticated: failing as asked"},
			// "13 long": a message of 4 lines, each "line N of 4, with its number 1234567", blanked to
			// "line N of N, with its number N" (30 bytes), joined by spaces and cut at 80 bytes: 2·31 and
			// the first 18 of the third, and "…"
			{"13 long", 13, "grpc Internal: line N of N, with its number N line N of N, with its number N line N of N, with …"},
			{"2 empty", 2, "grpc Unknown"}, // no message: the code alone
		} {
			out := do(t, tr, request("grpc", es.addr, "/echo.Echo/Fail", `{"id":"`+tc.id+`"}`))
			if out.Class != result.Status || out.Status != tc.code || out.Err == nil || out.Err.Error() != tc.msg {
				t.Errorf("Fail %s: got class %v status %d err %v; want status, %d, %q", tc.id, out.Class, out.Status, out.Err, tc.code, tc.msg)
			}
			// an answer: the request went out and the server's status came back
			// the message is field 1 (a byte of tag, a byte of length, the id) behind the 5-byte prefix
			if want := int64(5 + 2 + len(tc.id)); !out.Answered || out.Sent.IsZero() || out.BytesOut != want || out.BytesIn != 0 {
				t.Errorf("Fail %s: got answered %v sent %v, %d bytes out, %d in; want answered, sent, %d out, 0 in", tc.id, out.Answered, out.Sent, out.BytesOut, out.BytesIn, want)
			}
		}
	})
}

func TestMetadata(t *testing.T) {
	t.Parallel()
	clients(t, func(t *testing.T, client string) {
		es := newEchoServer(t)
		tr := newTransport(t, grpcx.Options{Client: client, Resolver: echoResolver(t), KeepBody: true})
		r := request("grpc", es.addr, "/echo.Echo/Echo", `{"id":"m"}`)
		r.Header = []transport.Header{{Name: "X-Name", Value: "from metadata"}}
		out := do(t, tr, r)
		if want := `{"id":"m","name":"from metadata"}`; out.Class != result.OK || strings.ReplaceAll(string(out.Body), " ", "") != strings.ReplaceAll(want, " ", "") {
			t.Errorf("Echo with metadata: got class %v body %s (%v); want ok, %s", out.Class, out.Body, out.Err, want)
		}
		// binary metadata: sent base64-encoded, as gRPC wants it, and decoded by the server
		r.Header = []transport.Header{{Name: "X-Name-Bin", Value: "bin\x01ary"}}
		out = do(t, tr, r)
		if want := `"name":"bin\u0001ary"`; out.Class != result.OK || !strings.Contains(strings.ReplaceAll(string(out.Body), " ", ""), want) {
			t.Errorf("Echo with binary metadata: got class %v body %s (%v); want ok, %s", out.Class, out.Body, out.Err, want)
		}
		// metadata that names gRPC's own fields is not sent, as grpc-go does not send it
		r.Header = []transport.Header{{Name: "Content-Type", Value: "text/plain"}, {Name: "grpc-timeout", Value: "1n"}, {Name: "x-name", Value: "kept"}}
		out = do(t, tr, r)
		if want := `"name":"kept"`; out.Class != result.OK || !strings.Contains(strings.ReplaceAll(string(out.Body), " ", ""), want) {
			t.Errorf("Echo with metadata named as gRPC's fields: got class %v body %s (%v); want ok, %s", out.Class, out.Body, out.Err, want)
		}
		// the client that made the call says its name: rpcbench's own, or grpc-go's
		want := map[string]string{grpcx.ClientAuto: `"name":"rpcbench"`, grpcx.ClientGRPCGo: `"name":"grpc-go/`}[client]
		out = do(t, tr, request("grpc", es.addr, "/echo.Echo/Echo", `{"id":"user-agent"}`))
		if out.Class != result.OK || !strings.Contains(strings.ReplaceAll(string(out.Body), " ", ""), want) {
			t.Errorf("Echo of the user-agent: got class %v body %s (%v); want ok, %s", out.Class, out.Body, out.Err, want)
		}
	})
}

func TestRefused(t *testing.T) {
	t.Parallel()
	clients(t, func(t *testing.T, client string) {
		addr := testnet.RefusedAddr(t)
		tr := newTransport(t, grpcx.Options{Client: client, Resolver: echoResolver(t), ConnectTimeout: 5 * time.Second})
		for i := range 2 {
			out := do(t, tr, request("grpc", addr, "/echo.Echo/Echo", `{}`))
			if out.Class != result.Refused || !out.Sent.IsZero() || out.Answered {
				t.Errorf("call %d: got class %v sent %v answered %v (%v); want refused, unsent", i, out.Class, out.Sent, out.Answered, out.Err)
			}
			if !out.Opened || !out.Conn.Failed {
				t.Errorf("call %d: got Opened %v Conn %+v; want a failed connection attempt", i, out.Opened, out.Conn)
			}
		}
	})
}

func TestTLS(t *testing.T) {
	t.Parallel()
	clients(t, func(t *testing.T, client string) {
		// the method by reflection, on a connection of grpc-go's, or from the .proto file: the
		// call's own connection is the first
		for _, src := range []string{"reflection", "proto"} {
			t.Run(src, func(t *testing.T) {
				res := itemsResolver(t, src)
				s := newItems(t, items.Config{TLS: true}) // a self-signed certificate made now
				tr := newTransport(t, grpcx.Options{Client: client, Resolver: res, InsecureSkipVerify: true})
				out := do(t, tr, request("grpcs", s.GRPCAddr(), "/rpz.ItemService/CreateItem", `{"id":"t1"}`))
				if out.Class != result.OK || !out.Opened || out.Conn.TLS <= 0 {
					t.Errorf("grpcs, verification off: got class %v opened %v conn %+v (%v); want ok with a TLS set-up", out.Class, out.Opened, out.Conn, out.Err)
				}
				strict := newTransport(t, grpcx.Options{Client: client})
				out = do(t, strict, request("grpcs", s.GRPCAddr(), "/rpz.ItemService/CreateItem", `{"id":"t2"}`))
				if out.Class != result.TLS || !out.Sent.IsZero() || !out.Conn.Failed {
					t.Errorf("grpcs, verification on: got class %v sent %v conn %+v (%v); want tls, unsent, a failed connection", out.Class, out.Sent, out.Conn, out.Err)
				}
				// Plaintext gRPC to a TLS server fails, saying so, at every call.
				plain := newTransport(t, grpcx.Options{Client: client, Resolver: res, ConnectTimeout: 2 * time.Second})
				for i := range 2 {
					out = do(t, plain, request("grpc", s.GRPCAddr(), "/rpz.ItemService/CreateItem", `{"id":"t3"}`))
					if out.Class != result.TLS || !out.Sent.IsZero() || !errors.Is(out.Err, grpcx.ErrServerTLS) || out.Err.Error() != "grpcx: the server speaks TLS: use grpcs://" {
						t.Errorf("grpc to a TLS server, call %d: got class %v sent %v err %v; want tls, unsent, \"the server speaks TLS: use grpcs://\"", i, out.Class, out.Sent, out.Err)
					}
				}
				// A server that accepts and closes, speaking no TLS, is not said to speak it.
				ln, err := net.Listen("tcp", "127.0.0.1:0")
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { ln.Close() })
				go func() {
					for {
						c, err := ln.Accept()
						if err != nil {
							return
						}
						c.Close()
					}
				}()
				out = do(t, plain, request("grpc", ln.Addr().String(), "/rpz.ItemService/CreateItem", `{}`))
				if out.Class != result.Reset || errors.Is(out.Err, grpcx.ErrServerTLS) || !strings.Contains(out.Err.Error(), "closed the connection before its HTTP/2 settings") {
					t.Errorf("grpc to a server that closes at once: got class %v (%v); want reset, closed before its settings", out.Class, out.Err)
				}
			})
		}
	})
}

func TestConnsRoundRobin(t *testing.T) {
	t.Parallel()
	clients(t, func(t *testing.T, client string) {
		es := newEchoServer(t)
		tr := newTransport(t, grpcx.Options{Client: client, Resolver: echoResolver(t), Conns: 3})
		opened := 0
		for i := range 9 {
			out := do(t, tr, request("grpc", es.addr, "/echo.Echo/Echo", `{"id":"r"}`))
			if out.Class != result.OK {
				t.Fatalf("call %d: %v %v", i, out.Class, out.Err)
			}
			if out.Opened {
				opened++
			}
		}
		if opened != 3 || es.accepts.Load() != 3 {
			t.Errorf("9 calls over 3 connections: got %d opened, %d accepted; want 3 and 3", opened, es.accepts.Load())
		}
	})
}

func TestBadScheme(t *testing.T) {
	t.Parallel()
	tr := newTransport(t, grpcx.Options{})
	out := do(t, tr, request("http", "127.0.0.1:1", "/a.B/C", `{}`))
	if out.Class != result.Other || !out.Sent.IsZero() || out.Err == nil || !strings.Contains(out.Err.Error(), "want grpc or grpcs") {
		t.Errorf("scheme http: got class %v err %v; want other naming the schemes", out.Class, out.Err)
	}
}

func TestSpreadOpensOnlyWhatIsNeeded(t *testing.T) {
	t.Parallel()
	clients(t, func(t *testing.T, client string) {
		for _, tc := range []struct {
			spread int
			want   int64
		}{
			{0, 4}, // closed model: every connection, each on first use
			{1, 1}, // one call at a time never fills the first connection
		} {
			es := newEchoServer(t)
			tr := newTransport(t, grpcx.Options{Client: client, Resolver: echoResolver(t), Conns: 4, Spread: tc.spread})
			for i := range 8 {
				if out := do(t, tr, request("grpc", es.addr, "/echo.Echo/Echo", `{}`)); out.Class != result.OK {
					t.Fatalf("spread %d, call %d: %v %v", tc.spread, i, out.Class, out.Err)
				}
			}
			if got := es.accepts.Load(); got != tc.want {
				t.Errorf("spread %d, 8 calls one at a time: got %d connections; want %d", tc.spread, got, tc.want)
			}
		}
	})
}

func TestPrepare(t *testing.T) {
	t.Parallel()
	s := newItems(t, items.Config{})
	refused := testnet.RefusedAddr(t)
	for _, tc := range []struct {
		host, path, body string
		want             string // in the error; "" for none
	}{
		{s.GRPCAddr(), "/rpz.ItemService/GetItem", `{"id":"1"}`, ""},
		{s.GRPCAddr(), "/rpz.ItemService/Gett", `{}`, "rpz.ItemService/CreateItem, rpz.ItemService/CreateItems, rpz.ItemService/GetItem, rpz.ItemService/GetItems, rpz.ItemService/ListItems"},
		{s.GRPCAddr(), "/rpz.ItemService/GetItem", `{"id":1}`, "rpz.GetItemRequest"},
		{s.GRPCAddr(), "/rpz.ItemService/GetItem", `{"id":`, "rpz.GetItemRequest"},
		{s.GRPCAddr(), "GetItem", `{}`, "want package.Service/Method"},
		{refused, "/rpz.ItemService/GetItem", `{}`, "connection refused"},
	} {
		tr := newTransport(t, grpcx.Options{ConnectTimeout: 5 * time.Second})
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := tr.Prepare(ctx, request("grpc", tc.host, tc.path, tc.body))
		cancel()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("Prepare %s %s: got %v; want nil", tc.path, tc.body, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("Prepare %s %s: got %v; want an error with %q", tc.path, tc.body, err, tc.want)
		}
	}
}

// TestLargeAnswer: an answer above grpc-go's default limit of 4 MiB is read, not refused.
func TestLargeAnswer(t *testing.T) {
	t.Parallel()
	clients(t, func(t *testing.T, client string) {
		const payload = 5 << 20
		s := newItems(t, items.Config{PayloadBytes: payload})
		tr := newTransport(t, grpcx.Options{Client: client})
		out := do(t, tr, request("grpc", s.GRPCAddr(), "/rpz.ItemService/CreateItem", `{"id":"big"}`))
		if out.Class != result.OK || out.BytesIn < payload {
			t.Errorf("a 5 MiB answer: got class %v, %d bytes in (%v); want ok, over %d bytes", out.Class, out.BytesIn, out.Err, payload)
		}
	})
}

// A call refused after its connection was up (the server went away; gRPC dials again on the
// call) failed before sending, as one refused at the first connect: no Sent time.
func TestRefusedAfterConnected(t *testing.T) {
	t.Parallel()
	clients(t, func(t *testing.T, client string) {
		addr := testnet.ReservedAddr(t)
		es := newEchoServerOn(t, addr)
		tr := newTransport(t, grpcx.Options{Client: client, Resolver: echoResolver(t), ConnectTimeout: 5 * time.Second})
		r := request("grpc", addr, "/echo.Echo/Echo", `{}`)
		if out := do(t, tr, r); out.Class != result.OK {
			t.Fatalf("Echo: %v %v", out.Class, out.Err)
		}
		es.srv.Stop()
		// A call may still go out on the closing connection before the client sees it close (class
		// reset); the first that does not is the refused one.
		for i := range 20 {
			out := do(t, tr, r)
			if out.Class == result.Reset {
				continue
			}
			if out.Class != result.Refused || !out.Sent.IsZero() || out.Answered || out.BytesIn != 0 {
				t.Errorf("call %d after the server went away: got class %v sent %v answered %v (%v); want refused, unsent, unanswered", i, out.Class, out.Sent, out.Answered, out.Err)
			}
			return
		}
		t.Errorf("20 calls after the server went away: all reset; want a refusal")
	})
}

// With Spread, a connection carries Spread calls before another opens: of 3 calls held in flight
// at once, spread 2 puts the third on a second connection, spread 3 all on one.
func TestSpreadFillsBeforeOpening(t *testing.T) {
	t.Parallel()
	clients(t, func(t *testing.T, client string) {
		for _, tc := range []struct {
			spread int
			want   int64
		}{{2, 2}, {3, 1}} {
			es := newEchoServer(t)
			tr := newTransport(t, grpcx.Options{Client: client, Resolver: echoResolver(t), Conns: 4, Spread: tc.spread, Timeout: 10 * time.Second})
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan transport.Outcome, 3)
			for i := range 3 {
				go func() {
					var out transport.Outcome
					tr.Do(ctx, request("grpc", es.addr, "/echo.Echo/Block", `{}`), &out)
					done <- out
				}()
				select { // the call is on the server, counted in flight on its connection
				case <-es.blocked:
				case out := <-done:
					t.Fatalf("spread %d, call %d ended: %v %v", tc.spread, i, out.Class, out.Err)
				case <-time.After(10 * time.Second):
					t.Fatalf("spread %d, call %d did not reach the server within 10 s", tc.spread, i)
				}
			}
			got := es.accepts.Load()
			cancel()
			for range 3 {
				<-done
			}
			if got != tc.want {
				t.Errorf("spread %d, 3 calls in flight: got %d connections; want %d", tc.spread, got, tc.want)
			}
		}
	})
}

// A server whose SETTINGS allow no concurrent stream: no call can open one, so each waits until
// its time limit and fails unsent (class timeout, no service time), saying why; a streaming call
// alike.
func TestNoStreams(t *testing.T) {
	t.Parallel()
	clients(t, func(t *testing.T, client string) {
		s := faults.H2NoStreams(t)
		res := streamResolver(t)
		for _, tc := range []struct {
			name string
			opts grpcx.Options
			path string
		}{
			{"unary", grpcx.Options{Client: client, Resolver: echoResolver(t)}, "/echo.Echo/Echo"},
			{"server-streaming", grpcx.Options{Client: client, Resolver: res}, "/stream.Stream/Count"},
		} {
			tc.opts.Timeout = 300 * time.Millisecond
			tr := newTransport(t, tc.opts)
			if err := tr.Prepare(context.Background(), request("grpc", s.Addr, tc.path, `{"id":"1"}`)); err != nil {
				t.Errorf("%s: Prepare: %v; want nil (the method from a .proto file: no stream needed)", tc.name, err)
			}
			for i := range 2 {
				out := do(t, tr, request("grpc", s.Addr, tc.path, `{"id":"1"}`))
				if out.Class != result.Timeout || !out.Sent.IsZero() || out.Answered || out.Status != 0 || !errors.Is(out.Err, grpcx.ErrNoStreams) ||
					!strings.Contains(out.Err.Error(), "MAX_CONCURRENT_STREAMS 0") {
					t.Errorf("%s, call %d: got class %v sent %v answered %v status %d (%v); want timeout, unsent, unanswered, status 0, naming MAX_CONCURRENT_STREAMS 0",
						tc.name, i, out.Class, out.Sent, out.Answered, out.Status, out.Err)
				}
			}
		}
		// Prepare asks reflection, which needs a stream: it fails as a connection does, saying why.
		tr := newTransport(t, grpcx.Options{Client: client, Timeout: 300 * time.Millisecond})
		err := tr.Prepare(context.Background(), request("grpc", s.Addr, "/echo.Echo/Echo", `{}`))
		if !errors.Is(err, grpcx.ErrConnect) || !errors.Is(err, grpcx.ErrNoStreams) {
			t.Errorf("Prepare by reflection: got %v; want ErrConnect and ErrNoStreams", err)
		}
	})
}

// An answer kept for checks is bounded by MaxBody: a longer one fails as too-large, its length
// named, refused before it is read; one within the bound is kept. Without KeepBody the same answer
// is only counted, whatever MaxBody says.
func TestMaxBody(t *testing.T) {
	t.Parallel()
	clients(t, func(t *testing.T, client string) {
		// the answer: field 1 "max" (1+1+3 bytes) and field 2 of 2000 bytes (1 + a 2-byte length +
		// 2000): 2008 bytes, behind the 5-byte prefix
		es := newEchoServer(t)
		r := request("grpc", es.addr, "/echo.Echo/Echo", `{"id":"max"}`)
		r.Header = []transport.Header{{Name: "x-name", Value: strings.Repeat("n", 2000)}}
		for _, tc := range []struct {
			name    string
			opts    grpcx.Options
			class   result.Class
			bytesIn int64
		}{
			{"kept, over", grpcx.Options{Client: client, KeepBody: true, MaxBody: 2007}, result.TooLarge, 0},
			{"kept, at the bound", grpcx.Options{Client: client, KeepBody: true, MaxBody: 2008}, result.OK, 2013},
			{"counted", grpcx.Options{Client: client, MaxBody: 100}, result.OK, 2013},
		} {
			tc.opts.Resolver = echoResolver(t)
			out := do(t, newTransport(t, tc.opts), r)
			if out.Class != tc.class || out.BytesIn != tc.bytesIn || out.Sent.IsZero() {
				t.Errorf("%s: got class %v, %d bytes in, sent %v (%v); want %v, %d bytes in, sent", tc.name, out.Class, out.BytesIn, out.Sent, out.Err, tc.class, tc.bytesIn)
			}
			switch {
			case tc.class == result.TooLarge && (out.Answered || out.Status != 0 || !errors.Is(out.Err, grpcx.ErrAnswerTooLarge) ||
				out.Err.Error() != "grpcx: answer larger than the limit on kept answers (2007 bytes): an answer of 2008 bytes"):
				t.Errorf("%s: got answered %v status %d err %v; want unanswered, status 0, naming the limit and the answer's length", tc.name, out.Answered, out.Status, out.Err)
			case tc.opts.KeepBody && tc.class == result.OK && len(out.Body) < 2000:
				t.Errorf("%s: kept %d bytes of JSON; want the answer, over 2000", tc.name, len(out.Body))
			case !tc.opts.KeepBody && len(out.Body) != 0:
				t.Errorf("%s: kept %d bytes; want none", tc.name, len(out.Body))
			}
		}
	})
}

// Prepare is not a measured call: a call's time limit shorter than a connection's set-up (100µs)
// does not keep it from connecting and asking reflection within the connection's own limit.
func TestPrepareWithinTheConnectionsLimit(t *testing.T) {
	t.Parallel()
	s := newItems(t, items.Config{})
	tr := newTransport(t, grpcx.Options{Timeout: 100 * time.Microsecond, ConnectTimeout: 10 * time.Second})
	if err := tr.Prepare(context.Background(), request("grpc", s.GRPCAddr(), "/rpz.ItemService/GetItem", `{"id":"1"}`)); err != nil {
		t.Fatalf("Prepare with a 100µs call limit: %v; want nil", err)
	}
}
