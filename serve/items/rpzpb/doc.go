// Package rpzpb holds the protocol buffer messages and gRPC stubs of rpz.ItemService, the gRPC
// face of the built-in items target (package items). The source is proto/rpz/items.proto at the
// root of the module; the .pb.go files are generated from it and committed, so building needs no
// protoc. To regenerate, with protoc, protoc-gen-go and protoc-gen-go-grpc on PATH, run
// go generate in this directory.
package rpzpb

//go:generate protoc --proto_path=../../../proto --go_out=../../.. --go_opt=module=github.com/rpcbench/rpcbench --go-grpc_out=../../.. --go-grpc_opt=module=github.com/rpcbench/rpcbench rpz/items.proto
