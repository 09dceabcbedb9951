package protocols_test

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/serve/items/rpzpb"
	"github.com/rpcbench/rpcbench/transport"
	_ "github.com/rpcbench/rpcbench/transport/protocols"
)

func TestGRPCMaker(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := filepath.Join(dir, "good.proto")
	bad := filepath.Join(dir, "bad.proto")
	if err := os.WriteFile(good, []byte("syntax = \"proto3\";\npackage g;\nmessage M {}\nservice S { rpc Get(M) returns (M); }\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// Line 3 names a type that does not exist, at column 21.
	if err := os.WriteFile(bad, []byte("syntax = \"proto3\";\npackage b;\nservice S { rpc Get(Missing) returns (Missing); }\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		c    transport.Config
		want string // in the error; "" for none
	}{
		{"reflection", transport.Config{Conns: 2}, ""},
		{"proto", transport.Config{ProtoFiles: []string{good}}, ""},
		{"bad proto", transport.Config{ProtoFiles: []string{bad}}, "bad.proto:3:21"},
		{"missing protoset", transport.Config{Protoset: filepath.Join(dir, "none.protoset")}, "none.protoset"},
	} {
		tr, err := transport.New(transport.GRPC, tc.c)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: got %v; want a transport", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: got %v; want an error with %q", tc.name, err, tc.want)
		}
		if tr != nil {
			tr.Close()
		}
	}
}

// Every protocol takes the TLS files: a CA file that cannot be read, or a TLS version there is not,
// fails the making of its transport, naming the file or the version.
func TestTLSFilesEveryProtocol(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "not.pem")
	if err := os.WriteFile(notPEM, []byte("not a certificate\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.pem")
	for _, p := range []transport.Protocol{transport.HTTP1, transport.H2, transport.H2C, transport.WS, transport.GRPC} {
		for _, tc := range []struct {
			tls  transport.TLSFiles
			want string
		}{
			{transport.TLSFiles{CACert: missing}, "missing.pem"},
			{transport.TLSFiles{CACert: notPEM}, "not.pem: no PEM certificate in it"},
			{transport.TLSFiles{MinVersion: "1.1"}, `TLS version "1.1": want 1.2 or 1.3`},
			{transport.TLSFiles{Cert: notPEM}, "give both files or neither"},
		} {
			tr, err := transport.New(p, transport.Config{TLS: tc.tls})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s with %+v: got %v; want an error with %q", p, tc.tls, err, tc.want)
			}
			if tr != nil {
				tr.Close()
			}
		}
	}
}

// The gRPC client of the config makes the calls: grpc-go, or by default rpcbench's own, each
// telling the server its name in user-agent; a client there is not is refused.
func TestGRPCClient(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	agents := make(chan string, 4)
	srv := grpc.NewServer(grpc.UnknownServiceHandler(func(_ any, stream grpc.ServerStream) error {
		md, _ := metadata.FromIncomingContext(stream.Context())
		agents <- strings.Join(md.Get("user-agent"), ",")
		var in rpzpb.GetItemRequest
		if err := stream.RecvMsg(&in); err != nil {
			return err
		}
		return stream.SendMsg(&rpzpb.Item{Id: in.GetId()})
	}))
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(srv.Stop)
	proto := filepath.Join("..", "..", "proto")
	for _, tc := range []struct{ client, agent string }{{"", "rpcbench"}, {"auto", "rpcbench"}, {"grpc-go", "grpc-go/"}} {
		tr, err := transport.New(transport.GRPC, transport.Config{GRPCClient: tc.client, ProtoFiles: []string{"rpz/items.proto"}, ImportPaths: []string{proto}})
		if err != nil {
			t.Fatalf("client %q: %v", tc.client, err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		var out transport.Outcome
		tr.Do(ctx, &transport.Request{Scheme: "grpc", Host: ln.Addr().String(), Path: []byte("/rpz.ItemService/GetItem"), Body: []byte(`{"id":"1"}`)}, &out)
		cancel()
		tr.Close()
		if out.Class != result.OK {
			t.Fatalf("client %q: got class %v (%v); want ok", tc.client, out.Class, out.Err)
		}
		if got := <-agents; !strings.HasPrefix(got, tc.agent) {
			t.Errorf("client %q: the server was called by %q; want %s…", tc.client, got, tc.agent)
		}
	}
	if _, err := transport.New(transport.GRPC, transport.Config{GRPCClient: "grpcgo"}); err == nil || !strings.Contains(err.Error(), `gRPC client "grpcgo": want auto`) {
		t.Errorf("client grpcgo: got %v; want an error naming it and the clients there are", err)
	}
}
