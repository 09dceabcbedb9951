package items

import (
	"bufio"
	"context"
	"io"
	"net"
	"slices"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"

	"github.com/rpcbench/rpcbench/serve/items/rpzpb"
)

func bufioReader(c net.Conn) *bufio.Reader { return bufio.NewReader(c) }

func createReq(id, name string) *rpzpb.CreateItemRequest {
	return &rpzpb.CreateItemRequest{Id: id, Name: name}
}

func getReq(id string) *rpzpb.GetItemRequest { return &rpzpb.GetItemRequest{Id: id} }

func grpcConn(t testing.TB, s *Server) *grpc.ClientConn {
	t.Helper()
	creds := insecure.NewCredentials()
	if tc := s.ClientTLSConfig(); tc != nil {
		creds = credentials.NewTLS(tc)
	}
	conn, err := grpc.NewClient("passthrough:///"+s.GRPCAddr(), grpc.WithTransportCredentials(creds))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

func grpcClient(t testing.TB, s *Server) rpzpb.ItemServiceClient {
	return rpzpb.NewItemServiceClient(grpcConn(t, s))
}

func TestGRPC(t *testing.T) {
	t.Parallel()
	for _, tlsOn := range []bool{false, true} {
		s := newServer(t, Config{TLS: tlsOn, PayloadBytes: 3})
		c := grpcClient(t, s)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		before := time.Now()
		created, err := c.CreateItem(ctx, createReq("g1", "gear"))
		if err != nil {
			t.Fatalf("TLS %v: CreateItem: %v", tlsOn, err)
		}
		if ts := created.GetTimestamp().AsTime(); created.GetId() != "g1" || created.GetName() != "gear" ||
			string(created.GetPayload()) != "abc" || ts.Before(before.Add(-time.Microsecond)) || ts.After(time.Now()) {
			t.Errorf("TLS %v: CreateItem = %v; want id g1, name gear, payload abc, a timestamp of now", tlsOn, created)
		}
		got, err := c.GetItem(ctx, getReq("g1"))
		if err != nil || got.GetName() != "gear" || !got.GetTimestamp().AsTime().Equal(created.GetTimestamp().AsTime()) {
			t.Errorf("TLS %v: GetItem(g1) = %v, %v; want %v", tlsOn, got, err, created)
		}
		_, err = c.GetItem(ctx, getReq("absent"))
		if status.Code(err) != codes.NotFound {
			t.Errorf("TLS %v: GetItem(absent): %v; want NotFound", tlsOn, err)
		}
		_, err = c.CreateItem(ctx, createReq("", "x"))
		if status.Code(err) != codes.InvalidArgument {
			t.Errorf("TLS %v: CreateItem with an empty id: %v; want InvalidArgument", tlsOn, err)
		}
		// An item created over HTTP is read over gRPC.
		if err := s.Put("h1", "from http"); err != nil {
			t.Fatal(err)
		}
		if got, err := c.GetItem(ctx, getReq("h1")); err != nil || got.GetName() != "from http" {
			t.Errorf("TLS %v: GetItem(h1) = %v, %v; want name \"from http\"", tlsOn, got, err)
		}
	}
}

// listServices asks the server's reflection service for its services.
func listServices(t *testing.T, s *Server) ([]string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	stream, err := reflectionpb.NewServerReflectionClient(grpcConn(t, s)).ServerReflectionInfo(ctx)
	if err != nil {
		return nil, err
	}
	if err := stream.Send(&reflectionpb.ServerReflectionRequest{
		MessageRequest: &reflectionpb.ServerReflectionRequest_ListServices{ListServices: "*"},
	}); err != nil && err != io.EOF {
		return nil, err
	}
	resp, err := stream.Recv()
	if err != nil {
		return nil, err
	}
	var names []string
	for _, svc := range resp.GetListServicesResponse().GetService() {
		names = append(names, svc.GetName())
	}
	return names, nil
}

func TestReflection(t *testing.T) {
	t.Parallel()
	names, err := listServices(t, newServer(t, Config{}))
	if err != nil || !slices.Contains(names, "rpz.ItemService") {
		t.Errorf("reflection lists %v, %v; want rpz.ItemService among them", names, err)
	}
	_, err = listServices(t, newServer(t, Config{NoReflection: true}))
	if status.Code(err) != codes.Unimplemented {
		t.Errorf("reflection with NoReflection: %v; want Unimplemented", err)
	}
}

func TestPutRejects(t *testing.T) {
	t.Parallel()
	s := newServer(t, Config{})
	for _, tt := range []struct{ id, name string }{{"", "n"}, {"\xff", "n"}, {"x", "\xff"}} {
		if err := s.Put(tt.id, tt.name); err == nil {
			t.Errorf("Put(%q, %q): got no error; want one", tt.id, tt.name)
		}
	}
}

func BenchmarkGetItemGRPC(b *testing.B) {
	b.ReportAllocs()
	s := newServer(b, Config{})
	s.Put("42", "pen") //nolint:errcheck
	c := grpcClient(b, s)
	ctx := context.Background()
	for b.Loop() {
		if _, err := c.GetItem(ctx, getReq("42")); err != nil {
			b.Fatal(err)
		}
	}
}
