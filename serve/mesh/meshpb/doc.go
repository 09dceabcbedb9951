// Package meshpb is the generated gRPC code for the peer-to-peer protocol of the mesh service
// (mesh.proto): Peer.Hop hands the chain's state to the next peer. Regenerate with go generate, which
// needs protoc, protoc-gen-go and protoc-gen-go-grpc on PATH; the generated files are committed, so a
// build never needs them.
package meshpb

//go:generate protoc --go_out=. --go_opt=paths=source_relative --go-grpc_out=. --go-grpc_opt=paths=source_relative mesh.proto
