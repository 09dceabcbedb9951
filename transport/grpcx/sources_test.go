package grpcx_test

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/reflection"
	v1alphagrpc "google.golang.org/grpc/reflection/grpc_reflection_v1alpha"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/serve/items"
	"github.com/rpcbench/rpcbench/serve/items/rpzpb"
	"github.com/rpcbench/rpcbench/transport/grpcx"
)

func TestProtoset(t *testing.T) {
	t.Parallel()
	clients(t, func(t *testing.T, client string) {
		s := newItems(t, items.Config{NoReflection: true})
		set := &descriptorpb.FileDescriptorSet{File: []*descriptorpb.FileDescriptorProto{
			protodesc.ToFileDescriptorProto(timestamppb.File_google_protobuf_timestamp_proto),
			protodesc.ToFileDescriptorProto(rpzpb.File_rpz_items_proto),
		}}
		b, err := proto.Marshal(set)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		p := filepath.Join(dir, "items.protoset")
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		r, err := grpcx.FromProtoset(p)
		if err != nil {
			t.Fatalf("FromProtoset: %v", err)
		}
		tr := newTransport(t, grpcx.Options{Client: client, Resolver: r})
		if out := do(t, tr, request("grpc", s.GRPCAddr(), "/rpz.ItemService/CreateItem", `{"id":"s1"}`)); out.Class != result.OK {
			t.Errorf("CreateItem: got class %v (%v); want ok", out.Class, out.Err)
		}

		// A set without the imports of its files, and a file that is no set at all.
		set.File = set.File[1:]
		b, _ = proto.Marshal(set)
		noImports := writeFile(t, dir, "partial.protoset", string(b))
		if _, err := grpcx.FromProtoset(noImports); err == nil || !strings.Contains(err.Error(), "--include_imports") {
			t.Errorf("FromProtoset without imports: got %v; want a hint at --include_imports", err)
		}
		junk := writeFile(t, dir, "junk.protoset", "\xff\xff\xff")
		if _, err := grpcx.FromProtoset(junk); err == nil || !strings.Contains(err.Error(), "junk.protoset") {
			t.Errorf("FromProtoset of junk: got %v; want an error naming the file", err)
		}
	})
}

type unimplementedItems struct {
	rpzpb.UnimplementedItemServiceServer
}

// TestReflectionV1Alpha: a server with only the older reflection service is asked through it.
func TestReflectionV1Alpha(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	rpzpb.RegisterItemServiceServer(srv, unimplementedItems{})
	v1alphagrpc.RegisterServerReflectionServer(srv, reflection.NewServer(reflection.ServerOptions{Services: srv}))
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(srv.Stop)

	cc, err := grpc.NewClient("passthrough:///"+ln.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cc.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r := grpcx.FromReflection(cc)
	md, err := r.Method(ctx, "rpz.ItemService.GetItem")
	if err != nil {
		t.Fatalf("Method: %v", err)
	}
	if got := md.Input().FullName(); got != "rpz.GetItemRequest" {
		t.Errorf("GetItem's input: got %s; want rpz.GetItemRequest", got)
	}
	have, err := r.Services(ctx)
	if got, want := strings.Join(have, " "), "rpz.ItemService/CreateItem rpz.ItemService/CreateItems rpz.ItemService/GetItem rpz.ItemService/GetItems rpz.ItemService/ListItems"; err != nil || got != want {
		t.Errorf("Services: got %q (%v); want %q", got, err, want)
	}

	tr := newTransport(t, grpcx.Options{})
	out := do(t, tr, request("grpc", ln.Addr().String(), "/rpz.ItemService/GetItem", `{"id":"x"}`))
	if out.Class != result.Status || out.Status != 12 || out.Err.Error() != "grpc Unimplemented: method GetItem not implemented" {
		t.Errorf("GetItem: got class %v status %d (%v); want status 12, grpc Unimplemented: method GetItem not implemented", out.Class, out.Status, out.Err)
	}
}

// TestManyBodies: bodies beyond MaxBodies are marshalled per call into a buffer of the call, which
// must never overwrite a body kept marshalled.
func TestManyBodies(t *testing.T) {
	t.Parallel()
	clients(t, func(t *testing.T, client string) {
		es := newEchoServer(t)
		tr := newTransport(t, grpcx.Options{Client: client, Resolver: echoResolver(t), KeepBody: true, MaxBodies: 1})
		for i := range 20 {
			id := "kept"
			if i%2 == 1 {
				id = strings.Repeat("x", i) // each new, parsed per call
			}
			out := do(t, tr, request("grpc", es.addr, "/echo.Echo/Echo", `{"id":"`+id+`"}`))
			if want := `"id":"` + id + `"`; out.Class != result.OK || !strings.Contains(strings.ReplaceAll(string(out.Body), " ", ""), want) {
				t.Fatalf("call %d: got class %v body %s (%v); want ok with %s", i, out.Class, out.Body, out.Err, want)
			}
		}
	})
}
