// A pure-Go stand-in for github.com/DataDog/zstd, put in its place by the replace directive in
// rpcbench's go.mod: see zstd.go.
module github.com/DataDog/zstd

go 1.26.8

require github.com/klauspost/compress v1.20.3
