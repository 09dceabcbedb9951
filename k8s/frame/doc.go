// Package frame carries a file through a log: Write prints it between two marker lines,
// compressed and base64-encoded, and Read finds it again among the log's other lines, telling a
// frame cut short or damaged. `rpcbench run --out-log` frames its result file into a pod's log and
// package k8s reads it back (Cluster.Collect).
//
// It imports nothing from the project nor from Kubernetes, so that rpcbench, which writes frames,
// does not link the Kubernetes client that reads them from a cluster.
package frame
