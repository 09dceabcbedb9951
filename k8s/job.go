package k8s

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"
)

// Where the pods find the plan's files and write their results.
const (
	PlanDir    = "/etc/rpcbench"
	ResultsDir = "/results"
	// IndexEnv is the environment variable that holds a pod's completion index (from 0), read
	// from the annotation the Job controller sets on each pod.
	IndexEnv = "RPCBENCH_SEGMENT_INDEX"
	// MaxParallelism bounds the generators of one Job.
	MaxParallelism = 1000
)

// Defaults of Options.
const (
	DefaultCPU     = "1" // one core per generator: the pacer is honest on one core
	DefaultMemory  = "512Mi"
	DefaultRetries = 1
)

// MaxFilesSize bounds the files of the ConfigMap: an object of the Kubernetes API holds at most
// 1 MiB, its metadata included.
const MaxFilesSize = 1000 << 10

// Options say how to run one plan as an Indexed Job of segments. Zero fields take the defaults
// above; Name, Image, Parallelism, Args and StartAt are required.
type Options struct {
	// Name names the Job, the ConfigMap and the pods' labels: a DNS-1123 label of at most 52
	// characters (the Job controller adds a suffix to pod names).
	Name      string
	Namespace string // empty: the namespace of the kubectl context
	Image     string // an image whose entrypoint is rpcbench
	// Parallelism is the number of generators: pods run at once, one segment each.
	Parallelism int
	// Args are the arguments of one generator's rpcbench command, e.g. ["run", "--rate", "80000",
	// "--duration", "5m", URL], without the part, the start and the result file, which the Job
	// adds: --segment-index $(RPCBENCH_SEGMENT_INDEX)/N --start-at StartAt --out
	// /results/<name>-seg-$(RPCBENCH_SEGMENT_INDEX).rb.
	Args []string
	// Files are mounted read-only under PlanDir from a ConfigMap (a plan file, its target and data
	// files), by name; nil: no ConfigMap.
	Files map[string][]byte
	// FilesSecret puts Files into the Job's Secret instead of a ConfigMap: files that hold
	// secrets (a plan that sends an Authorization header or a URL's password).
	FilesSecret bool
	// Secrets are values the pods' arguments take from their environment, by variable name: Args
	// hold $(NAME) for each (Kubernetes expands it), and the container's environment reads NAME
	// from the Job's Secret (secretKeyRef), so that neither the Job nor a ConfigMap holds them.
	Secrets map[string]string
	// StartAt is the instant every generator counts its schedule from: far enough ahead for the
	// pods to be scheduled and their image pulled.
	StartAt time.Time
	// CPU and Memory are each pod's requests and limits (Kubernetes quantities).
	CPU, Memory string
	// ResultsClaim names the PersistentVolumeClaim (ReadWriteMany when the pods spread over nodes)
	// the result files are written to; empty: each pod prints its result file framed into its log
	// (run --out-log), for Collect to fetch.
	ResultsClaim string
	// Retries is how many times a failed pod of one index is started again (backoffLimitPerIndex);
	// a usage error (exit 2: e.g. a start instant already past) fails its index at once.
	Retries int
}

// Validate returns every problem of o (errors.Join), or nil.
func (o Options) Validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf("k8s: "+format, a...)) }
	if msgs := validation.IsDNS1123Label(o.Name); len(msgs) > 0 || len(o.Name) > 52 {
		bad("name %q: want a DNS-1123 label (lower-case letters, digits and '-') of at most 52 characters", o.Name)
	}
	if o.Namespace != "" {
		if msgs := validation.IsDNS1123Label(o.Namespace); len(msgs) > 0 {
			bad("namespace %q: %s", o.Namespace, strings.Join(msgs, "; "))
		}
	}
	if o.Image == "" || strings.ContainsAny(o.Image, " \t\n") {
		bad("image %q: want an image reference, e.g. registry.example/rpcbench:v1", o.Image)
	}
	if o.Parallelism < 1 || o.Parallelism > MaxParallelism {
		bad("parallelism %d: want 1 to %d generators", o.Parallelism, MaxParallelism)
	}
	if len(o.Args) == 0 {
		bad("no arguments: want the rpcbench command of one generator, e.g. run --rate 1000 URL")
	}
	if o.StartAt.IsZero() {
		bad("no start instant")
	}
	for _, q := range []struct{ what, v string }{{"cpu", o.CPU}, {"memory", o.Memory}} {
		if q.v == "" {
			continue
		}
		if v, err := resource.ParseQuantity(q.v); err != nil || v.Sign() <= 0 {
			bad("%s %q: want a positive Kubernetes quantity, e.g. 1, 500m, 512Mi", q.what, q.v)
		}
	}
	if msgs := validation.IsDNS1123Subdomain(o.ResultsClaim); o.ResultsClaim != "" && len(msgs) > 0 {
		bad("results claim %q: want the name of a PersistentVolumeClaim the pods write their result files to", o.ResultsClaim)
	}
	if o.Retries < 0 {
		bad("retries %d is negative", o.Retries)
	}
	for name := range o.Secrets {
		if msgs := validation.IsEnvVarName(name); len(msgs) > 0 || name == IndexEnv {
			bad("secret %q: want an environment variable name other than %s", name, IndexEnv)
		}
		if _, dup := o.Files[name]; dup && o.FilesSecret {
			bad("secret %q: a file of that name is in the Secret already", name)
		}
	}
	size := 0
	for name, b := range o.Files {
		if msgs := validation.IsConfigMapKey(name); len(msgs) > 0 {
			bad("file %q: %s", name, strings.Join(msgs, "; "))
		}
		size += len(name) + len(b)
	}
	if size > MaxFilesSize {
		bad("files of %d KiB: a ConfigMap holds at most 1 MiB; put large data files into the image or a volume", size>>10)
	}
	return errors.Join(errs...)
}

// Labels returns the labels of the Job's pods.
func (o Options) Labels() map[string]string {
	return map[string]string{"app.kubernetes.io/name": "rpcbench", "rpcbench.dev/run": o.Name}
}

// SegmentArgs returns the arguments the Job adds to Args: the pod's part, the shared start, its
// result file (on the claim, or framed into its log) and --no-verdict: a segment's SLO is judged
// on the merged run, and a pod that exits 1 would be started again after the start instant.
func (o Options) SegmentArgs() []string {
	out := []string{"--out-log"}
	if o.ResultsClaim != "" {
		out = []string{"--out", ResultsDir + "/" + o.Name + "-seg-$(" + IndexEnv + ").rb"}
	}
	return append(append([]string{
		"--segment-index", "$(" + IndexEnv + ")/" + strconv.Itoa(o.Parallelism),
		"--start-at", o.StartAt.UTC().Format(time.RFC3339Nano),
	}, out...), "--quiet", "--no-verdict")
}

// Manifests returns the ConfigMap of the files (nil without files, or when they go into the
// Secret), the Secret of the secrets and of the files that hold them (nil without), and the
// Indexed Job. The three share the Job's name.
func Manifests(o Options) (*corev1.ConfigMap, *corev1.Secret, *batchv1.Job, error) {
	if err := o.Validate(); err != nil {
		return nil, nil, nil, err
	}
	cpu, mem, retries := o.CPU, o.Memory, o.Retries
	if cpu == "" {
		cpu = DefaultCPU
	}
	if mem == "" {
		mem = DefaultMemory
	}
	if retries == 0 {
		retries = DefaultRetries
	}
	labels := o.Labels()
	meta := metav1.ObjectMeta{Name: o.Name, Namespace: o.Namespace, Labels: labels}
	var cm *corev1.ConfigMap
	var secret *corev1.Secret
	env := []corev1.EnvVar{{Name: IndexEnv, ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{
		FieldPath: "metadata.annotations['batch.kubernetes.io/job-completion-index']"}}}}
	if len(o.Secrets) > 0 || len(o.Files) > 0 && o.FilesSecret {
		secret = &corev1.Secret{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"}, ObjectMeta: meta,
			Type: corev1.SecretTypeOpaque, Data: map[string][]byte{}}
		for _, name := range slices.Sorted(maps.Keys(o.Secrets)) {
			secret.Data[name] = []byte(o.Secrets[name])
			env = append(env, corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
				LocalObjectReference: corev1.LocalObjectReference{Name: o.Name}, Key: name}}})
		}
	}
	var volumes []corev1.Volume
	var mounts []corev1.VolumeMount
	if o.ResultsClaim != "" {
		volumes = append(volumes, corev1.Volume{Name: "results", VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: o.ResultsClaim}}})
		mounts = append(mounts, corev1.VolumeMount{Name: "results", MountPath: ResultsDir})
	}
	switch {
	case len(o.Files) > 0 && o.FilesSecret:
		var items []corev1.KeyToPath // the files alone, not the secrets of the environment
		for _, name := range slices.Sorted(maps.Keys(o.Files)) {
			secret.Data[name] = o.Files[name]
			items = append(items, corev1.KeyToPath{Key: name, Path: name})
		}
		volumes = append(volumes, corev1.Volume{Name: "plan", VolumeSource: corev1.VolumeSource{
			Secret: &corev1.SecretVolumeSource{SecretName: o.Name, Items: items}}})
		mounts = append(mounts, corev1.VolumeMount{Name: "plan", MountPath: PlanDir, ReadOnly: true})
	case len(o.Files) > 0:
		cm = &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, ObjectMeta: meta, Data: map[string]string{}}
		for name, b := range o.Files {
			cm.Data[name] = string(b)
		}
		volumes = append(volumes, corev1.Volume{Name: "plan", VolumeSource: corev1.VolumeSource{
			ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: o.Name}}}})
		mounts = append(mounts, corev1.VolumeMount{Name: "plan", MountPath: PlanDir, ReadOnly: true})
	}
	n := int32(o.Parallelism)
	indexed := batchv1.IndexedCompletion
	res := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem)}
	job := &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: meta,
		Spec: batchv1.JobSpec{
			CompletionMode:       &indexed,
			Completions:          &n,
			Parallelism:          &n,
			BackoffLimitPerIndex: ptr(int32(retries)),
			// a usage error (exit 2) will not pass on a retry: fail its index at once
			PodFailurePolicy: &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{
				Action: batchv1.PodFailurePolicyActionFailIndex,
				OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{
					ContainerName: ptr("rpcbench"), Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{2},
				},
			}}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever,
					Containers: []corev1.Container{{
						Name:         "rpcbench",
						Image:        o.Image,
						Args:         append(append([]string(nil), o.Args...), o.SegmentArgs()...),
						Env:          env,
						Resources:    corev1.ResourceRequirements{Requests: res, Limits: res},
						VolumeMounts: mounts,
					}},
					Volumes: volumes,
					// one generator per node where there are enough: a node's NIC and TCP stack
					// are what a single generator runs out of
					Affinity: &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
						PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{
							Weight: 100,
							PodAffinityTerm: corev1.PodAffinityTerm{
								LabelSelector: &metav1.LabelSelector{MatchLabels: labels},
								TopologyKey:   "kubernetes.io/hostname",
							},
						}},
					}},
				},
			},
		},
	}
	return cm, secret, job, nil
}

func ptr[T any](v T) *T { return &v }

// YAML writes the manifests as one YAML stream, "---" between documents, nil ones left out.
func YAML(objs ...any) ([]byte, error) {
	var b bytes.Buffer
	for _, o := range objs {
		switch v := o.(type) {
		case *corev1.ConfigMap:
			if v == nil {
				continue
			}
		case *batchv1.Job:
			if v == nil {
				continue
			}
		case *corev1.Secret:
			if v == nil {
				continue
			}
		}
		y, err := yaml.Marshal(o)
		if err != nil {
			return nil, fmt.Errorf("k8s: %w", err)
		}
		if b.Len() > 0 {
			b.WriteString("---\n")
		}
		b.Write(y)
	}
	return b.Bytes(), nil
}
