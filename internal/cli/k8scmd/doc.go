// Package k8scmd is the k8s command of the command line — k8s job, k8s run, k8s collect — which
// runs a plan split over N generators as a Kubernetes Indexed Job (package k8s).
//
// It is the program rpcbench-k8s (cmd/rpcbench-k8s), not a command of rpcbench: it links
// k8s.io/api and client-go, which would more than double rpcbench's binary and the memory every
// rpcbench command starts with. rpcbench k8s ARGS runs rpcbench-k8s ARGS. It takes package cli's
// helpers (flag sets, errors, exit codes, rpcbench report) through cli's exported surface.
package k8scmd
