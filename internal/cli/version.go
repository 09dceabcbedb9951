package cli

import "runtime/debug"

// version is set at build time with -ldflags "-X github.com/rpcbench/rpcbench/internal/cli.version=v1.2.3".
var version = ""

// Version returns the version of rpcbench: the one set at build time, else the module version
// recorded by `go install`, else "dev".
func Version() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}
