// Command rpcbench benchmarks RPC services: HTTP/1.1 and HTTPS today, with latency measured from
// each request's intended start time. Run `rpcbench help` for the commands.
package main

import (
	"os"

	"github.com/rpcbench/rpcbench/internal/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
