// Command rpcbench-k8s runs a plan split over N generators as a Kubernetes Indexed Job: rpcbench-k8s
// job|run|collect, which rpcbench k8s job|run|collect runs. It is a program of its own so that
// rpcbench does not link the Kubernetes client. Run `rpcbench-k8s --help` for the commands.
package main

import (
	"os"

	"github.com/rpcbench/rpcbench/internal/cli"
	"github.com/rpcbench/rpcbench/internal/cli/k8scmd"
)

func main() {
	args := append([]string{"k8s"}, os.Args[1:]...)
	os.Exit(cli.Main(args, os.Stdin, os.Stdout, os.Stderr, k8scmd.Command()))
}
