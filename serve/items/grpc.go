package items

import (
	"context"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/rpcbench/rpcbench/serve/items/rpzpb"
)

// itemService is rpz.ItemService over the Server's store.
type itemService struct {
	rpzpb.UnimplementedItemServiceServer
	s *Server
}

func (g *itemService) CreateItem(_ context.Context, req *rpzpb.CreateItemRequest) (*rpzpb.Item, error) {
	if err := checkID(req.GetId()); err != nil {
		return nil, status.Error(codes.InvalidArgument, "items: "+err.Error())
	}
	it := newItem(req.GetId(), req.GetName(), time.Now().UTC())
	g.s.store.put(it)
	return g.s.toProto(it), nil
}

func (g *itemService) GetItem(_ context.Context, req *rpzpb.GetItemRequest) (*rpzpb.Item, error) {
	it, ok := g.s.store.get(req.GetId())
	if !ok {
		return nil, status.Errorf(codes.NotFound, "items: no item with id %q", req.GetId())
	}
	return g.s.toProto(it), nil
}

func (s *Server) toProto(it *item) *rpzpb.Item {
	return &rpzpb.Item{Id: it.id, Name: it.name, Timestamp: timestamppb.New(it.ts), Payload: s.payload}
}
