package items

import (
	"context"
	"errors"
	"io"
	"time"

	"google.golang.org/grpc"
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

func (g *itemService) ListItems(req *rpzpb.ListItemsRequest, stream grpc.ServerStreamingServer[rpzpb.Item]) error {
	for _, id := range req.GetIds() {
		it, ok := g.s.store.get(id)
		if !ok {
			return status.Errorf(codes.NotFound, "items: no item with id %q", id)
		}
		if err := stream.Send(g.s.toProto(it)); err != nil {
			return err
		}
	}
	return nil
}

func (g *itemService) CreateItems(stream grpc.ClientStreamingServer[rpzpb.CreateItemRequest, rpzpb.CreateItemsReply]) error {
	var n int32
	for {
		req, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return stream.SendAndClose(&rpzpb.CreateItemsReply{Created: n})
		} else if err != nil {
			return err
		}
		if _, err := g.CreateItem(stream.Context(), req); err != nil {
			return err
		}
		n++
	}
}

func (g *itemService) GetItems(stream grpc.BidiStreamingServer[rpzpb.GetItemRequest, rpzpb.Item]) error {
	for {
		req, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return err
		}
		it, err := g.GetItem(stream.Context(), req)
		if err != nil {
			return err
		}
		if err := stream.Send(it); err != nil {
			return err
		}
	}
}
