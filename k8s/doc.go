// Package k8s runs one rpcbench run as a Kubernetes Indexed Job: N pods, each an execution segment
// of the same plan (the pod's completion index chooses the segment), all counting their schedule
// from one start instant, each writing its result file to a volume or, framed (package frame),
// into its log, for the segments to be merged into one run.
//
// Manifests types the ConfigMap and the Job with k8s.io/api, YAML serialises them with
// sigs.k8s.io/yaml; Cluster applies them, waits for the pods and collects their result files
// through client-go. It sits beside the flow plan → schedule → engine → … → report, as a way to
// launch the engine on many machines, and imports nothing from the project but k8s/frame. The
// rpcbench-k8s program drives it; rpcbench itself does not link it, nor the Kubernetes client.
package k8s
