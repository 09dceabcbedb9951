// Package k8s writes the Kubernetes manifests that run one rpcbench run as an Indexed Job: N pods,
// each an execution segment of the same plan (the pod's completion index chooses the segment), all
// counting their schedule from one start instant, each writing its result file to a volume for
// `rpcbench report --merge` to add up.
//
// The manifests are typed with k8s.io/api and serialised with sigs.k8s.io/yaml; nothing here talks
// to a cluster. It sits beside the flow plan → schedule → engine → … → report, as a way to launch
// the engine on many machines, and imports nothing from the project.
package k8s
